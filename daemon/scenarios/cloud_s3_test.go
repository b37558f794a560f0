package scenarios_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/daemon/mail/mailtest"
	"eventbox/s3store/s3test"
	"eventbox/store"
)

// s3Body is the settings body of an S3-compatible bucket behind endpoint,
// with changes.
func s3Body(srv s3test.Server, endpoint string, changes map[string]any) map[string]any {
	s3 := map[string]any{"endpoint": endpoint, "region": srv.Region, "bucket": srv.Bucket, "prefix": "rentals",
		"boxName": "box-07", "accessKey": srv.AccessKey, "secret": srv.Secret, "pathStyle": true}
	for k, v := range changes {
		s3[k] = v
	}
	return map[string]any{"kind": "s3", "autoExport": true, "s3": s3}
}

// refusingProxy stands in front of srv and answers status to the requests
// of method itself.
func refusingProxy(t *testing.T, srv s3test.Server, method string, status int) string {
	t.Helper()
	u, _ := url.Parse(srv.Endpoint)
	rp := httputil.NewSingleHostReverseProxy(u)
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == method {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>no, says the proxy</Message></Error>`))
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p.URL
}

// TestCloudS3Settings: the Cloud screen's S3 settings through the real
// router: saved with their secret sealed and never answered, checked
// field by field, and tested in three steps (write, read back, delete),
// each reported; the end card's plan says which link the guests get.
func TestCloudS3Settings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	srv := s3test.Fake(t)

	r := owner.do("GET", "/api/admin/cloud", nil).expect(t, 200, "")
	if r.JSON["kind"] != "webdav" || r.JSON["boxName"] == "" {
		t.Fatalf("fresh box: %s", r.Body)
	}
	bad := owner.do("PUT", "/api/admin/cloud", s3Body(srv, "ftp://s3", map[string]any{"bucket": "No_Such", "accessKey": ""})).expect(t, 400, "bad_request")
	for _, field := range []string{"s3.endpoint", "s3.bucket", "s3.accessKey"} {
		if !bytes.Contains(bad.Body, []byte(`"`+field+`"`)) {
			t.Errorf("no detail for %s: %s", field, bad.Body)
		}
	}
	r = owner.do("PUT", "/api/admin/cloud", s3Body(srv, srv.Endpoint, nil)).expect(t, 200, "")
	for _, body := range [][]byte{r.Body, owner.do("GET", "/api/admin/cloud", nil).expect(t, 200, "").Body} {
		if bytes.Contains(body, []byte(srv.Secret)) {
			t.Fatalf("the secret came back: %s", body)
		}
		if !bytes.Contains(body, []byte(`"kind":"s3"`)) || !bytes.Contains(body, []byte(`"hasSecret":true`)) || !bytes.Contains(body, []byte(`"bucket":"parties"`)) {
			t.Fatalf("settings answer: %s", body)
		}
	}
	// An empty secret keeps the stored one.
	owner.do("PUT", "/api/admin/cloud", s3Body(srv, srv.Endpoint, map[string]any{"secret": ""})).expect(t, 200, "")
	if c, _, _ := h.st.Cloud().Settings(context.Background()); c.Target() != store.CloudS3 || c.S3.Secret != srv.Secret {
		t.Fatalf("stored %+v, want the secret kept", c.S3)
	}

	t.Run("the test's three steps", func(t *testing.T) {
		for _, c := range []struct {
			name     string
			endpoint string
			steps    []string
			words    string
		}{
			{"all pass", srv.Endpoint, []string{"ok", "ok", "ok"}, ""},
			{"the write is refused", refusingProxy(t, srv, http.MethodPut, 403), []string{"failed", "skipped", "skipped"}, "writing a test object: 403 Forbidden AccessDenied: no, says the proxy"},
			{"the read back is refused", refusingProxy(t, srv, http.MethodGet, 403), []string{"ok", "failed", "skipped"}, "reading the test object back: 403"},
			{"the delete is refused", refusingProxy(t, srv, http.MethodDelete, 403), []string{"ok", "ok", "failed"}, "removing the test object: 403"},
			{"no server there", "http://127.0.0.1:1", []string{"failed", "skipped", "skipped"}, "cannot reach the server"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := owner.do("POST", "/api/admin/cloud/test", s3Body(srv, c.endpoint, map[string]any{"secret": ""})).expect(t, 200, "")
				var steps []string
				list, _ := r.JSON["steps"].([]any)
				for i, s := range list {
					m := s.(map[string]any)
					if m["step"] != []string{"write", "read", "delete"}[i] {
						t.Errorf("step %d is %v", i, m["step"])
					}
					steps = append(steps, m["result"].(string))
				}
				msg, _ := r.JSON["message"].(string)
				if !slices.Equal(steps, c.steps) || r.JSON["ok"] != (c.words == "") || !strings.Contains(msg, c.words) {
					t.Fatalf("got %s, want steps %v and %q", r.Body, c.steps, c.words)
				}
			})
		}
		objects, err := s3test.Objects(t.Context(), srv, "")
		if err != nil {
			t.Fatal(err)
		}
		for k := range objects {
			if !strings.HasPrefix(k, "rentals/box-07/") {
				t.Errorf("the test wrote %s outside <prefix>/<box name>/", k)
			}
		}
	})

	t.Run("the guests' link", func(t *testing.T) {
		ev := h.createEvent(owner, map[string]any{"name": "Ana & Ben", "eventDate": "2026-06-20"})
		for _, c := range []struct{ public, want string }{{"", "presigned"}, {"https://photos.example.org/rentals", "public"}} {
			owner.do("PUT", "/api/admin/cloud", s3Body(srv, srv.Endpoint, map[string]any{"secret": "", "publicUrl": c.public})).expect(t, 200, "")
			r := owner.do("GET", "/api/admin/events/"+ev["id"].(string)+"/guest-link", nil).expect(t, 200, "")
			if r.JSON["link"] != c.want {
				t.Errorf("public %q: link %v, want %s", c.public, r.JSON["link"], c.want)
			}
		}
	})
}

// offlineTransport fails every request while offline is set, as a box
// with no uplink does, and sends them through http.DefaultTransport once
// it is back.
type offlineTransport struct{ offline atomic.Bool }

func (o *offlineTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if o.offline.Load() {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: network is unreachable")}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestCloudS3ExportOnEndWhileOffline: with automatic export, ending an
// event queues its export to the bucket; the box is offline, so the export
// waits for a retry saying so; once the box is online again it goes, and
// the bucket holds the event under <prefix>/<box name>/ with every photo
// and the manifest, each file as the manifest says.
func TestCloudS3ExportOnEndWhileOffline(t *testing.T) {
	t.Parallel()
	uplink := &offlineTransport{}
	h := newHarness(t, func(c *daemon.Config) { c.CloudTransport = uplink })
	owner := h.owner()
	srv := s3test.Fake(t)
	ev := h.createEvent(owner, map[string]any{"name": "Ana & Ben", "eventDate": "2026-06-20"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	uploadID(t, h.guest(slug), slug, 1, nil, "")
	uploadID(t, h.guest(slug), slug, 2, nil, "")
	owner.do("PUT", "/api/admin/cloud", s3Body(srv, srv.Endpoint, nil)).expect(t, 200, "")

	uplink.offline.Store(true)
	r := owner.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 200, "")
	if r.JSON["result"].(map[string]any)["exportQueued"] != true {
		t.Fatalf("end: %s", r.Body)
	}
	x := waitExport(t, owner, id, true)
	if x["status"] != "queued" || !strings.Contains(x["error"].(string), "network is unreachable") {
		t.Fatalf("offline: %v", x)
	}
	uplink.offline.Store(false)
	h.clock.Advance(2 * time.Minute)
	owner.do("POST", "/api/admin/events/"+id+"/cloud", map[string]any{"scope": "visible"}).expect(t, 202, "")
	x = waitExport(t, owner, id, false)
	folder := "rentals/box-07/2026-06-20 Ana-Ben"
	if x["status"] != "done" || x["error"] != nil || x["folder"] != folder || x["sent"] != x["total"] {
		t.Fatalf("online: %v", x)
	}
	objects, err := s3test.Objects(t.Context(), srv, "rentals/")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Box   string `json:"box"`
		Files []struct {
			Path   string `json:"path"`
			Size   int    `json:"size"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if err := json.Unmarshal(objects[folder+"/manifest.json"], &m); err != nil || m.Box != "box-07" {
		t.Fatalf("manifest %s: %v", objects[folder+"/manifest.json"], err)
	}
	photos := 0
	for _, f := range m.Files {
		b, ok := objects[folder+"/"+f.Path]
		sum := sha256.Sum256(b)
		if !ok || len(b) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Errorf("%s: in the bucket %v, %d bytes; the manifest says %d bytes %s", f.Path, ok, len(b), f.Size, f.SHA256)
		}
		if strings.HasSuffix(f.Path, ".jpg") {
			photos++
		}
	}
	if photos != 2 || len(objects) != len(m.Files)+1 {
		t.Errorf("%d photos in the manifest, %d objects for %d files and the manifest", photos, len(objects), len(m.Files))
	}
}

