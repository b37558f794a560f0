package scenarios_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestWebFilesGoOutGzipped: the pages' text files (page, code, styles,
// catalogue) go out gzipped to a browser that takes
// gzip, with their own ETag and Vary: Accept-Encoding; unpacked they are
// the very bytes a browser that does not take it gets; a revalidation of
// the gzipped ETag answers 304; images are sent as they are.
func TestWebFilesGoOutGzipped(t *testing.T) {
	h := newHarness(t)
	hc := h.client()
	c := rawGetter{t: t, do: func(req *http.Request) (*http.Response, error) { return hc.hc.Do(req) }, origin: hc.origin}
	for _, path := range []string{"/e/party", "/js/guest.js", "/app.css", "/locales/fr/guest.json", "/js/lib.js"} {
		t.Run(path, func(t *testing.T) {
			plain := c.get(path, "Accept-Encoding", "identity")
			zipped := c.get(path, "Accept-Encoding", "br, gzip;q=0.8")
			refused := c.get(path, "Accept-Encoding", "gzip;q=0")
			if plain.Status != 200 || zipped.Status != 200 || refused.Status != 200 {
				t.Fatalf("statuses %d, %d, %d", plain.Status, zipped.Status, refused.Status)
			}
			if zipped.Header.Get("Content-Encoding") != "gzip" || plain.Header.Get("Content-Encoding") != "" || refused.Header.Get("Content-Encoding") != "" {
				t.Fatalf("Content-Encoding: taken %q, identity %q, refused %q", zipped.Header.Get("Content-Encoding"), plain.Header.Get("Content-Encoding"), refused.Header.Get("Content-Encoding"))
			}
			if !strings.Contains(zipped.Header.Get("Vary"), "Accept-Encoding") || !strings.Contains(plain.Header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary: %q and %q, want Accept-Encoding on both", zipped.Header.Get("Vary"), plain.Header.Get("Vary"))
			}
			if zipped.Header.Get("ETag") == plain.Header.Get("ETag") {
				t.Errorf("the gzipped and plain answers share the ETag %s", plain.Header.Get("ETag"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(zipped.Body))
			if err != nil {
				t.Fatalf("the gzipped answer does not unpack: %v", err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, plain.Body) {
				t.Errorf("unpacked, the gzipped answer (%d bytes) differs from the plain one (%d bytes)", len(got), len(plain.Body))
			}
			// Code and styles shrink to under half; a small page at least shrinks.
			if len(zipped.Body) >= len(plain.Body) || (len(plain.Body) > 4096 && len(zipped.Body)*2 > len(plain.Body)) {
				t.Errorf("gzipped %d bytes for %d plain: want smaller, and at most half for a file over 4 KiB", len(zipped.Body), len(plain.Body))
			}
			again := c.get(path, "Accept-Encoding", "gzip", "If-None-Match", zipped.Header.Get("ETag"))
			if again.Status != http.StatusNotModified {
				t.Errorf("revalidating the gzipped ETag: status %d, want 304", again.Status)
			}
		})
	}
	img := c.get("/icon-192.png", "Accept-Encoding", "gzip")
	if img.Status != 200 || img.Header.Get("Content-Encoding") != "" {
		t.Errorf("an image: status %d, Content-Encoding %q; want it as it is", img.Status, img.Header.Get("Content-Encoding"))
	}
}

// rawGetter sends GETs with the headers given and keeps the answer's bytes
// as they came (no decoding of JSON or of gzip).
type rawGetter struct {
	t      *testing.T
	do     func(*http.Request) (*http.Response, error)
	origin string
}

func (g rawGetter) get(path string, headers ...string) response {
	g.t.Helper()
	req, err := http.NewRequest("GET", g.origin+path, nil)
	if err != nil {
		g.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := g.do(req)
	if err != nil {
		g.t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		g.t.Fatalf("reading %s: %v", path, err)
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: body}
}
