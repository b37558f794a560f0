package webdav

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestListingIsCut: a listing is read up to Config.MaxListing and fails
// past it, saying so, instead of being kept whole (gowebdav alone would
// keep every entry, and take a cut one for a whole one); a listing within
// the cap is read whole.
func TestListingIsCut(t *testing.T) {
	t.Parallel()
	const maxListing = 1 << 20
	entry := `<D:response><D:href>/dav/Photos/IMG_%07d.jpg</D:href><D:propstat><D:prop>` +
		`<D:getcontentlength>1048576</D:getcontentlength><D:resourcetype></D:resourcetype><D:getetag>"abc"</D:getetag>` +
		`</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`
	for _, tc := range []struct {
		name    string
		entries int // -1: endless (until the box goes, or 64 MiB)
		want    string
	}{
		{"an endless listing fails", -1, "listing Photos: the server's listing is larger than 1 MiB"},
		{"a listing just over the cap fails", maxListing/len(entry) + 10, "larger than 1 MiB"},
		{"a listing under the cap is whole", 1000, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var written atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != "PROPFIND" {
					http.Error(w, "no", http.StatusMethodNotAllowed)
					return
				}
				w.Header().Set("Content-Type", "application/xml; charset=utf-8")
				w.WriteHeader(http.StatusMultiStatus)
				bw := bufio.NewWriterSize(w, 64<<10)
				fmt.Fprint(bw, `<?xml version="1.0" encoding="UTF-8"?><D:multistatus xmlns:D="DAV:">`+
					`<D:response><D:href>/dav/Photos/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype>`+
					`</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`)
				for i := 0; (tc.entries < 0 && written.Load() < 64<<20) || i < tc.entries; i++ {
					n, err := fmt.Fprintf(bw, entry, i)
					written.Add(int64(n))
					if err != nil {
						return
					}
				}
				fmt.Fprint(bw, `</D:multistatus>`)
				_ = bw.Flush()
			}))
			defer srv.Close()
			r, err := New(context.Background(), Settings{URL: srv.URL + "/dav/", User: "ana", Password: "x"},
				Config{MaxListing: maxListing})
			if err != nil {
				t.Fatal(err)
			}
			files, ok, err := r.List("Photos")
			if tc.want == "" {
				if err != nil || !ok || len(files) != tc.entries {
					t.Fatalf("List: %d files, %v, %v; want %d", len(files), ok, err, tc.entries)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("List: %d files, %v; want an error with %q", len(files), err, tc.want)
			}
			if n := written.Load(); n > 16<<20 {
				t.Errorf("the server wrote %d MiB before the box stopped reading", n>>20)
			}
		})
	}
}
