package scenarios_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"sync/atomic"
	"testing"

	"eventbox/daemon"
	"eventbox/store"
)

// readTrap is a request body that must not be read.
type readTrap struct{ t *testing.T }

func (r readTrap) Read(p []byte) (int, error) {
	r.t.Error("the body was read before the refusal")
	return 0, os.ErrClosed
}

// noticesOf lists the notices of a kind enqueued so far, whether the
// outbox has fanned them out yet or not.
func noticesOf(t *testing.T, st *store.Store, kind string) []store.Notice {
	t.Helper()
	page, err := st.Jobs().List(context.Background(), store.JobFilter{Kind: store.NoticeJobKind, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Notice
	for _, j := range page.Jobs {
		var n store.Notice
		if err := json.Unmarshal(j.Payload, &n); err != nil {
			t.Fatal(err)
		}
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// TestStorageGuard fakes the card's free space: below the margin, photo
// and voice-note uploads are refused with 507 insufficient_storage before
// a byte of their body is read, the hosts get one storage.low notice, the
// banner route and health say low (health still 200); with space back
// (above the margin and an eighth), uploads are taken again.
func TestStorageGuard(t *testing.T) {
	t.Parallel()
	const margin = 100 << 20
	var free atomic.Int64
	free.Store(10 << 30)
	h := newHarness(t, func(c *daemon.Config) {
		c.StorageMargin = margin
		c.Statfs = func(string) (int64, error) { return free.Load(), nil }
	})
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Full card"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	seed := 10
	photo := func() []byte { seed++; return photoJPEG(t, 320, 240, 0, false, seed) }
	g.upload(slug, photo(), nil, "").expect(t, 201, "")

	free.Store(margin - 1)
	for _, path := range []string{"/api/e/" + slug + "/photos", "/api/e/" + slug + "/messages", "/api/admin/events/" + id + "/photos/import"} {
		t.Run("an upload to "+path+" is refused before its body is read", func(t *testing.T) {
			req := httptest.NewRequest("POST", "http://127.0.0.1"+path, readTrap{t})
			req.Header.Set("Origin", "http://127.0.0.1")
			req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
			req.ContentLength = 5 << 20
			u, _ := url.Parse(h.srv.URL)
			for _, c := range owner.hc.Jar.Cookies(u) {
				req.AddCookie(c)
			}
			rec := httptest.NewRecorder()
			h.d.Handler().ServeHTTP(rec, req)
			if rec.Code != http.StatusInsufficientStorage {
				t.Fatalf("got %d %s; want 507", rec.Code, rec.Body)
			}
			var body map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["error"] != "insufficient_storage" {
				t.Fatalf("body %s", rec.Body)
			}
		})
	}
	before := countPhotos(t, h.st, id)
	g.upload(slug, photo(), nil, "").expect(t, 507, "insufficient_storage")
	if n := countPhotos(t, h.st, id); n != before {
		t.Errorf("%d photos after the refusal; want %d", n, before)
	}
	if n := noticesOf(t, h.st, store.NoticeStorageLow); len(n) != 1 {
		t.Errorf("%d storage.low notices queued; want 1", len(n))
	}
	health := h.client().do("GET", "/api/health", nil).expect(t, 200, "")
	if health.JSON["storage"] != "low" || health.JSON["status"] != "ok" {
		t.Errorf("health %s; want status ok, storage low", health.Body)
	}
	banner := owner.do("GET", "/api/admin/storage", nil).expect(t, 200, "")
	if banner.JSON["low"] != true || banner.JSON["marginBytes"] != float64(margin) {
		t.Errorf("storage %s", banner.Body)
	}

	// Just above the margin is not enough to reopen: no flapping.
	free.Store(margin + 1)
	g.upload(slug, photo(), nil, "").expect(t, 507, "insufficient_storage")
	free.Store(margin + margin/8)
	g.upload(slug, photo(), nil, "").expect(t, 201, "")
	if health := h.client().do("GET", "/api/health", nil); health.JSON["storage"] != "ok" {
		t.Errorf("health %s after space came back", health.Body)
	}
	if n := noticesOf(t, h.st, store.NoticeStorageLow); len(n) != 1 {
		t.Errorf("%d storage.low notices; want still 1", len(n))
	}
}

// TestStorageGuardOnASmallCard runs the guard with the real statfs on a
// tmpfs of 8 MB with a 2 MB margin: with 1 MB left, a photo is refused
// and nothing is stored; once the filler is gone, it is taken.
func TestStorageGuardOnASmallCard(t *testing.T) {
	dir := smallDisk(t, 8<<20)
	h := newHarness(t, func(c *daemon.Config) { c.DataDir = dir; c.StorageMargin = 2 << 20 })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Small card"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	photo := photoJPEG(t, 320, 240, 0, false, 8)

	filler := fillDisk(t, dir)
	st, err := os.Stat(filler)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filler, st.Size()-1<<20); err != nil {
		t.Fatal(err)
	}
	kept := mediaFiles(t, dir)
	g.upload(slug, photo, nil, "").expect(t, 507, "insufficient_storage")
	if files := mediaFiles(t, dir); !slices.Equal(files, kept) {
		t.Errorf("files after the refusal: %v; want %v", files, kept)
	}
	if n := countPhotos(t, h.st, id); n != 0 {
		t.Errorf("%d photos stored; want 0", n)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	g.upload(slug, photo, nil, "").expect(t, 201, "")
}
