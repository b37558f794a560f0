package scenarios_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/webdav"

	"eventbox/store"
	davclient "eventbox/webdav"
)

// davServer is a real WebDAV server (golang.org/x/net/webdav) over a temp
// dir, behind basic auth, that counts what it is sent and can cut an
// upload in the middle.
type davServer struct {
	t   *testing.T
	dir string
	srv *httptest.Server

	mu    sync.Mutex
	moves map[string]int // final path → MOVEs onto it
	puts  int
	cutAt int64 // when > 0: the next PUT reads this many bytes, then its connection is cut
}

const (
	davUser     = "ana"
	davPassword = "webdav-secret"
)

func newDAVServer(t *testing.T) *davServer {
	t.Helper()
	d := &davServer{t: t, dir: t.TempDir(), moves: map[string]int{}}
	dav := &webdav.Handler{Prefix: "/dav", FileSystem: webdav.Dir(d.dir), LockSystem: webdav.NewMemLS()}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != davUser || p != davPassword {
			w.Header().Set("WWW-Authenticate", `Basic realm="dav"`)
			http.Error(w, "Username or password was incorrect", http.StatusUnauthorized)
			return
		}
		cut := false
		d.mu.Lock()
		switch r.Method {
		case "MOVE":
			dst := r.Header.Get("Destination")
			if i := strings.Index(dst, "/dav/"); i >= 0 {
				dst = dst[i+len("/dav/"):]
			}
			d.moves[dst]++
		case "PUT":
			d.puts++
			if d.cutAt > 0 {
				r.Body = io.NopCloser(io.LimitReader(r.Body, d.cutAt))
				d.cutAt, cut = 0, true
			}
		}
		d.mu.Unlock()
		dav.ServeHTTP(w, r)
		if cut {
			panic(http.ErrAbortHandler) // the connection drops mid-file
		}
	}))
	t.Cleanup(d.srv.Close)
	return d
}

func (d *davServer) url() string { return d.srv.URL + "/dav/" }

