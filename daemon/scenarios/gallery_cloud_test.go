package scenarios_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/webdav"

	"eventbox/daemon/mail/mailtest"
	"eventbox/store"
)

// nextcloud is a cloud as Nextcloud documents it, enough for the box and
// for a guest at home: the user's files over WebDAV
// (/remote.php/dav/files/<user>/), the OCS share API
// (POST /ocs/v2.php/apps/files_sharing/api/v1/shares, OCS-APIRequest:
// true, shareType 3 = a public link, with password and expireDate;
// answered as {"ocs":{"meta":…,"data":{"token","url",…}}}), and the
// public links: /s/<token> for a browser, and the shared folder over
// WebDAV at /public.php/webdav/ signed in as the token with the link's
// password.
type nextcloud struct {
	t   *testing.T
	dir string
	srv *httptest.Server

	mu     sync.Mutex
	shares map[string]ncShare // token → share
}

type ncShare struct {
	path, password, expire string
}

const ncUser, ncPassword = "lia", "cloud-secret"

func newNextcloud(t *testing.T) *nextcloud {
	t.Helper()
	nc := &nextcloud{t: t, dir: t.TempDir(), shares: map[string]ncShare{}}
	files := &webdav.Handler{Prefix: "/remote.php/dav/files/" + ncUser, FileSystem: webdav.Dir(nc.dir), LockSystem: webdav.NewMemLS()}
	mux := http.NewServeMux()
	mux.HandleFunc("/remote.php/dav/files/"+ncUser+"/", func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != ncUser || p != ncPassword {
			w.Header().Set("WWW-Authenticate", `Basic realm="Nextcloud"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		files.ServeHTTP(w, r)
	})
	mux.HandleFunc("POST /ocs/v2.php/apps/files_sharing/api/v1/shares", nc.createShare)
	mux.HandleFunc("/public.php/webdav/", nc.public)
	nc.srv = httptest.NewServer(mux)
	t.Cleanup(nc.srv.Close)
	return nc
}

func (nc *nextcloud) settings(extra map[string]any) map[string]any {
	s := map[string]any{"url": nc.srv.URL + "/remote.php/dav/files/" + ncUser + "/", "user": ncUser, "password": ncPassword,
		"folder": "Fotos/eventbox"}
	for k, v := range extra {
		s[k] = v
	}
	return s
}

// ocs answers an OCS reply.
func ocs(w http.ResponseWriter, status int, code int, msg string, data any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	state := "ok"
	if code != 200 {
		state = "failure"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ocs": map[string]any{
		"meta": map[string]any{"status": state, "statuscode": code, "message": msg}, "data": data}})
}

func (nc *nextcloud) createShare(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("OCS-APIRequest") != "true" {
		http.Error(w, "CSRF check failed", http.StatusUnauthorized)
		return
	}
	if u, p, ok := r.BasicAuth(); !ok || u != ncUser || p != ncPassword {
		ocs(w, http.StatusUnauthorized, 997, "Current user is not logged in", []any{})
		return
	}
	if err := r.ParseForm(); err != nil || r.Form.Get("shareType") != "3" {
		ocs(w, http.StatusBadRequest, 400, "Unknown share type", []any{})
		return
	}
	p := r.Form.Get("path")
	if fi, err := os.Stat(filepath.Join(nc.dir, filepath.FromSlash(p))); err != nil || !fi.IsDir() {
		ocs(w, http.StatusNotFound, 404, "Wrong path, file/folder does not exist", []any{})
		return
	}
	if len(r.Form.Get("password")) < 10 {
		ocs(w, http.StatusBadRequest, 400, "Password is too short", []any{})
		return
	}
	if _, err := time.Parse("2006-01-02", r.Form.Get("expireDate")); err != nil {
		ocs(w, http.StatusBadRequest, 400, "Invalid date, date format must be YYYY-MM-DD", []any{})
		return
	}
	nc.mu.Lock()
	token := fmt.Sprintf("Tk%04dxQwErTy", len(nc.shares)+1)
	nc.shares[token] = ncShare{path: p, password: r.Form.Get("password"), expire: r.Form.Get("expireDate")}
	nc.mu.Unlock()
	ocs(w, http.StatusOK, 200, "OK", map[string]any{"id": "7", "share_type": 3, "token": token, "path": p,
		"url": "http://" + r.Host + "/s/" + token, "expiration": r.Form.Get("expireDate") + " 00:00:00", "permissions": 1})
}

// public serves a share, read only, to whoever has its token and password.
func (nc *nextcloud) public(w http.ResponseWriter, r *http.Request) {
	token, password, _ := r.BasicAuth()
	nc.mu.Lock()
	sh, ok := nc.shares[token]
	nc.mu.Unlock()
	if !ok || password != sh.password {
		w.Header().Set("WWW-Authenticate", `Basic realm="Nextcloud"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if r.Method != "GET" && r.Method != "PROPFIND" && r.Method != "HEAD" && r.Method != "OPTIONS" {
		http.Error(w, "read only", http.StatusForbidden)
		return
	}
	h := &webdav.Handler{Prefix: "/public.php/webdav", FileSystem: webdav.Dir(filepath.Join(nc.dir, filepath.FromSlash(sh.path))),
		LockSystem: webdav.NewMemLS()}
	h.ServeHTTP(w, r)
}

// TestGalleryMailLinkOpensFromHome: a box whose own address works only
// on its Wi-Fi (no public BASE_URL) ends an event; the guest's gallery
// mail waits for the cloud export, then carries a public link of the
// exported folder that the box made on the hosts' Nextcloud, and its
// password; a client at home, given only that link and that password,
// opens the photos, and a wrong password opens nothing.
func TestGalleryMailLinkOpensFromHome(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.StartTLS)
	h := newHarness(t, withMailServer(srv))
	nc := newNextcloud(t)
	owner := h.owner()
	setUpMail(t, owner, srv, nil)
	owner.do("PUT", "/api/admin/cloud", nc.settings(map[string]any{"autoExport": true})).expect(t, 200, "")
	ev := h.createEvent(owner, map[string]any{"name": "Festa di Lia", "eventDate": "2026-06-20", "accessCode": "lia-2026",
		"collectGuestEmails": true, "defaultLocale": "fr"})
	id, slug := ev["id"].(string), ev["slug"].(string)

	g := h.client()
	g.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "lia-2026"}).expect(t, 200, "")
	g.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Giulia"}).expect(t, 200, "")
	g.do("POST", "/api/e/"+slug+"/contact", map[string]any{"email": "giulia@casa.example", "locale": "it"}).expect(t, 200, "")
	for i := range 2 {
		uploadID(t, g, slug, 30+i, nil, "")
	}
	// A guest whose page sent no language: the browser's decides.
	pablo := h.client()
	pablo.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "lia-2026"}).expect(t, 200, "")
	pablo.do("POST", "/api/e/"+slug+"/contact", map[string]any{"email": "pablo@casa.example"}, "Accept-Language", "es-ES,es;q=0.9,en;q=0.5").expect(t, 200, "")

	plan := owner.do("GET", "/api/admin/events/"+id+"/guest-link", nil).expect(t, 200, "")
	if plan.JSON["link"] != "cloud" || plan.JSON["boxUrl"] != h.srv.URL {
		t.Fatalf("the end card's plan: %s", plan.Body)
	}
	owner.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 200, "")
	waitExport(t, owner, id, false)

	var guest, spanish mailtest.Received
	deadline := time.Now().Add(30 * time.Second)
	for guest.Data == nil || spanish.Data == nil {
		for _, rc := range srv.Received() {
			switch rc.To[0] {
			case "giulia@casa.example":
				guest = rc
			case "pablo@casa.example":
				spanish = rc
			}
		}
		if (guest.Data == nil || spanish.Data == nil) && time.Now().After(deadline) {
			dumpJobs(t, h)
			t.Fatalf("no gallery mail after the export; received %d mails", len(srv.Received()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if subject, _, _ := mailParts(t, spanish); subject != "Las fotos de Festa di Lia" {
		t.Errorf("subject %q: want the Spanish of the guest's browser", subject)
	}
	subject, text, _ := mailParts(t, guest)
	if subject != "Le foto di Festa di Lia" {
		t.Errorf("subject %q: want the guest's Italian", subject)
	}
	link := regexp.MustCompile(`https?://\S+/s/[A-Za-z0-9]+`).FindString(text)
	pw := regexp.MustCompile(`Password: (\S+)`).FindStringSubmatch(text)
	if link == "" || pw == nil {
		t.Fatalf("the mail lacks a share link or its password:\n%s", text)
	}
	if strings.Contains(text, h.srv.URL) || !strings.HasPrefix(link, nc.srv.URL+"/s/") {
		t.Fatalf("the mail's link %q is not the cloud's:\n%s", link, text)
	}

	// At home: only the link and the password; nothing of the box.
	base, token := link[:strings.Index(link, "/s/")], path.Base(link)
	home := &http.Client{Timeout: 10 * time.Second}
	open := func(method, name, password string) (int, string) {
		req, _ := http.NewRequest(method, base+"/public.php/webdav/"+name, nil)
		req.SetBasicAuth(token, password)
		if method == "PROPFIND" {
			req.Header.Set("Depth", "1")
		}
		resp, err := home.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, listing := open("PROPFIND", "", pw[1])
	if code != http.StatusMultiStatus || !strings.Contains(listing, "index.html") || strings.Count(listing, ".jpg") < 2 {
		t.Fatalf("the shared folder with the mail's password: %d\n%s", code, listing)
	}
	if code, page := open("GET", "index.html", pw[1]); code != 200 || !strings.Contains(page, "Festa di Lia") {
		t.Fatalf("index.html: %d\n%s", code, page)
	}
	if code, _ := open("PROPFIND", "", "lia-2026"); code != http.StatusUnauthorized {
		t.Errorf("another password opened the share: %d", code)
	}
}

// dumpJobs logs the mail jobs, to say why a mail did not come.
func dumpJobs(t *testing.T, h *harness) {
	page, _ := h.st.Jobs().List(t.Context(), store.JobFilter{Kind: store.MailJobKind, Limit: 100})
	for _, j := range page.Jobs {
		t.Logf("job %+v", j)
	}
}
