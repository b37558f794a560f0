package scenarios_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// readZip opens an archive answer and returns its entries by name with
// their contents.
func readZip(t *testing.T, r response) (map[string][]byte, []*zip.File) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/zip" {
		t.Fatalf("Content-Type = %q: %s", ct, r.Body)
	}
	zr, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
	if err != nil {
		t.Fatalf("the answer is not a ZIP: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("reading %s: %v (the CRC must match)", f.Name, err)
		}
		out[f.Name] = b
	}
	return out, zr.File
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// safeEntry is what a name in our archives looks like: date-time, the
// guest's name in letters, digits and dashes, the id, an extension.
var safeEntry = regexp.MustCompile(`^\d{8}-\d{6}(-[\p{L}\p{N}]+(-[\p{L}\p{N}]+)*)?-[a-z2-7]{16}\.(jpg|png|mp4|mov|webm)$`)

func TestAdminArchive(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Ana & Ben: the wedding"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	g.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": `Zoë / "Z" <3`}).expect(t, 200, "")
	originals := map[string][]byte{}
	up := func(seed int) string {
		data := photoJPEG(t, 64, 48, 0, false, seed)
		pid := g.upload(slug, data, nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
		originals[pid] = data
		h.clock.Advance(time.Second)
		return pid
	}
	visible, favorite, hidden, pending := up(1), up(2), up(3), ""
	poster := photoJPEG(t, 64, 36, 0, false, 5)
	mp4 := mp4OfSeconds(3)
	vid := g.uploadVideo(slug, poster, mp4, strconv.Itoa(len(poster))).expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	originals[vid] = mp4
	h.clock.Advance(time.Second)
	owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"moderation": "pre"}).expect(t, 200, "")
	pending = up(4)
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "hide", "ids": []string{hidden}}).expect(t, 200, "")
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "favorite", "ids": []string{favorite}}).expect(t, 200, "")

	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"by default the visible photos and videos", "", []string{visible, favorite, vid}},
		{"all=1 adds pending and hidden ones", "?all=1", []string{visible, favorite, hidden, vid, pending}},
		{"favorites=1 keeps the visible favorites", "?favorites=1", []string{favorite}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("GET", "/api/admin/events/"+id+"/archive"+tt.query, nil).expect(t, 200, "")
			if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="Ana & Ben the wedding - `) {
				t.Errorf("Content-Disposition = %q", cd)
			}
			files, entries := readZip(t, r)
			if len(files) != len(tt.want) {
				t.Fatalf("entries %v, want %d", sortedKeys(files), len(tt.want))
			}
			for _, pid := range tt.want {
				var found string
				for name := range files {
					if strings.Contains(name, pid) {
						found = name
					}
				}
				if found == "" {
					t.Fatalf("photo %s is missing from %v", pid, sortedKeys(files))
				}
				if !bytes.Equal(files[found], originals[pid]) {
					t.Errorf("%s is not the original as uploaded", found)
				}
				if !safeEntry.MatchString(found) || !strings.Contains(found, "-Zoë-Z-3-") {
					t.Errorf("entry name %q is not readable and safe", found)
				}
				if pid == vid && !strings.HasSuffix(found, ".mp4") {
					t.Errorf("the video is named %q", found)
				}
			}
			for _, f := range entries {
				if f.Method != zip.Store {
					t.Errorf("%s is compressed (method %d)", f.Name, f.Method)
				}
				if f.NonUTF8 {
					t.Errorf("%s is not flagged UTF-8", f.Name)
				}
			}
		})
	}
	t.Run("the entry time is the photo's createdAt", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/events/"+id+"/archive?favorites=1", nil).expect(t, 200, "")
		_, entries := readZip(t, r)
		p := photoByID(t, owner.do("GET", "/api/admin/events/"+id+"/photos", nil), favorite)
		want := time.UnixMilli(int64(p["createdAt"].(float64))).Truncate(time.Second)
		if got := entries[0].Modified; !got.Equal(want) {
			t.Fatalf("modified %v, want %v", got, want)
		}
	})
	t.Run("each archive counts a download of each photo in it", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/events/"+id+"/photos", nil).expect(t, 200, "")
		// default (3) + all (5) + favorites twice: favorite 4, visible 2,
		// hidden 1, pending 1.
		want := map[string]float64{visible: 2, favorite: 4, hidden: 1, vid: 2, pending: 1}
		for pid, n := range want {
			if got := photoByID(t, r, pid)["downloads"]; got != n {
				t.Errorf("downloads of %s = %v, want %v", pid, got, n)
			}
		}
	})
	t.Run("an archive with nothing to hold is a valid empty ZIP", func(t *testing.T) {
		empty := h.createEvent(owner, map[string]any{"name": "Empty"})["id"].(string)
		r := owner.do("GET", "/api/admin/events/"+empty+"/archive", nil).expect(t, 200, "")
		if files, _ := readZip(t, r); len(files) != 0 {
			t.Fatalf("entries %v", sortedKeys(files))
		}
	})
	t.Run("a file gone from disk is left out", func(t *testing.T) {
		if err := os.Remove(filepath.Join(h.cfg.DataDir, "media", id, visible+".orig")); err != nil {
			t.Fatal(err)
		}
		files, _ := readZip(t, owner.do("GET", "/api/admin/events/"+id+"/archive", nil).expect(t, 200, ""))
		if len(files) != 2 {
			t.Fatalf("entries %v", sortedKeys(files))
		}
	})
	t.Run("a flag other than 1 or 0 is refused", func(t *testing.T) {
		owner.do("GET", "/api/admin/events/"+id+"/archive?all=yes", nil).expect(t, 400, "bad_request")
	})
}

