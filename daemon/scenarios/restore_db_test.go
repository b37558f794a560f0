package scenarios_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"eventbox/daemon/backupzip"
	"eventbox/store"
)

// withDB answers the backup's entries with the database replaced by db and
// the manifest telling its true size and checksum, as a crafted backup
// would.
func withDB(t *testing.T, good []byte, db []byte) []byte {
	t.Helper()
	e := zipEntries(t, good)
	for i := range e {
		if e[i].name == backupzip.DBName {
			e[i].data = db
		}
	}
	return writeZip(t, editManifest(t, e, func(m *backupzip.Manifest) {
		m.Bytes += int64(len(db)) - m.DB.Bytes
		m.DB.Bytes, m.DB.SHA256 = int64(len(db)), fmt.Sprintf("%x", sha(db))
		m.Files[0] = m.DB.File
	}))
}

// dbOf is the database inside a backup ZIP.
func dbOf(t *testing.T, zipBytes []byte) []byte {
	t.Helper()
	for _, e := range zipEntries(t, zipBytes) {
		if e.name == backupzip.DBName {
			return e.data
		}
	}
	t.Fatal("no database in the backup")
	return nil
}

// boltFile builds a bbolt file with fill and answers its bytes.
func boltFile(t *testing.T, fill func(tx *bolt.Tx) error) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.db")
	db, err := bolt.Open(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fill != nil {
		if err := db.Update(fill); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// editDB answers db after fn changed it in one transaction.
func editDB(t *testing.T, db []byte, fn func(tx *bolt.Tx) error) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(p, db, 0o600); err != nil {
		t.Fatal(err)
	}
	bdb, err := bolt.Open(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := bdb.Update(fn); err != nil {
		t.Fatal(err)
	}
	if err := bdb.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// zeroPage answers db with the 16-byte header of page n zeroed.
func zeroPage(t *testing.T, db []byte, n int) []byte {
	t.Helper()
	const pageSize = 4096
	if len(db) < (n+1)*pageSize {
		t.Fatalf("the database has %d pages; page %d is wanted", len(db)/pageSize, n)
	}
	out := bytes.Clone(db)
	clear(out[n*pageSize : n*pageSize+16])
	return out
}

// pageType answers what page n of db is to the database: "meta",
// "freelist", "branch", "leaf", or "free" (or "" past its end).
func pageType(t *testing.T, db []byte, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(p, db, 0o600); err != nil {
		t.Fatal(err)
	}
	bdb, err := bolt.Open(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	var typ string
	_ = bdb.View(func(tx *bolt.Tx) error {
		info, err := tx.Page(n)
		if err == nil && info != nil {
			typ = info.Type
		}
		return nil
	})
	return typ
}

// openStaged lists what of the process still points into the restore
// area: open descriptors and memory maps.
func openStaged(t *testing.T, dataDir string) []string {
	t.Helper()
	area := filepath.Join(dataDir, "restore") + string(filepath.Separator)
	var out []string
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, area) {
			out = append(out, "fd "+target)
		}
	}
	maps, _ := os.ReadFile("/proc/self/maps")
	for _, line := range strings.Split(string(maps), "\n") {
		if strings.Contains(line, area) {
			out = append(out, "map "+line)
		}
	}
	return out
}

// TestRestoreRefusesDatabasesTheBoxCannotRun sends backups whose
// manifest is right but whose database is not one the box can run: bbolt
// pages with a zeroed header (each page the database reads: its freelist
// and its record pages), an empty file, an empty bbolt file, an eventbox
// database without an owner, without a bucket the box needs, with a 5 MB
// value, and one claiming pages beyond its end. Each answers 400 naming
// eventbox.db, nothing changes, nothing of the staged file stays open or
// mapped, and the box keeps serving.
func TestRestoreRefusesDatabasesTheBoxCannotRun(t *testing.T) {
	src := newHarness(t)
	good := download(t, populate(t, src))
	gooddb := dbOf(t, good)
	dst := newHarness(t)
	owner := dst.owner()
	dst.createEvent(owner, map[string]any{"name": "Kept"})
	before, beforeFiles := dump(t, dst.st), files(t, dst.cfg.DataDir)

	type tc struct {
		name   string
		db     func() []byte
		reason string
	}
	tests := []tc{
		{"a database of 0 bytes", func() []byte { return nil }, "empty"},
		{"an empty bbolt file", func() []byte { return boltFile(t, nil) }, "no schema"},
		{"a bbolt file of other buckets", func() []byte {
			return boltFile(t, func(tx *bolt.Tx) error {
				_, err := tx.CreateBucket([]byte("something"))
				return err
			})
		}, "no schema"},
		{"an eventbox database without an owner", func() []byte {
			dir := t.TempDir()
			st, err := store.Open(context.Background(), dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			b, err := os.ReadFile(filepath.Join(dir, store.DBFile))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, "no owner"},
		{"a database whose owners were removed", func() []byte {
			return editDB(t, gooddb, func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte("accounts"))
				var ids [][]byte
				_ = b.ForEach(func(k, v []byte) error {
					var a struct{ Role string }
					if json.Unmarshal(v, &a) == nil && a.Role == "owner" {
						ids = append(ids, bytes.Clone(k))
					}
					return nil
				})
				for _, id := range ids {
					if err := b.Delete(id); err != nil {
						return err
					}
				}
				return nil
			})
		}, "no owner"},
		{"a database without its photos", func() []byte {
			return editDB(t, gooddb, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("photos")) })
		}, "lacks the photos"},
		{"a database with a 5 MB value", func() []byte {
			return editDB(t, gooddb, func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("jobs")).Put([]byte("huge"), bytes.Repeat([]byte("x"), 5<<20))
			})
		}, "holds a value of 5 MB"},
		{"a database claiming pages past its end", func() []byte {
			return gooddb[:len(gooddb)-4096]
		}, "cut short"},
	}
	// Every page the database reads past the metas (the audit zeroed
	// pages 2 and 4 to 8 of its backup: the freelist and record pages).
	kinds := map[string]int{}
	for n := 2; n < len(gooddb)/4096; n++ {
		typ := pageType(t, gooddb, n)
		if typ == "" || typ == "free" {
			continue
		}
		kinds[typ]++
		tests = append(tests, tc{fmt.Sprintf("a database whose page %d (%s) header is zeroed", n, typ),
			func() []byte { return zeroPage(t, gooddb, n) }, "damaged"})
	}
	if kinds["freelist"] != 1 || kinds["leaf"]+kinds["branch"] < 3 {
		t.Fatalf("the backup's database reads pages %v; the test wants its freelist and at least 3 record pages", kinds)
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			r := restoreZip(owner, withDB(t, good, tt.db())).expect(t, 400, "bad_request")
			if f, _ := r.details()["file"].(string); f != backupzip.DBName {
				t.Errorf("details.file %q; want %q (%s)", f, backupzip.DBName, r.Body)
			}
			if msg, _ := r.JSON["message"].(string); !strings.Contains(msg, tt.reason) {
				t.Errorf("message %q; want it to say %q", msg, tt.reason)
			}
			sameRecords(t, dump(t, dst.st), before)
			if got := files(t, dst.cfg.DataDir); len(got) != len(beforeFiles) {
				t.Errorf("%d media files after the refusal; want %d", len(got), len(beforeFiles))
			}
			if _, err := os.Stat(filepath.Join(dst.cfg.DataDir, "restore")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("restore area left behind: %v", err)
			}
			if open := openStaged(t, dst.cfg.DataDir); len(open) > 0 {
				t.Errorf("the staged database is still open: %v", open)
			}
			select {
			case <-dst.d.Restarts():
				t.Fatal("a refused restore asked for a restart")
			default:
			}
			owner.do("GET", "/api/admin/events", nil).expect(t, 200, "")
		})
	}
	// The good backup still restores, and the restored database is 0600
	// like the one a fresh box makes.
	restoreZip(owner, good).expect(t, 200, "")
	dst = restart(t, dst)
	info, err := os.Stat(filepath.Join(dst.cfg.DataDir, store.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if mode := info.Mode().Perm(); mode != 0o600 {
		t.Errorf("the restored eventbox.db has mode %o; want 600", mode)
	}
}
