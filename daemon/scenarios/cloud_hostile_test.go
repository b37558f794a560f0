package scenarios_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/net/webdav"
)

// hostileDAV is a real WebDAV server (golang.org/x/net/webdav over a temp
// dir) in which one kind of request is answered by a hostile hook; it
// counts the bytes the hook could write.
type hostileDAV struct {
	srv     *httptest.Server
	written atomic.Int64
}

// hostileHook answers r instead of the WebDAV server when it returns true.
type hostileHook func(d *hostileDAV, w http.ResponseWriter, r *http.Request) bool

func newHostileDAV(t *testing.T, hook hostileHook) *hostileDAV {
	t.Helper()
	d := &hostileDAV{}
	dav := &webdav.Handler{Prefix: "/dav", FileSystem: webdav.Dir(t.TempDir()), LockSystem: webdav.NewMemLS()}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hook(d, w, r) {
			dav.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(d.srv.Close)
	return d
}

// flood writes chunk to w until n bytes were written or the client goes.
func (d *hostileDAV) flood(w http.ResponseWriter, chunk []byte, n int64) {
	bw := bufio.NewWriterSize(w, 64<<10)
	for d.written.Load() < n {
		k, err := bw.Write(chunk)
		d.written.Add(int64(k))
		if err != nil {
			return
		}
	}
	_ = bw.Flush()
}

const hostileFlood = 96 << 20

// bigGet answers the test file's read-back with hostileFlood bytes.
func bigGet(d *hostileDAV, w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	w.Header().Set("Content-Type", "text/plain")
	d.flood(w, []byte(strings.Repeat("eventbox can write here. ", 40)), hostileFlood)
	return true
}

// TestCloudTestReadsLittleOfAHostileServer: the settings test reads the
// test file back cut at its size (the listing's cut is
// webdav's TestListingIsCut); a longer answer fails the test with a
// message that says so, and the box stops reading soon after its cut.
func TestCloudTestReadsLittleOfAHostileServer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	for _, tc := range []struct {
		name     string
		hook     hostileHook
		contains string
	}{
		{"a read-back of 96 MiB", bigGet, "the server gave back other bytes than were written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newHostileDAV(t, tc.hook)
			r := owner.do("POST", "/api/admin/cloud/test", map[string]any{"url": d.srv.URL + "/dav/",
				"user": davUser, "password": davPassword, "folder": "Photos/eventbox"}).expect(t, 200, "")
			msg, _ := r.JSON["message"].(string)
			if r.JSON["ok"] != false || !strings.Contains(msg, tc.contains) {
				t.Fatalf("got %s, want a failure with %q", r.Body, tc.contains)
			}
			// The socket buffers let a few MiB more out than the box read.
			if n := d.written.Load(); n > 48<<20 {
				t.Errorf("the server wrote %d MiB before the box stopped reading", n>>20)
			}
		})
	}
}

// TestCloudTestFollowsNoRedirect: a WebDAV server that redirects (the
// read-back, or its very first answer) to an internal service makes the
// test fail saying so; the internal service is never asked and its answer
// never shown.
func TestCloudTestFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	var asked atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Error(w, "INTERNAL-SECRET-LINE token=s3cr3t", http.StatusForbidden)
	}))
	defer internal.Close()
	redirect := func(method string) hostileHook {
		return func(_ *hostileDAV, w http.ResponseWriter, r *http.Request) bool {
			if r.Method != method {
				return false
			}
			http.Redirect(w, r, internal.URL+"/admin", http.StatusFound)
			return true
		}
	}
	for _, tc := range []struct {
		name string
		hook hostileHook
	}{
		{"the read-back redirects", redirect(http.MethodGet)},
		{"the listing redirects", redirect("PROPFIND")},
		{"the folder's creation redirects", redirect("MKCOL")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newHostileDAV(t, tc.hook)
			r := owner.do("POST", "/api/admin/cloud/test", map[string]any{"url": d.srv.URL + "/dav/",
				"user": davUser, "password": davPassword, "folder": "Photos/eventbox"}).expect(t, 200, "")
			msg, _ := r.JSON["message"].(string)
			if r.JSON["ok"] != false || !strings.Contains(msg, "302 Found, a redirect") {
				t.Fatalf("got %s, want a failure saying the server redirected", r.Body)
			}
			if strings.Contains(string(r.Body), "INTERNAL-SECRET") {
				t.Fatalf("the internal service's answer leaked: %s", r.Body)
			}
			if n := asked.Load(); n != 0 {
				t.Fatalf("the internal service was asked %d times", n)
			}
		})
	}
}
