package resumable

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"eventbox/daemon/web"
	"eventbox/store"
)

// fakeRoute stands in for the spec's upload routes: it takes any file
// whole (its first read is the dry run's) and answers a photo.
func fakeRoute(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write([]byte(`{"photo":{"id":"` + store.NewID() + `"}}`))
}

// clock is a test's clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testServer is a Server over dir with the fake route, a guest named by
// the X-Guest header, room bytes of room, and a router over its routes.
func testServer(t testing.TB, dir string, c *clock, room *int64) (*Server, http.Handler) {
	t.Helper()
	s, err := New(Config{Dir: dir, Logger: slog.New(slog.DiscardHandler), Now: c.now,
		Photos: http.HandlerFunc(fakeRoute), Messages: http.HandlerFunc(fakeRoute),
		Who:  func(r *http.Request) string { return r.Header.Get("X-Guest") },
		Room: func(context.Context) int64 { return *room }})
	if err != nil {
		t.Fatal(err)
	}
	rt := httprouter.New()
	handle := func(method, path string, fn web.HandlerFunc) {
		rt.Handler(method, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := fn(w, r); err != nil {
				e := web.ToError(err)
				w.WriteHeader(e.Status)
			}
		}))
	}
	handle("POST", "/api/e/:slug/uploads", s.Create)
	handle("PATCH", "/api/e/:slug/uploads/:id", s.Patch)
	handle("HEAD", "/api/e/:slug/uploads/:id", s.Head)
	handle("GET", "/api/e/:slug/uploads/:id", s.Result)
	return s, rt
}

// finishedUploads writes n finished uploads' folders into dir, as the box
// keeps them for a day after their answer.
func finishedUploads(t testing.TB, dir string, n int, touched int64) {
	t.Helper()
	for i := 0; i < n; i++ {
		id := store.NewID()
		in := info{ID: id, Slug: "party", Guest: "g" + strconv.Itoa(i), Kind: KindPhoto, Length: 100, Offset: 100,
			Touched: touched, Done: &result{Status: 201, Body: json.RawMessage(`{"photo":{"id":"x"}}`)}}
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, id), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id, "info.json"), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

func send(h http.Handler, method, path string, body io.Reader, headers ...string) *http.Response {
	r := httptest.NewRequest(method, path, body)
	r.Header.Set("Tus-Resumable", Version)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

// TestCreationAndSweepReadNoFinishedUpload is the audit's fourth
// finding: every creation, and the sweep, read every upload folder of
// the last day (618 ms with 20,245 of them). The folders are read once,
// at start; after that the finished uploads' folders are not opened:
// here they are made unreadable after the start, and creations, an
// upload sent whole and two sweeps still work and find nothing wrong.
func TestCreationAndSweepReadNoFinishedUpload(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 6, 20, 18, 0, 0, 0, time.UTC)}
	finishedUploads(t, dir, 3000, c.now().UnixMilli())
	room := int64(1 << 30)
	loadStart := time.Now()
	s, h := testServer(t, dir, c, &room)
	t.Logf("the start read 3,000 finished uploads in %v", time.Since(loadStart))
	if n := len(s.idx.finished); n != 3000 {
		t.Fatalf("the index holds %d finished uploads, want 3000", n)
	}
	// Every finished record now unreadable: a creation or a sweep that
	// read one would count it as a half-made folder, or fail.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.WriteFile(filepath.Join(dir, e.Name(), "info.json"), []byte("{"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	for i := 0; i < 30; i++ {
		res := send(h, "POST", "/api/e/party/uploads", nil, "X-Guest", "guest"+strconv.Itoa(i%5), "Upload-Length", "10",
			"Upload-Metadata", "filetype aW1hZ2UvanBlZw==")
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("creation %d: %d", i, res.StatusCode)
		}
		if i == 0 {
			loc := res.Header.Get("Location")
			if p := send(h, "PATCH", loc, strings.NewReader("0123456789"), "X-Guest", "guest0",
				"Content-Type", ContentType, "Upload-Offset", "0"); p.StatusCode != http.StatusNoContent {
				t.Fatalf("PATCH: %d", p.StatusCode)
			}
		}
	}
	took := time.Since(start)
	if n, err := s.Sweep(); err != nil || n != 0 {
		t.Fatalf("the sweep removed %d: %v", n, err)
	}
	// A day later every finished one goes, by the index alone.
	c.advance(DefaultExpiry + time.Minute)
	n, err := s.Sweep()
	if err != nil || n != 3000+30 {
		t.Fatalf("the sweep a day later removed %d: %v; want 3030", n, err)
	}
	t.Logf("30 creations beside 3,000 finished uploads: %v", took)
}

