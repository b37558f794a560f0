package scenarios_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// albumEvent makes an event and has guests named in names upload one
// photo each, in that order, a minute apart; it returns the event and
// the photo ids in upload order.
func albumEvent(t *testing.T, h *harness, owner *client, fields map[string]any, names ...string) (map[string]any, []string) {
	t.Helper()
	ev := h.createEvent(owner, fields)
	slug := ev["slug"].(string)
	var ids []string
	for i, name := range names {
		g := h.guest(slug)
		g.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": name}).expect(t, 200, "")
		res := g.upload(slug, photoJPEG(t, 640, 480, 0, false, i), nil, "")
		if res.Status != 201 {
			t.Fatalf("upload %d: %d %s", i, res.Status, res.Body)
		}
		ids = append(ids, res.JSON["photo"].(map[string]any)["id"].(string))
		h.clock.Advance(time.Minute)
	}
	waitVariants(t, h)
	return ev, ids
}

// setPhotos changes photos in the store, as moderation would.
func setPhotos(t *testing.T, h *harness, eventID string, ids []string, fn func(*store.Photo)) {
	t.Helper()
	_, err := h.st.Photos().Update(context.Background(), eventID, ids, func(p *store.Photo) bool {
		fn(p)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
}

// needPoppler skips the test unless poppler-utils are installed (fails
// it under EVENTBOX_REQUIRE_ALL=1).
func needPoppler(t *testing.T) {
	t.Helper()
	testtool.Need(t, "poppler-utils", "pdfinfo", "pdftoppm", "pdftotext")
}

// poppler runs a poppler-utils tool on pdf with a 30 s limit.
func poppler(t *testing.T, pdf []byte, tool string, args ...string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "album.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, tool, append(args, path)...)
	if tool == "pdftotext" {
		cmd.Args = append(cmd.Args, "-")
	}
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s: %v: %s", tool, err, stderr.String())
	}
	return out
}

// pdfPageCount reads the page count with pdfinfo.
func pdfPageCount(t *testing.T, pdf []byte) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`).FindSubmatch(poppler(t, pdf, "pdfinfo"))
	if m == nil {
		t.Fatal("pdfinfo printed no page count")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// pageText is the text of one page, right-to-left marks removed.
func pageText(t *testing.T, pdf []byte, page int) string {
	p := strconv.Itoa(page)
	return strings.TrimSpace(string(poppler(t, pdf, "pdftotext", "-f", p, "-l", p)))
}

func TestAlbumRoute(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev, ids := albumEvent(t, h, owner, map[string]any{"name": "Anna & Marco", "eventDate": "2026-06-20"},
		"Ana", "Bo", "Cy", "Dee", "Eve")
	evID := ev["id"].(string)
	empty := h.createEvent(owner, map[string]any{"name": "Nothing yet"})["id"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
	// Eve's photo is hidden and Dee's waits for moderation (as if sent
	// while moderation was on): neither is in the album. Bo and Dee are
	// favorites.
	moderate := func(action string, ids ...string) {
		owner.do("POST", "/api/admin/events/"+evID+"/photos", map[string]any{"action": action, "ids": ids}).expect(t, 200, "")
	}
	moderate("hide", ids[4])
	moderate("favorite", ids[1], ids[3])
	setPhotos(t, h, evID, ids[3:4], func(p *store.Photo) { p.Status = store.StatusPending })

	organizer := h.organizer("olivia", evID)
	outsider := h.organizer("oscar", other)
	anonymous := h.client()
	album := func(id, query string) string { return "/api/admin/events/" + id + "/album" + query }

	tests := []struct {
		name    string
		c       *client
		path    string
		status  int
		code    string
		field   string // details key of a 400
		pages   int    // with poppler: cover + ceil(photos/layout)
		caption []string
	}{
		{"the owner gets one photo a page, oldest first", owner, album(evID, "?layout=1"), 200, "", "", 4, []string{"Ana", "Bo", "Cy"}},
		{"two a page is the default", owner, album(evID, ""), 200, "", "", 3, nil},
		{"two a page stacks them", owner, album(evID, "?layout=2&scope=visible"), 200, "", "", 3, []string{"Ana\n", "Cy"}},
		{"four a page fill one grid", owner, album(evID, "?layout=4"), 200, "", "", 2, nil},
		{"favorites leave out the photos that are not", owner, album(evID, "?layout=1&scope=favorites"), 200, "", "", 2, []string{"Bo"}},
		{"an organizer of the event gets it", organizer, album(evID, "?layout=4"), 200, "", "", 2, nil},
		{"an organizer of another event gets 404", outsider, album(evID, ""), 404, "not_found", "", 0, nil},
		{"without a session it is 401", anonymous, album(evID, ""), 401, "unauthorized", "", 0, nil},
		{"an event without photos is 404", owner, album(empty, ""), 404, "not_found", "", 0, nil},
		{"favorites when none is visible is 404", owner, album(other, "?scope=favorites"), 404, "not_found", "", 0, nil},
		{"an unknown event is 404", owner, album("AAAAAAAAAAAAAAAA", ""), 404, "not_found", "", 0, nil},
		{"three a page is refused naming layout", owner, album(evID, "?layout=3"), 400, "bad_request", "layout", 0, nil},
		{"an empty layout is refused naming layout", owner, album(evID, "?layout="), 400, "bad_request", "layout", 0, nil},
		{"scope all is refused naming scope", owner, album(evID, "?scope=all"), 400, "bad_request", "scope", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.c.do("GET", tc.path, nil).expect(t, tc.status, tc.code)
			if tc.field != "" {
				if _, ok := res.details()[tc.field]; !ok || len(res.details()) != 1 {
					t.Fatalf("details %v, want only %q", res.details(), tc.field)
				}
			}
			if tc.status != 200 {
				return
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/pdf" {
				t.Errorf("Content-Type %q", ct)
			}
			if _, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition")); err != nil || params["filename"] != "album-Anna-Marco.pdf" {
				t.Errorf("Content-Disposition %q, want the file name album-Anna-Marco.pdf", res.Header.Get("Content-Disposition"))
			}
			if !bytes.HasPrefix(res.Body, []byte("%PDF-1.4\n")) || !bytes.HasSuffix(res.Body, []byte("%%EOF\n")) {
				t.Fatalf("not a whole PDF: %d bytes", len(res.Body))
			}
			needPoppler(t)
			if got := pdfPageCount(t, res.Body); got != tc.pages {
				t.Errorf("pdfinfo counts %d pages, want %d", got, tc.pages)
			}
			if cover := pageText(t, res.Body, 1); !strings.Contains(cover, "Anna & Marco") || !strings.Contains(cover, "20 June 2026") {
				t.Errorf("cover reads %q", cover)
			}
			for i, want := range tc.caption {
				if got := pageText(t, res.Body, i+2) + "\n"; !strings.HasPrefix(got, want) {
					t.Errorf("page %d reads %q, want it to start with %q", i+2, got, want)
				}
			}
			for _, gone := range []string{"Dee", "Eve"} {
				if txt := string(poppler(t, res.Body, "pdftotext")); strings.Contains(txt, gone) {
					t.Errorf("%s's photo is in the album", gone)
				}
			}
		})
	}
}

func TestAlbumPhotoPageIsNotBlank(t *testing.T) {
	needPoppler(t)
	h := newHarness(t)
	owner := h.owner()
	ev, _ := albumEvent(t, h, owner, map[string]any{"name": "Party"}, "Ana")
	res := owner.do("GET", "/api/admin/events/"+ev["id"].(string)+"/album?layout=1", nil).expect(t, 200, "")
	png1 := poppler(t, res.Body, "pdftoppm", "-png", "-r", "30", "-f", "2", "-l", "2", "-singlefile")
	img, err := png.Decode(bytes.NewReader(png1))
	if err != nil {
		t.Fatal(err)
	}
	marked, total := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 < 230 || g>>8 < 230 || bl>>8 < 230 {
				marked++
			}
			total++
		}
	}
	// A 4:3 photo across the page's width covers about 40% of it.
	if share := float64(marked) / float64(total); share < 0.3 {
		t.Errorf("only %.0f%% of the photo page is drawn on", share*100)
	}
}

// blockingWriter is a ResponseWriter whose first Write signals started
// and then waits for release: an album caught in the middle.
type blockingWriter struct {
	header  http.Header
	started chan struct{}
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	body    bytes.Buffer
}

func newBlockingWriter() *blockingWriter {
	return &blockingWriter{header: http.Header{}, started: make(chan struct{}), release: make(chan struct{})}
}

func (b *blockingWriter) Header() http.Header { return b.header }
func (b *blockingWriter) WriteHeader(int)     {}
func (b *blockingWriter) Write(p []byte) (int, error) {
	b.once.Do(func() { close(b.started) })
	<-b.release
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.body.Write(p)
}

// serveBlocked runs an album request as c through the daemon's handler
// into w, in the background; done receives what the handler panicked
// with (nil if it returned).
func serveBlocked(t *testing.T, h *harness, c *client, ctx context.Context, path string, w http.ResponseWriter) <-chan any {
	t.Helper()
	req := httptest.NewRequestWithContext(ctx, "GET", h.srv.URL+path, nil)
	u, _ := url.Parse(h.srv.URL)
	for _, ck := range c.hc.Jar.Cookies(u) {
		req.AddCookie(ck)
	}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		h.srv.Config.Handler.ServeHTTP(w, req)
	}()
	return done
}

func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not happen within 30 s", what)
	}
	var zero T
	return zero
}

func TestOneAlbumAtATime(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev, _ := albumEvent(t, h, owner, map[string]any{"name": "Party"}, "Ana", "Bo")
	path := "/api/admin/events/" + ev["id"].(string) + "/album?layout=1"

	bw := newBlockingWriter()
	done := serveBlocked(t, h, owner, context.Background(), path, bw)
	waitFor(t, bw.started, "the first album's first write")

	res := h.owner().do("GET", path, nil).expect(t, 429, "rate_limited")
	if res.Header.Get("Retry-After") != "30" {
		t.Errorf("Retry-After %q, want 30", res.Header.Get("Retry-After"))
	}
	// Validation and scope still answer while an album is being made.
	owner.do("GET", path+"&scope=nope", nil).expect(t, 400, "bad_request")

	close(bw.release)
	if v := waitFor(t, done, "the first album"); v != nil {
		t.Fatalf("the first album panicked: %v", v)
	}
	if !bytes.HasSuffix(bw.body.Bytes(), []byte("%%EOF\n")) {
		t.Error("the first album did not finish")
	}
	owner.do("GET", path, nil).expect(t, 200, "")
}

func TestAlbumStopsWhenTheClientGoesAway(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	names := make([]string, 12)
	for i := range names {
		names[i] = fmt.Sprintf("Guest %d", i)
	}
	ev, _ := albumEvent(t, h, owner, map[string]any{"name": "Party"}, names...)
	path := "/api/admin/events/" + ev["id"].(string) + "/album?layout=1"
	full := owner.do("GET", path, nil).expect(t, 200, "")

	ctx, cancel := context.WithCancel(context.Background())
	bw := newBlockingWriter()
	done := serveBlocked(t, h, owner, ctx, path, bw)
	waitFor(t, bw.started, "the album's first write")
	cancel()
	close(bw.release)
	if v := waitFor(t, done, "the cancelled album"); v != http.ErrAbortHandler {
		t.Fatalf("the handler ended with %v, want the connection cut (http.ErrAbortHandler)", v)
	}
	if n := bw.body.Len(); n >= len(full.Body)/2 || bytes.Contains(bw.body.Bytes(), []byte("%%EOF")) {
		t.Errorf("%d of %d bytes written after the client left", n, len(full.Body))
	}
	// The slot is free again.
	owner.do("GET", path, nil).expect(t, 200, "")
}

func TestAlbumCoverShowsTheLogo(t *testing.T) {
	needPoppler(t)
	h := newHarness(t)
	owner := h.owner()
	ev, _ := albumEvent(t, h, owner, map[string]any{"name": "Party"}, "Ana")
	evID := ev["id"].(string)
	// A red square logo with a transparent border, put in place as the
	// logo area stores it.
	logo := image.NewNRGBA(image.Rect(0, 0, 300, 300))
	for y := 50; y < 250; y++ {
		for x := 50; x < 250; x++ {
			logo.Set(x, y, color.NRGBA{R: 255, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, logo); err != nil {
		t.Fatal(err)
	}
	if _, err := h.st.Media().Write(store.LogoName(evID, 1), &buf); err != nil {
		t.Fatal(err)
	}
	if _, err := h.st.Events().Update(context.Background(), evID, func(e *store.Event) error {
		e.LogoVersion = 1
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res := owner.do("GET", "/api/admin/events/"+evID+"/album", nil).expect(t, 200, "")
	cover, err := png.Decode(bytes.NewReader(poppler(t, res.Body, "pdftoppm", "-png", "-r", "30", "-f", "1", "-l", "1", "-singlefile")))
	if err != nil {
		t.Fatal(err)
	}
	red := 0
	b := cover.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, _, _ := cover.At(x, y).RGBA(); r>>8 > 200 && g>>8 < 80 {
				red++
			}
		}
	}
	if red < 1000 {
		t.Errorf("%d red pixels on the cover, want the logo's square", red)
	}
}
