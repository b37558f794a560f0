package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"eventbox/daemon/backupzip"
	"eventbox/store"
)

// rezip answers the ZIP at path with its database replaced by db and its
// manifest telling db's true size and checksum.
func rezip(t *testing.T, path string, db []byte) []byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		switch f.Name {
		case backupzip.DBName:
			data = db
		case backupzip.ManifestName:
			var m backupzip.Manifest
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			m.Bytes += int64(len(db)) - m.DB.Bytes
			m.DB.Bytes, m.DB.SHA256 = int64(len(db)), fmt.Sprintf("%x", sha256.Sum256(db))
			m.Files[0] = m.DB.File
			data, _ = json.Marshal(m)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBlackBoxRestoreRefusesDatabasesWithoutAnOwner runs `eventbox
// restore` with backups whose database is 0 bytes, an empty bbolt file,
// or an eventbox database without an owner: each is refused naming
// eventbox.db, and the box keeps its owner and its nine media files.
func TestBlackBoxRestoreRefusesDatabasesWithoutAnOwner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Parallel()
	bin := buildBinary(t)
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	owner := store.Account{Username: "admin", Role: store.RoleOwner}
	if err := st.Accounts().Create(ctx, &owner); err != nil {
		t.Fatal(err)
	}
	e := store.NewEvent("Party")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		p := store.Photo{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible, Format: "jpeg"}
		if _, err := st.Photos().Add(ctx, p, 0); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{p.OriginalName(), p.VariantName("thumb"), p.VariantName("display")} {
			if _, err := st.Media().Write(n, strings.NewReader("photo")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "good.zip")
	cmd := exec.Command(bin, "backup", "--out", good)
	cmd.Env = []string{"DATA_DIR=" + dir}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("backup: %v: %s", err, out)
	}

	emptyBolt := filepath.Join(t.TempDir(), "empty.db")
	bdb, err := bolt.Open(emptyBolt, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	noOwnerDir := t.TempDir()
	st, err = store.Open(ctx, noOwnerDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tt := range []struct {
		name, reason string
		db           []byte
	}{
		{"a 0-byte database", "empty", nil},
		{"an empty bbolt file", "no schema", read(emptyBolt)},
		{"a database without an owner", "no owner", read(filepath.Join(noOwnerDir, store.DBFile))},
	} {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.zip")
			if err := os.WriteFile(bad, rezip(t, good, tt.db), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "restore", bad)
			cmd.Env = []string{"DATA_DIR=" + dir}
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "backup refused, nothing changed") ||
				!strings.Contains(string(out), backupzip.DBName) || !strings.Contains(string(out), tt.reason) {
				t.Fatalf("restore: %v: %s", err, out)
			}
			st, err := store.Open(ctx, dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if a, err := st.Accounts().ByUsername(ctx, "admin"); err != nil || a.Role != store.RoleOwner {
				t.Errorf("the owner after the refusal: %+v %v", a, err)
			}
			if u, err := st.Usage(ctx); err != nil || u.Files != 9 {
				t.Errorf("the box holds %d media files after the refusal (%v); want 9", u.Files, err)
			}
		})
	}
}
