package scenarios_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/daemon/backups"
	"eventbox/daemon/backupzip"
	"eventbox/store"
)

// populate fills a box: an event with two photos (variants made), a text
// message, a voice note, an organizer and a gallery link.
func populate(t *testing.T, h *harness) *client {
	t.Helper()
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Ana & Ben"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	g.upload(slug, photoJPEG(t, 640, 480, 0, false, 1), nil, "").expect(t, 201, "")
	g.upload(slug, photoJPEG(t, 480, 640, 0, false, 2), nil, "").expect(t, 201, "")
	g.postMessage(slug, "Congratulations!", nil, "").expect(t, 201, "")
	ogg, err := os.ReadFile("../../probe/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	g.postMessage(slug, "", ogg, "0.8").expect(t, 201, "")
	h.organizer("organizer", id)
	owner.do("POST", "/api/admin/events/"+id+"/shares", map[string]any{"label": "Family"}).expect(t, 201, "")
	waitVariants(t, h)
	return owner
}

// dump is every record of a store but the sessions, which a restore
// replaces on purpose (docs/design.md, "Restore and sessions").
func dump(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := st.Dump(context.Background(), func(bucket string, k, v []byte) error {
		if bucket == "sessions" || bucket == "sessions_by_account" {
			return nil
		}
		out[bucket+"/"+string(k)] = string(v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// files is every media file of a DATA_DIR with its bytes.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(dir, "media")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameRecords(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("record %q: got %.120q, want %.120q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("record %q is extra", k)
		}
	}
}

// restart does what cmd/eventbox does when the daemon asks for a restart:
// the old server goes, the store is opened again (which swaps a decided
// restore in) and a new server starts over it.
func restart(t *testing.T, h *harness, opts ...func(*daemon.Config)) *harness {
	t.Helper()
	select {
	case <-h.d.Restarts():
	default:
		t.Fatal("the daemon did not ask for a restart")
	}
	h.srv.Close()
	if err := h.st.Close(); err != nil {
		t.Fatal(err)
	}
	return newHarness(t, append([]func(*daemon.Config){func(c *daemon.Config) { c.DataDir = h.cfg.DataDir }}, opts...)...)
}

func download(t *testing.T, c *client) []byte {
	t.Helper()
	r := c.do("GET", "/api/admin/backup?download=1", nil).expect(t, 200, "")
	if ct := r.Header.Get("Content-Type"); ct != "application/zip" {
		t.Fatalf("Content-Type %q", ct)
	}
	return r.Body
}

func restoreZip(c *client, body []byte) response {
	return c.do("POST", "/api/admin/backup/restore", body, "Content-Type", "application/zip")
}

// restoreChunked sends the ZIP without a Content-Length, so that only its
// manifest tells its size.
func restoreChunked(t *testing.T, c *client, body []byte) response {
	t.Helper()
	req, err := http.NewRequest("POST", c.h.srv.URL+"/api/admin/backup/restore", io.MultiReader(bytes.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", c.origin)
	req.Header.Set("Content-Type", "application/zip")
	res, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out := response{Status: res.StatusCode, Header: res.Header}
	out.Body, _ = io.ReadAll(res.Body)
	_ = json.Unmarshal(out.Body, &out.JSON)
	return out
}

// du is the size of the files under dir.
func du(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

func sha(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

// TestBackupRestoresEverything backs up a populated box, restores the ZIP
// into a fresh DATA_DIR through the console's route, and finds every
// record (compared key by key, value by value) and every media file (byte
// by byte); the owner who restored stays signed in.
func TestBackupRestoresEverything(t *testing.T) {
	t.Parallel()
	src := newHarness(t)
	owner := populate(t, src)
	zipBytes := download(t, owner)
	wantRecords, wantFiles := dump(t, src.st), files(t, src.cfg.DataDir)
	if len(wantFiles) < 6 {
		t.Fatalf("only %d media files in the populated box", len(wantFiles))
	}

	dst := newHarness(t)
	restorer := dst.owner()
	r := restoreZip(restorer, zipBytes).expect(t, 200, "")
	m := r.JSON["manifest"].(map[string]any)
	if int(m["files"].(float64)) != len(wantFiles)+1 {
		t.Errorf("manifest counts %v files; want %d media and the database", m["files"], len(wantFiles))
	}
	// Until the restart, nothing may change what is being replaced.
	restorer.do("GET", "/api/admin/events", nil).expect(t, 503, "unavailable")

	after := restart(t, dst)
	sameRecords(t, dump(t, after.st), wantRecords)
	gotFiles := files(t, after.cfg.DataDir)
	for name, b := range wantFiles {
		if gotFiles[name] != b {
			t.Errorf("media file %s differs or is missing", name)
		}
	}
	if len(gotFiles) != len(wantFiles) {
		t.Errorf("%d media files restored; want %d", len(gotFiles), len(wantFiles))
	}
	// Same cookie, new server: the restoring owner ("admin", an owner in
	// the restored data) is still signed in.
	restorer.h = after
	restorer.origin = after.srv.URL
	me := restorer.do("GET", "/api/admin/me", nil).expect(t, 200, "")
	if acct, _ := me.JSON["account"].(map[string]any); acct == nil || acct["username"] != "admin" {
		t.Errorf("signed in as %s; want admin", me.Body)
	}
}

// TestRestoreSignsOutWhenTheOwnerIsNotInTheBackup: an owner whose
// username the restored data lacks is signed out.
func TestRestoreSignsOutWhenTheOwnerIsNotInTheBackup(t *testing.T) {
	t.Parallel()
	src := newHarness(t, func(c *daemon.Config) { c.AdminUsername = "someone" })
	zipBytes := download(t, src.owner())
	dst := newHarness(t)
	r := restoreZip(dst.owner(), zipBytes).expect(t, 200, "")
	if c := r.Header.Get("Set-Cookie"); !strings.Contains(c, "gr_admin=;") || !strings.Contains(c, "Max-Age=0") {
		t.Errorf("Set-Cookie %q; want the session cookie cleared", c)
	}
}

// zipEntry is one file of a ZIP being rewritten.
type zipEntry struct {
	name string
	data []byte
}

func zipEntries(t *testing.T, b []byte) []zipEntry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []zipEntry
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
		out = append(out, zipEntry{f.Name, data})
	}
	return out
}

func writeZip(t *testing.T, entries []zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// editManifest rewrites the manifest entry with fn.
func editManifest(t *testing.T, entries []zipEntry, fn func(m *backupzip.Manifest)) []zipEntry {
	t.Helper()
	for i, e := range entries {
		if e.name == backupzip.ManifestName {
			var m backupzip.Manifest
			if err := json.Unmarshal(e.data, &m); err != nil {
				t.Fatal(err)
			}
			fn(&m)
			raw, _ := json.Marshal(m)
			entries[i].data = raw
		}
	}
	return entries
}

// TestRestoreRefusesBadBackups sends each kind of bad ZIP: each answers
// 400 naming the offending file, and the box's records, files and restore
// area are as they were.
func TestRestoreRefusesBadBackups(t *testing.T) {
	t.Parallel()
	var free atomic.Int64
	free.Store(1 << 40)
	src := newHarness(t)
	good := download(t, populate(t, src))
	var tmpDir string
	dst := newHarness(t, func(c *daemon.Config) {
		c.StorageMargin = 1 << 20
		tmpDir = filepath.Join(c.DataDir, "tmp")
		// The card's free space goes down as the upload is stored.
		c.Statfs = func(string) (int64, error) { return free.Load() - du(tmpDir), nil }
	})
	owner := dst.owner()
	h := dst
	dst.createEvent(owner, map[string]any{"name": "Kept"})
	before, beforeFiles := dump(t, dst.st), files(t, dst.cfg.DataDir)

	entries := zipEntries(t, good)
	var media string
	for _, e := range entries {
		if strings.HasPrefix(e.name, "media/") {
			media = e.name
			break
		}
	}
	eventDir := strings.Split(media, "/")[1]
	without := func(name string) []zipEntry {
		var out []zipEntry
		for _, e := range zipEntries(t, good) {
			if e.name != name {
				out = append(out, e)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		body   func() []byte
		free   int64 // 0: plenty
		file   string
		reason string
	}{
		{"a body that is not a ZIP", func() []byte { return []byte("not a zip at all") }, 0, backupzip.ZipName, "not a ZIP"},
		{"a ZIP without a manifest", func() []byte { return writeZip(t, without(backupzip.ManifestName)) }, 0, backupzip.ManifestName, "missing"},
		{"a manifest that is not JSON", func() []byte {
			e := zipEntries(t, good)
			for i := range e {
				if e[i].name == backupzip.ManifestName {
					e[i].data = []byte("{broken")
				}
			}
			return writeZip(t, e)
		}, 0, backupzip.ManifestName, "not a valid manifest"},
		{"a manifest of another version", func() []byte {
			return writeZip(t, editManifest(t, zipEntries(t, good), func(m *backupzip.Manifest) { m.Version = 99 }))
		}, 0, backupzip.ManifestName, "version"},
		{"a file with a wrong checksum", func() []byte {
			e := zipEntries(t, good)
			for i := range e {
				if e[i].name == media {
					e[i].data = append([]byte{}, e[i].data...)
					e[i].data[len(e[i].data)/2] ^= 0xff
				}
			}
			return writeZip(t, e)
		}, 0, media, "checksum"},
		{"a file missing from the ZIP", func() []byte { return writeZip(t, without(media)) }, 0, media, "not in the ZIP"},
		{"a file the manifest does not list", func() []byte {
			return writeZip(t, append(zipEntries(t, good), zipEntry{"media/" + eventDir + "/extra.jpg", []byte("x")}))
		}, 0, "media/" + eventDir + "/extra.jpg", "not in the manifest"},
		{"a name escaping the staging area", func() []byte {
			return writeZip(t, append(zipEntries(t, good), zipEntry{"media/../../evil.db", []byte("x")}))
		}, 0, "media/../../evil.db", "outside"},
		{"an absolute name", func() []byte {
			return writeZip(t, append(zipEntries(t, good), zipEntry{"/etc/passwd", []byte("x")}))
		}, 0, "/etc/passwd", "outside"},
		{"a database newer than the binary", func() []byte {
			return writeZip(t, editManifest(t, zipEntries(t, good), func(m *backupzip.Manifest) { m.DB.Schema = 999 }))
		}, 0, backupzip.DBName, "newer"},
		{"a database that is not one", func() []byte {
			e := zipEntries(t, good)
			junk := bytes.Repeat([]byte("junk"), 4096)
			for i := range e {
				if e[i].name == backupzip.DBName {
					e[i].data = junk
				}
			}
			return writeZip(t, editManifest(t, e, func(m *backupzip.Manifest) {
				m.Bytes += int64(len(junk)) - m.DB.Bytes
				m.DB.Bytes, m.DB.SHA256 = int64(len(junk)), fmt.Sprintf("%x", sha(junk))
				m.Files[0] = m.DB.File
			}))
		}, 0, backupzip.DBName, "not a database"},
		{"a ZIP larger than the free space", func() []byte { return good }, 1<<20 + 10, backupzip.ZipName, "larger than the free space"},
		{"a ZIP announced larger than the free space", func() []byte { return good }, 1<<20 + 10, backupzip.ZipName, "larger than the free space"},
		{"a backup too large for the card", func() []byte { return good }, 1<<20 + int64(len(good))*3/2, "*", "does not fit"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused and changes nothing", func(t *testing.T) {
			free.Store(1 << 40)
			if tt.free > 0 {
				free.Store(tt.free)
			}
			var r response
			if tt.name == "a ZIP larger than the free space" {
				r = restoreChunked(t, owner, tt.body())
			} else {
				r = restoreZip(owner, tt.body())
			}
			r.expect(t, 400, "bad_request")
			if f, _ := r.details()["file"].(string); f != tt.file && (tt.file != "*" || !strings.HasPrefix(f, "media/")) {
				t.Errorf("details.file %q; want %q (%s)", f, tt.file, r.Body)
			}
			if msg, _ := r.JSON["message"].(string); !strings.Contains(msg, tt.reason) {
				t.Errorf("message %q; want it to say %q", msg, tt.reason)
			}
			sameRecords(t, dump(t, h.st), before)
			if got := files(t, h.cfg.DataDir); len(got) != len(beforeFiles) {
				t.Errorf("%d media files after the refusal; want %d", len(got), len(beforeFiles))
			}
			if _, err := os.Stat(filepath.Join(h.cfg.DataDir, "restore")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("restore area left behind: %v", err)
			}
			if tmp, _ := os.ReadDir(filepath.Join(h.cfg.DataDir, "tmp")); len(tmp) != 0 {
				t.Errorf("temp files left behind: %d", len(tmp))
			}
			select {
			case <-h.d.Restarts():
				t.Fatal("a refused restore asked for a restart")
			default:
			}
		})
	}
}

// TestBackupRetentionRoute checks the retention's range and that GET
// answers it with the backup's figures.
func TestBackupRetentionRoute(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	got := owner.do("GET", "/api/admin/backup", nil).expect(t, 200, "")
	if got.JSON["retentionDays"] != float64(store.DefaultRetentionDays) || got.JSON["storage"] != "card" {
		t.Errorf("GET backup: %s", got.Body)
	}
	for _, tt := range []struct {
		days   any
		status int
	}{{0, 200}, {14, 200}, {3650, 200}, {13, 400}, {3651, 400}, {-1, 400}, {"30", 400}} {
		t.Run(fmt.Sprintf("days %v answers %d", tt.days, tt.status), func(t *testing.T) {
			r := owner.do("PUT", "/api/admin/backup/retention", map[string]any{"days": tt.days})
			if r.Status != tt.status {
				t.Fatalf("got %d %s", r.Status, r.Body)
			}
			if tt.status == 400 {
				if _, ok := r.details()["days"]; !ok {
					t.Errorf("details %v do not name days", r.details())
				}
				return
			}
			if r.JSON["retentionDays"] != float64(tt.days.(int)) {
				t.Errorf("answer %s", r.Body)
			}
			if g := owner.do("GET", "/api/admin/backup", nil); g.JSON["retentionDays"] != float64(tt.days.(int)) {
				t.Errorf("GET after PUT: %s", g.Body)
			}
		})
	}
}

// TestServerSchedulesTheNightlyBackup: a new server queues the next
// nightly backup at 03:00 of the box's clock (daemon/backups).
func TestServerSchedulesTheNightlyBackup(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	now := h.clock.Now()
	jobs, err := h.st.Jobs().Unfinished(context.Background(), backups.JobKind, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(now.Year(), now.Month(), now.Day()+1, 3, 0, 0, 0, now.Location())
	if len(jobs) != 1 || jobs[0].DueAt != want.UnixMilli() || jobs[0].Key != "nightly-"+want.Format("2006-01-02") {
		t.Errorf("backup jobs %+v; want one due %v", jobs, want)
	}
}