func TestGalleryArchive(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	a, b, hidden := uploadID(t, g, slug, 1, nil, ""), uploadID(t, g, slug, 2, nil, ""), uploadID(t, g, slug, 3, nil, "")
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "hide", "ids": []string{hidden}}).expect(t, 200, "")
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "favorite", "ids": []string{b}}).expect(t, 200, "")
	all, _ := createShare(t, owner, id, map[string]any{"allowDownload": true})
	favs, _ := createShare(t, owner, id, map[string]any{"allowDownload": true, "favoritesOnly": true})
	tests := []struct {
		name  string
		share map[string]any
		want  []string
	}{
		{"a link's archive holds its visible photos", all, []string{a, b}},
		{"a favorites link's archive holds the favorites", favs, []string{b}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.client().do("GET", "/api/g/"+tt.share["token"].(string)+"/archive", nil).expect(t, 200, "")
			files, _ := readZip(t, r)
			if len(files) != len(tt.want) {
				t.Fatalf("entries %v", sortedKeys(files))
			}
			for _, pid := range tt.want {
				ok := false
				for name := range files {
					ok = ok || strings.Contains(name, pid)
				}
				if !ok {
					t.Errorf("%s missing from %v", pid, sortedKeys(files))
				}
			}
		})
	}
}

// logBuffer collects log lines for assertions.
type logBuffer = testtool.SyncBuffer

// addSparsePhoto stores a photo record whose original is a sparse file of
// size bytes: large media without writing them.
func addSparsePhoto(t *testing.T, st *store.Store, dataDir, eventID string, size int64) store.Photo {
	t.Helper()
	res, err := st.Photos().Add(context.Background(), store.Photo{
		EventID: eventID, GuestName: "Booth", Status: store.StatusVisible, Width: 4000, Height: 3000,
		Format: "jpeg", Size: size, Variants: true,
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dataDir, "media", eventID, res.Photo.ID+".orig")
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0xff, 0xd8, 0xff}); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return res.Photo
}

func TestArchiveStopsWhenTheClientLeaves(t *testing.T) {
	logs := &logBuffer{}
	h := newHarness(t, func(c *daemon.Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "Big"})["id"].(string)
	var ids []string
	for i := 0; i < 40; i++ {
		ids = append(ids, addSparsePhoto(t, h.st, h.cfg.DataDir, id, 64<<20).ID)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", h.srv.URL+"/api/admin/events/"+id+"/archive", nil)
	res, err := owner.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, res.Body, 1<<20); err != nil {
		t.Fatal(err)
	}
	cancel()
	res.Body.Close()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "archive stopped") {
		if time.Now().After(deadline) {
			t.Fatalf("the archive did not stop within 20 s; log:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(logs.String(), "archive sent") {
		t.Fatal("the archive ran to its end after the client left")
	}
	r := owner.do("GET", "/api/admin/events/"+id+"/photos", nil).expect(t, 200, "")
	for _, pid := range ids {
		if n := photoByID(t, r, pid)["downloads"]; n != float64(0) {
			t.Fatalf("an unfinished archive counted a download: %v", n)
		}
	}
}

func TestArchiveFailureCutsTheConnection(t *testing.T) {
	logs := &logBuffer{}
	h := newHarness(t, func(c *daemon.Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "P"})["id"].(string)
	broken := addSparsePhoto(t, h.st, h.cfg.DataDir, id, 1<<20)
	addSparsePhoto(t, h.st, h.cfg.DataDir, id, 1<<20) // newer: streamed first
	// An original that cannot be read (a directory in its place) fails
	// the archive half-way.
	orig := filepath.Join(h.cfg.DataDir, "media", id, broken.ID+".orig")
	if err := os.Remove(orig); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(orig, 0o750); err != nil {
		t.Fatal(err)
	}
	res, err := owner.hc.Get(h.srv.URL + "/api/admin/events/" + id + "/archive")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err == nil {
		t.Fatalf("the broken archive ended cleanly after %d bytes", len(body))
	}
	if len(body) < 1<<20 {
		t.Fatalf("only %d bytes before the cut: the first photo was not streamed", len(body))
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "archive stopped") {
		if time.Now().After(deadline) {
			t.Fatalf("no log of the stop:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(logs.String(), "handler panicked") {
		t.Fatalf("the deliberate cut was reported as a panic:\n%s", logs.String())
	}
}