// TestAdmit is the reservation rule, case by case.
func TestAdmit(t *testing.T) {
	const now = int64(10_000_000)
	const mib = int64(1 << 20)
	lim := limits{room: 1000 * mib, perAddress: 800 * mib, expiry: DefaultExpiry}
	busy := func(guest, addr, slug string, length, offset, touched int64) *entry {
		return &entry{guest: guest, addr: addr, slug: slug, kind: KindVideo, length: length, offset: offset, touched: touched}
	}
	idle := now - ShortExpiry.Milliseconds()
	many := func(n int, mk func(i int) *entry) map[string]*entry {
		m := map[string]*entry{}
		for i := 0; i < n; i++ {
			m[strconv.Itoa(i)] = mk(i)
		}
		return m
	}
	in := info{Guest: "g", Addr: "10.0.0.1", Slug: "party", Length: 100 * mib}
	cases := []struct {
		name string
		open map[string]*entry
		in   info
		want int // status; 0 admitted
	}{
		{"an empty box", nil, in, 0},
		{"room for it", map[string]*entry{"a": busy("x", "10.0.0.2", "party", 800*mib, 0, now)}, in, 0},
		{"no room once the others' rest is counted", map[string]*entry{"a": busy("x", "10.0.0.2", "party", 960*mib, 50*mib, now)}, in, 507},
		{"an idle reservation no longer counts", map[string]*entry{"a": busy("x", "10.0.0.2", "party", 950*mib, 50*mib, idle)}, in, 0},
		{"an unstarted one expired", map[string]*entry{"a": busy("x", "10.0.0.2", "party", 950*mib, 0, idle)}, in, 0},
		{"sums that would wrap saturate", map[string]*entry{
			"a": busy("x", "10.0.0.2", "party", math.MaxInt64, 0, now),
			"b": busy("y", "10.0.0.3", "party", math.MaxInt64, 0, now)}, in, 507},
		{"the guest's sixteenth", many(16, func(int) *entry { return busy("g", "10.0.0.9", "other", 1, 1, now) }), in, 429},
		{"fifteen of the guest's", many(15, func(int) *entry { return busy("g", "10.0.0.9", "other", 1, 1, now) }), in, 0},
		{"the address's bytes", many(4, func(i int) *entry { return busy("x"+strconv.Itoa(i), "10.0.0.1", "party", 200*mib, 0, now) }), in, 429},
		{"the address's count", many(32, func(i int) *entry { return busy("x"+strconv.Itoa(i), "10.0.0.1", "party", 2, 1, now) }), in, 429},
		{"another address's count", many(32, func(i int) *entry { return busy("x"+strconv.Itoa(i), "10.0.0.2", "party", 2, 1, now) }), in, 0},
		{"the event's count", many(512, func(i int) *entry { return busy("x"+strconv.Itoa(i), strconv.Itoa(i), "party", 2, 1, now) }), in, 429},
		{"another event's count", many(512, func(i int) *entry { return busy("x"+strconv.Itoa(i), strconv.Itoa(i), "other", 2, 1, now) }), in, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := admit(tc.open, tc.in, now, lim)
			got := 0
			if err != nil {
				got = web.ToError(err).Status
			}
			if got != tc.want {
				t.Fatalf("admit: %d (%v), want %d", got, err, tc.want)
			}
		})
	}
}

// TestAddressKey: an IPv6 address counts by its /64, IPv4 by itself.
func TestAddressKey(t *testing.T) {
	for in, want := range map[string]string{
		"10.42.0.17":                "10.42.0.17",
		"::ffff:10.42.0.17":         "10.42.0.17",
		"fe80::1%wlan0":             "fe80::/64",
		"fe80::dead:beef:1:2":       "fe80::/64",
		"2001:db8:1:2:aaaa::1":      "2001:db8:1:2::/64",
		"2001:db8:1:3:aaaa::1":      "2001:db8:1:3::/64",
		"not an address":            "not an address",
		"2001:db8:1:2:ffff:ffff::9": "2001:db8:1:2::/64",
	} {
		if got := addressKey(in); got != want {
			t.Errorf("addressKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzResumableHeaders sends a creation and a PATCH with whatever
// Upload-Length, Upload-Metadata and Upload-Offset, and a body: no
// answer is a 500, no upload is longer than its kind's limit, its data
// never passes its length, and the reserved sum never goes negative.
func FuzzResumableHeaders(f *testing.F) {
	for _, seed := range []struct {
		length, meta, offset string
		body                 []byte
	}{
		{"10", "filetype aW1hZ2UvanBlZw==", "0", []byte("0123456789")},
		{"9223372036854775707", "filetype aW1hZ2UvanBlZw==", "0", []byte("x")},
		{"9223372036854775807", "kind dmlkZW8=,poster eA==", "0", nil},
		{"-1", "", "-5", nil},
		{"20", "kind cG9zdGVy", "0", []byte("not a jpeg at all ..")},
		{"5", "filetype YXVkaW8vb2dn", "99999999999999999999", []byte("12345")},
		{"3", ",,, ", "0", []byte("abcdef")},
	} {
		f.Add(seed.length, seed.meta, seed.offset, seed.body)
	}
	f.Fuzz(func(t *testing.T, length, meta, offset string, body []byte) {
		dir := t.TempDir()
		c := &clock{t: time.Date(2026, 6, 20, 18, 0, 0, 0, time.UTC)}
		room := int64(64 << 20)
		s, h := testServer(t, dir, c, &room)
		res := send(h, "POST", "/api/e/party/uploads", nil, "X-Guest", "g", "Upload-Length", length, "Upload-Metadata", meta)
		if res.StatusCode >= 500 && res.StatusCode != http.StatusInsufficientStorage {
			t.Fatalf("creation answered %d", res.StatusCode)
		}
		if loc := res.Header.Get("Location"); loc != "" {
			p := send(h, "PATCH", loc, strings.NewReader(string(body)), "X-Guest", "g", "Content-Type", ContentType, "Upload-Offset", offset)
			if p.StatusCode >= 500 && p.StatusCode != http.StatusInsufficientStorage {
				t.Fatalf("PATCH answered %d", p.StatusCode)
			}
		}
		if r := s.idx.reserved(c.now().UnixMilli()); r < 0 || r > room {
			t.Fatalf("reserved %d of a room of %d", r, room)
		}
		for id, e := range s.idx.snapshot() {
			if e.length > s.maxLength(e.kind) || e.length < 1 || e.offset > e.length {
				t.Fatalf("upload %s: %d of %d bytes (%s)", id, e.offset, e.length, e.kind)
			}
			st, err := os.Stat(s.dataPath(id))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if err == nil && st.Size() > e.length {
				t.Fatalf("upload %s holds %d bytes of %d", id, st.Size(), e.length)
			}
		}
	})
}
