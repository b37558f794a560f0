package scenarios_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"eventbox/daemon/backupzip"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// zipOf writes a ZIP of the given entries, the manifest last, each stored.
func zipOf(t *testing.T, entries map[string][]byte, manifest []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: backupzip.ManifestName, Method: zip.Deflate})
	w.Write(manifest)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func manifestFor(files ...backupzip.File) []byte {
	m := backupzip.Manifest{Version: backupzip.FormatVersion, Files: files, DB: backupzip.DB{File: files[0], Schema: store.Schemas()}}
	for _, f := range files {
		m.Bytes += f.Bytes
	}
	raw, _ := json.Marshal(m)
	return raw
}

func fileOf(name string, data []byte) backupzip.File {
	return backupzip.File{Name: name, Bytes: int64(len(data)), SHA256: fmt.Sprintf("%x", sha256.Sum256(data))}
}

// manyEntries is a ZIP of n empty entries.
func manyEntries(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range n {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("media/aaaaaaaaaaaaaaaa/%d", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hugeValueDB is a bbolt database with an owner and one job value of n
// bytes.
func hugeValueDB(t *testing.T, n int) []byte {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(t.Context(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	owner := store.Account{Username: "admin", Role: store.RoleOwner}
	if err := st.Accounts().Create(t.Context(), &owner); err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := bolt.Open(filepath.Join(dir, store.DBFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("jobs")).Put([]byte("huge"), bytes.Repeat([]byte(`{"x":1}`), n/7))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, store.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// inflateBomb is a ZIP whose database entry claims, in the ZIP and in the
// manifest, 1 MB, but inflates to gib GiB of zeros.
func inflateBomb(t *testing.T, gib int) []byte {
	t.Helper()
	// Sync-flushed blocks can be repeated: 64 MiB of zeros, gib*16 times.
	var block bytes.Buffer
	fw, _ := flate.NewWriter(&block, flate.BestCompression)
	fw.Write(make([]byte, 64<<20))
	fw.Flush()
	var end bytes.Buffer
	fe, _ := flate.NewWriter(&end, flate.BestCompression)
	fe.Close()
	stream := append(bytes.Repeat(block.Bytes(), gib*16), end.Bytes()...)
	claimed := make([]byte, 1<<20)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: backupzip.DBName, Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE(claimed), CompressedSize64: uint64(len(stream)), UncompressedSize64: uint64(len(claimed))})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(stream)
	mw, _ := zw.CreateHeader(&zip.FileHeader{Name: backupzip.ManifestName, Method: zip.Deflate})
	mw.Write(manifestFor(fileOf(backupzip.DBName, claimed)))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRestoreZipsStayWithinTheMemoryBudget sends the real binary, as its
// owner, each restore ZIP that once took the daemon past its memory
// budget or filled its card, and checks that it is refused, the daemon's
// peak RSS (VmHWM, reset before each) stays under the budget, and the
// restore area never grows past what the manifest declares.
func TestRestoreZipsStayWithinTheMemoryBudget(t *testing.T) {
	testtool.Long(t, "backups of hundreds of MB made and restored, 20 s on a quiet machine")
	testtool.Unraced(t, "it measures a child binary's peak memory")
	if testing.Short() {
		t.Skip("builds the daemon and sends it ZIPs of hundreds of MB")
	}
	bigManifest := manifestFor(fileOf(backupzip.DBName, nil))
	bigManifest = append(bigManifest[:len(bigManifest)-1], []byte(`,"app":"`+strings.Repeat("x", 53<<20)+`"}`)...)
	db300 := hugeValueDB(t, 300<<20)
	db200 := hugeValueDB(t, 200<<20)
	zips := []struct {
		name     string
		make     func() []byte
		file     string
		declared int64 // the most the restore may write
	}{
		{"1.5 M empty entries", func() []byte { return manyEntries(t, 1_500_000) }, backupzip.ZipName, 0},
		{"a 53 MB manifest", func() []byte { return zipOf(t, map[string][]byte{backupzip.DBName: nil}, bigManifest) }, backupzip.ManifestName, 0},
		{"a database of 300 MB holding one 300 MB value", func() []byte {
			return zipOf(t, map[string][]byte{backupzip.DBName: db300}, manifestFor(fileOf(backupzip.DBName, db300)))
		}, backupzip.DBName, 0},
		{"a database of 200 MB holding one 200 MB value", func() []byte {
			return zipOf(t, map[string][]byte{backupzip.DBName: db200}, manifestFor(fileOf(backupzip.DBName, db200)))
		}, backupzip.DBName, int64(len(db200))},
		{"a database entry claiming 1 MB that inflates to 3 GiB", func() []byte { return inflateBomb(t, 3) }, backupzip.DBName, 1<<20 + 1},
	}

	d := startMemDaemon(t)
	owner := newMemClient(t, d.url)
	owner.json("POST", "/api/admin/login", map[string]any{"password": memOwnerPass}, 200)
	for _, z := range zips {
		t.Run(z.name, func(t *testing.T) {
			body := z.make()
			if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", d.pid), []byte("5"), 0); err != nil {
				t.Fatalf("resetting the peak RSS: %v", err)
			}
			// The restore area's size, polled while the restore runs.
			var staged atomic.Int64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					var n int64
					filepath.WalkDir(filepath.Join(d.dataDir, "restore"), func(_ string, e fs.DirEntry, err error) error {
						if err == nil && !e.IsDir() {
							if info, err := e.Info(); err == nil {
								n += info.Size()
							}
						}
						return nil
					})
					if n > staged.Load() {
						staged.Store(n)
					}
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
			}()
			start := time.Now()
			status, out := owner.do("POST", "/api/admin/backup/restore", "application/zip", body)
			close(stop)
			wg.Wait()
			peak := vmKiB(t, d.pid, "VmHWM")
			t.Logf("%s (%d bytes): %d %s in %v; daemon peak RSS %.1f MiB; restore area at most %d bytes",
				z.name, len(body), status, bytes.TrimSpace(out), time.Since(start).Round(time.Millisecond), float64(peak)/1024, staged.Load())
			var answer struct {
				Details map[string]string `json:"details"`
			}
			_ = json.Unmarshal(out, &answer)
			if status != 400 || answer.Details["file"] != z.file {
				t.Errorf("answered %d %s; want 400 naming %s", status, out, z.file)
			}
			if peak > budgetPeakKiB {
				t.Errorf("peak RSS %.1f MiB, over the %d MiB budget", float64(peak)/1024, budgetPeakKiB>>10)
			}
			if staged.Load() > z.declared+(1<<20) {
				t.Errorf("the restore area grew to %d bytes; the manifest declares %d", staged.Load(), z.declared)
			}
		})
	}
}