// files answers every file under the root by its slash path.
func (d *davServer) files() map[string][]byte {
	d.t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(d.dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(d.dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		d.t.Fatal(err)
	}
	return out
}

func (d *davServer) settings(extra map[string]any) map[string]any {
	s := map[string]any{"url": d.url(), "user": davUser, "password": davPassword, "folder": "Photos/eventbox"}
	for k, v := range extra {
		s[k] = v
	}
	return s
}

// waitExport polls the event's exports until the newest is done or failed
// (or, with retrying, has failed once and waits for its retry).
func waitExport(t *testing.T, c *client, eventID string, retrying bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := c.do("GET", "/api/admin/events/"+eventID+"/cloud", nil).expect(t, 200, "")
		list := r.JSON["exports"].([]any)
		if len(list) > 0 {
			x := list[0].(map[string]any)
			switch st := x["status"]; {
			case st == "done" || st == "failed":
				return x
			case retrying && st == "queued" && x["error"] != nil:
				return x
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("export not finished after 30 s: %s", r.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// notices answers the kinds of the notice jobs queued.
func notices(t *testing.T, h *harness) []store.Notice {
	t.Helper()
	page, err := h.st.Jobs().List(context.Background(), store.JobFilter{Kind: store.NoticeJobKind, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Notice
	for _, j := range page.Jobs {
		var n store.Notice
		if err := json.Unmarshal(j.Payload, &n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func hasNotice(ns []store.Notice, kind, eventID string) bool {
	for _, n := range ns {
		if n.Kind == kind && n.EventID == eventID {
			return true
		}
	}
	return false
}

func TestCloudSettings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dav := newDAVServer(t)
	owner := h.owner()

	r := owner.do("GET", "/api/admin/cloud", nil).expect(t, 200, "")
	if r.JSON["configured"] != false || r.JSON["hasPassword"] != false {
		t.Fatalf("fresh box: %s", r.Body)
	}
	owner.do("PUT", "/api/admin/cloud", map[string]any{"url": "ftp://nas", "password": "x"}).expect(t, 400, "bad_request")

	r = owner.do("PUT", "/api/admin/cloud", dav.settings(map[string]any{"autoExport": true})).expect(t, 200, "")
	for _, body := range [][]byte{r.Body, owner.do("GET", "/api/admin/cloud", nil).expect(t, 200, "").Body} {
		if bytes.Contains(body, []byte(davPassword)) || bytes.Contains(body, []byte(`"password"`)) {
			t.Fatalf("the password came back: %s", body)
		}
		var got map[string]any
		_ = json.Unmarshal(body, &got)
		if got["hasPassword"] != true || got["autoExport"] != true || got["folder"] != "Photos/eventbox" || got["user"] != davUser {
			t.Fatalf("settings answer: %s", body)
		}
	}
	// An empty password keeps the stored one.
	owner.do("PUT", "/api/admin/cloud", dav.settings(map[string]any{"password": ""})).expect(t, 200, "")
	if c, _, _ := h.st.Cloud().Settings(context.Background()); c.Password != davPassword {
		t.Fatalf("stored password %q, want the earlier one kept", c.Password)
	}

	t.Run("test reports the server's own words", func(t *testing.T) {
		cases := []struct {
			name     string
			body     map[string]any
			ok       bool
			contains string
		}{
			{"the stored password works", dav.settings(map[string]any{"password": ""}), true, ""},
			{"a wrong password is refused", dav.settings(map[string]any{"password": "wrong"}), false, "401 Unauthorized: Username or password was incorrect"},
			{"no server there", dav.settings(map[string]any{"url": "http://127.0.0.1:1/dav/"}), false, "cannot reach the server"},
			{"not a WebDAV server", dav.settings(map[string]any{"url": h.srv.URL + "/"}), false, "is this a WebDAV address?"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := owner.do("POST", "/api/admin/cloud/test", c.body).expect(t, 200, "")
				msg, _ := r.JSON["message"].(string)
				if r.JSON["ok"] != c.ok || !strings.Contains(msg, c.contains) {
					t.Fatalf("got %s, want ok=%v with %q", r.Body, c.ok, c.contains)
				}
			})
		}
		for name := range dav.files() {
			t.Errorf("the test left %s behind", name)
		}
	})

	owner.do("DELETE", "/api/admin/cloud", nil).expect(t, 200, "")
	if r := owner.do("GET", "/api/admin/cloud", nil).expect(t, 200, ""); r.JSON["configured"] != false {
		t.Fatalf("after DELETE: %s", r.Body)
	}
}

func TestCloudExport(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dav := newDAVServer(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Ana & Ben", "eventDate": "2026-06-20"})
	id, slug := ev["id"].(string), ev["slug"].(string)

	owner.do("POST", "/api/admin/events/"+id+"/cloud", map[string]any{"scope": "visible"}).expect(t, 400, "bad_request")
	owner.do("PUT", "/api/admin/cloud", dav.settings(nil)).expect(t, 200, "")
	owner.do("POST", "/api/admin/events/"+id+"/cloud", map[string]any{"scope": "all"}).expect(t, 400, "bad_request")

	g := h.guest(slug)
	g.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Zoé"}).expect(t, 200, "")
	var ids []string
	for i := range 4 {
		ids = append(ids, uploadID(t, g, slug, 10+i, nil, ""))
	}
	ogg, err := os.ReadFile("../../probe/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	g.postMessage(slug, "Congratulations!", ogg, "2").expect(t, 201, "")
	act := func(action string, ids ...string) {
		owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": action, "ids": ids}).expect(t, 200, "")
	}
	act("favorite", ids[0])
	act("hide", ids[3])
	originals := map[string][]byte{}
	for _, p := range ids {
		originals[p] = owner.do("GET", "/api/media/"+p+"?v=original", nil).expect(t, 200, "").Body
	}
	folder := "Photos/eventbox/2026-06-20 Ana-Ben/"

	// The first export is cut in the middle of its second file: the
	// connection drops, as when the server goes away.
	dav.mu.Lock()
	dav.cutAt = 100
	dav.mu.Unlock()
	r := owner.do("POST", "/api/admin/events/"+id+"/cloud", map[string]any{"scope": "visible"}).expect(t, 202, "")
	if x := r.JSON["export"].(map[string]any); x["status"] != "queued" || x["scope"] != "visible" {
		t.Fatalf("queued export: %s", r.Body)
	}
	x := waitExport(t, owner, id, true)
	if x["status"] != "queued" || !strings.Contains(x["error"].(string), "sending") {
		t.Fatalf("after the cut: %v", x)
	}
	for name := range dav.files() {
		if strings.HasPrefix(name, folder) && !strings.Contains(name, davclient.TempPrefix) && strings.HasSuffix(name, ".jpg") {
			base := filepath.Base(name)
			for p, b := range originals {
				if strings.Contains(base, p) && !bytes.Equal(dav.files()[name], b) {
					t.Fatalf("a partial file sits under its final name %s", name)
				}
			}
		}
	}
	// Its retry comes after the runner's backoff: a minute later, and
	// asking again for the same export nudges the runner rather than
	// queueing a second one.
	h.clock.Advance(2 * time.Minute)
	r = owner.do("POST", "/api/admin/events/"+id+"/cloud", map[string]any{"scope": "visible"}).expect(t, 202, "")
	if r.JSON["export"].(map[string]any)["id"] != x["id"] {
		t.Fatalf("a second export was queued beside the waiting one: %s", r.Body)
	}
	x = waitExport(t, owner, id, false)
	if x["status"] != "done" || x["error"] != nil || x["sent"] != x["total"] || x["total"] != float64(6) {
		t.Fatalf("export: %v", x)
	}

	files := dav.files()
	var names []string
	for name, b := range files {
		if strings.Contains(name, davclient.TempPrefix) {
			t.Errorf("temporary file left: %s", name)
		}
		if !strings.HasPrefix(name, folder) {
			t.Errorf("file outside the event's folder: %s", name)
		}
		names = append(names, strings.TrimPrefix(name, folder))
		for p, orig := range originals {
			if strings.HasSuffix(name, "-"+p+".jpg") {
				if p == ids[3] {
					t.Errorf("a hidden photo was exported: %s", name)
				}
				if !bytes.Equal(b, orig) {
					t.Errorf("%s differs from the original", name)
				}
			}
		}
	}
	// The HEIC's JPEG copy is checked by TestBlackBoxCloudExport: this
	// package runs with -race, under which the HEIC decoder crawls.
	if len(files) != 7 || files[folder+"manifest.json"] == nil {
		t.Errorf("files on the server: %v, want 3 photos, guestbook.txt, a voice note, index.html and manifest.json", names)
	}
	gb := files[folder+"guestbook.txt"]
	if !bytes.Contains(gb, []byte("Congratulations!")) || !bytes.Contains(gb, []byte("voice/")) {
		t.Errorf("guestbook.txt: %s", gb)
	}
	index := string(files[folder+"index.html"])
	for _, p := range ids[:3] {
		if !strings.Contains(index, p) {
			t.Errorf("index.html does not show %s", p)
		}
	}
	dav.mu.Lock()
	for name, n := range dav.moves {
		if n != 1 {
			t.Errorf("%s was sent %d times", name, n)
		}
	}
	dav.mu.Unlock()
	if !hasNotice(notices(t, h), store.NoticeExportFinished, id) {
		t.Errorf("no export.finished notice queued: %v", notices(t, h))
	}

	t.Run("a second export sends nothing again but its manifest", func(t *testing.T) {
		dav.mu.Lock()
		before := dav.puts
		dav.mu.Unlock()
		owner.do("POST", "/api/admin/events/"+id+"/cloud", map[string]any{"scope": "visible"}).expect(t, 202, "")
		x := waitExport(t, owner, id, false)
		dav.mu.Lock()
		defer dav.mu.Unlock()
		manifests := 0
		for name, n := range dav.moves {
			if strings.HasSuffix(name, "/manifest.json") {
				manifests += n
			}
		}
		if x["status"] != "done" || dav.puts != before+1 || manifests != 2 {
			t.Fatalf("export %v made %d uploads, want one: the new manifest (moves %v)", x, dav.puts-before, dav.moves)
		}
	})

	t.Run("favorites scope sends only favorites", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(dav.dir, "Photos")); err != nil {
			t.Fatal(err)
		}
		owner.do("POST", "/api/admin/events/"+id+"/cloud", map[string]any{"scope": "favorites"}).expect(t, 202, "")
		if x := waitExport(t, owner, id, false); x["status"] != "done" || x["scope"] != "favorites" {
			t.Fatalf("export: %v", x)
		}
		var photos []string
		for name := range dav.files() {
			if strings.HasSuffix(name, ".jpg") {
				photos = append(photos, name)
			}
		}
		if len(photos) != 1 || !strings.HasSuffix(photos[0], "-"+ids[0]+".jpg") {
			t.Fatalf("photos sent: %v, want only %s", photos, ids[0])
		}
	})

	t.Run("a refused password fails the export at once", func(t *testing.T) {
		owner.do("PUT", "/api/admin/cloud", dav.settings(map[string]any{"password": "changed"})).expect(t, 200, "")
		owner.do("POST", "/api/admin/events/"+id+"/cloud", map[string]any{"scope": "visible"}).expect(t, 202, "")
		x := waitExport(t, owner, id, false)
		if x["status"] != "failed" || !strings.Contains(x["error"].(string), "401") || x["finishedAt"] == nil {
			t.Fatalf("export: %v", x)
		}
		if !hasNotice(notices(t, h), store.NoticeExportFailed, id) {
			t.Errorf("no export.failed notice queued")
		}
	})
}

func TestCloudExportOnEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dav := newDAVServer(t)
	owner := h.owner()
	for _, auto := range []bool{false, true} {
		ev := h.createEvent(owner, map[string]any{"name": "Party"})
		id, slug := ev["id"].(string), ev["slug"].(string)
		uploadID(t, h.guest(slug), slug, 1, nil, "")
		owner.do("PUT", "/api/admin/cloud", dav.settings(map[string]any{"autoExport": auto})).expect(t, 200, "")
		r := owner.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 200, "")
		result := r.JSON["result"].(map[string]any)
		if result["exportQueued"] != auto {
			t.Fatalf("autoExport %v: result %v", auto, result)
		}
		if !auto {
			list := owner.do("GET", "/api/admin/events/"+id+"/cloud", nil).expect(t, 200, "").JSON["exports"].([]any)
			if len(list) != 0 {
				t.Fatalf("an export was queued without autoExport: %v", list)
			}
			continue
		}
		if x := waitExport(t, owner, id, false); x["status"] != "done" || x["sent"] != float64(2) {
			t.Fatalf("export at the end: %v", x)
		}
	}
}