// TestGalleryMailLinkFromTheBucket: a box whose own address works only on
// its Wi-Fi ends an event exported to a bucket without a public address;
// the guest's gallery mail waits for the export, then carries the
// presigned link of the export's page, with no password; at home that
// link opens the page, and each photo on it opens without keys.
func TestGalleryMailLinkFromTheBucket(t *testing.T) {
	t.Parallel()
	mails := mailtest.Start(t, mailtest.StartTLS)
	h := newHarness(t, withMailServer(mails))
	srv := s3test.Fake(t)
	owner := h.owner()
	setUpMail(t, owner, mails, nil)
	owner.do("PUT", "/api/admin/cloud", s3Body(srv, srv.Endpoint, nil)).expect(t, 200, "")
	ev := h.createEvent(owner, map[string]any{"name": "Festa di Lia", "eventDate": "2026-06-20", "collectGuestEmails": true})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	g.do("POST", "/api/e/"+slug+"/contact", map[string]any{"email": "giulia@casa.example", "locale": "en"}).expect(t, 200, "")
	for i := range 2 {
		uploadID(t, g, slug, 40+i, nil, "")
	}
	if plan := owner.do("GET", "/api/admin/events/"+id+"/guest-link", nil).expect(t, 200, ""); plan.JSON["link"] != "presigned" {
		t.Fatalf("the end card's plan: %s", plan.Body)
	}
	owner.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 200, "")
	waitExport(t, owner, id, false)

	var mail mailtest.Received
	deadline := time.Now().Add(30 * time.Second)
	for mail.Data == nil {
		for _, rc := range mails.Received() {
			if rc.To[0] == "giulia@casa.example" {
				mail = rc
			}
		}
		if mail.Data == nil && time.Now().After(deadline) {
			dumpJobs(t, h)
			t.Fatalf("no gallery mail after the export; received %d mails", len(mails.Received()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, text, _ := mailParts(t, mail)
	link := regexp.MustCompile(`https?://\S+guests\.html\?\S+`).FindString(text)
	if link == "" || !strings.HasPrefix(link, srv.Endpoint+"/parties/rentals/box-07/") || !strings.Contains(link, "X-Amz-Expires=604800") {
		t.Fatalf("the mail's link %q is not the bucket's presigned page:\n%s", link, text)
	}
	if strings.Contains(text, h.srv.URL) || strings.Contains(text, "Password:") {
		t.Errorf("the mail carries the box's address or a password:\n%s", text)
	}
	page := homeGet(t, link)
	srcs := regexp.MustCompile(`<img src="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(srcs) != 2 {
		t.Fatalf("%d photos on the page:\n%s", len(srcs), page)
	}
	for _, m := range srcs {
		if b := homeGet(t, html.UnescapeString(m[1])); !strings.HasPrefix(b, "\xff\xd8") {
			t.Errorf("a photo's link answered no JPEG: %q…", b[:min(len(b), 20)])
		}
	}
}

// homeGet answers the body of a GET from home: no cookie, no key.
func homeGet(t *testing.T, u string) string {
	t.Helper()
	res, err := (&http.Client{Timeout: 10 * time.Second}).Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %s", u, res.Status)
	}
	return string(b)
}
