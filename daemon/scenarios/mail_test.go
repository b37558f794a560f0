package scenarios_test

import (
	"context"
	"encoding/csv"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/daemon/mail/mailtest"
	"eventbox/store"
)

// withMailServer trusts srv's test certificate.
func withMailServer(srv *mailtest.Server) func(*daemon.Config) {
	return func(c *daemon.Config) { c.MailTLS = srv.ClientTLS }
}

// waitMailsTried waits until n mails are queued, each with a failed
// attempt and none being tried: the queue's runner works on its own, so
// after that nothing goes out before the clock reaches their next try or
// a retry wakes them.
func waitMailsTried(t *testing.T, h *harness, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tried, busy := 0, 0
		for _, st := range []store.JobStatus{store.JobQueued, store.JobRunning, store.JobFailed} {
			page, err := h.st.Jobs().List(context.Background(), store.JobFilter{Kind: store.MailJobKind, Status: st, Limit: 500})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range page.Jobs {
				switch {
				case st == store.JobRunning:
					busy++
				case j.Failures > 0:
					tried++
				}
			}
		}
		if tried == n && busy == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s, %d of %d mails had a failed attempt and %d were being tried", tried, n, busy)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// setUpMail points the box at srv through the mail route.
func setUpMail(t *testing.T, owner *client, srv *mailtest.Server, extra map[string]any) response {
	t.Helper()
	body := map[string]any{
		"smtp": map[string]any{"host": srv.Host, "port": srv.Port, "username": mailtest.Username, "password": mailtest.Password,
			"from": "Notre fête <box@party.example>", "security": srv.Security},
		"adminEmail": "hosts@party.example",
	}
	for k, v := range extra {
		body[k] = v
	}
	return owner.do("PUT", "/api/admin/mail", body).expect(t, 200, "")
}

// mailParts reads the plain and HTML parts of a received mail, inside
// multipart/related when it carries pictures.
func mailParts(t *testing.T, rc mailtest.Received) (subject, text, html string) {
	t.Helper()
	m := rc.Message(t)
	subject, _ = new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	var walk func(ct string, body io.Reader)
	walk = func(ct string, body io.Reader) {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(mt, "multipart/") {
			return
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pct := p.Header.Get("Content-Type")
			switch {
			case strings.HasPrefix(pct, "multipart/"):
				walk(pct, p)
			case strings.HasPrefix(pct, "text/html"):
				b, _ := io.ReadAll(p)
				html = string(b)
			case strings.HasPrefix(pct, "text/plain"):
				b, _ := io.ReadAll(p)
				text = string(b)
			}
		}
	}
	walk(m.Header.Get("Content-Type"), m.Body)
	return subject, text, html
}

func TestMailSettingsRoutes(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.StartTLS)
	h := newHarness(t, withMailServer(srv))
	owner := h.owner()
	org := h.organizer("org")

	for _, c := range []struct{ method, path string }{
		{"GET", "/api/admin/mail"}, {"PUT", "/api/admin/mail"}, {"POST", "/api/admin/mail/test"}, {"POST", "/api/admin/mail/retry"},
	} {
		t.Run("an organizer gets 403 from "+c.method+" "+c.path, func(t *testing.T) {
			org.do(c.method, c.path, map[string]any{}).expect(t, 403, "forbidden")
		})
	}
	t.Run("a fresh box has no mail settings and an empty queue", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/mail", nil).expect(t, 200, "")
		sm := r.JSON["smtp"].(map[string]any)
		q := r.JSON["queue"].(map[string]any)
		if sm["host"] != "" || sm["hasPassword"] != false || q["pending"] != float64(0) || q["failed"] != float64(0) || len(q["items"].([]any)) != 0 {
			t.Fatalf("answer %v", r.JSON)
		}
	})
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"an unknown security is refused", map[string]any{"smtp": map[string]any{"host": "smtp.x", "from": "a@x.example", "security": "ssl"}}, "smtp.security"},
		{"a server without a sender is refused", map[string]any{"smtp": map[string]any{"host": "smtp.x"}}, "smtp.from"},
		{"a host with a scheme is refused", map[string]any{"smtp": map[string]any{"host": "smtp://x", "from": "a@x.example"}}, "smtp.host"},
		{"a port out of range is refused", map[string]any{"smtp": map[string]any{"host": "x", "from": "a@x.example", "port": 70000}}, "smtp.port"},
		{"a bad admin address is refused", map[string]any{"adminEmail": "not mail"}, "adminEmail"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := owner.do("PUT", "/api/admin/mail", c.body).expect(t, 400, "bad_request")
			if _, ok := r.details()[c.field]; !ok {
				t.Fatalf("details %v lack %s", r.details(), c.field)
			}
		})
	}
	t.Run("saving answers the settings with hasPassword and never the password", func(t *testing.T) {
		r := setUpMail(t, owner, srv, map[string]any{"alerts": map[string]any{"storageLow": true, "exportFailed": false, "backupFailed": true}})
		if strings.Contains(string(r.Body), mailtest.Password) || strings.Contains(string(r.Body), `"password"`) {
			t.Fatalf("the answer holds the password: %s", r.Body)
		}
		sm := r.JSON["smtp"].(map[string]any)
		if sm["hasPassword"] != true || sm["security"] != "starttls" || r.JSON["adminEmail"] != "hosts@party.example" {
			t.Fatalf("answer %v", r.JSON)
		}
		if a := r.JSON["alerts"].(map[string]any); a["storageLow"] != true || a["exportFailed"] != false || a["backupFailed"] != true {
			t.Fatalf("alerts %v", a)
		}
	})
	t.Run("a save without a password keeps it; null removes it", func(t *testing.T) {
		sm := map[string]any{"host": srv.Host, "port": srv.Port, "username": mailtest.Username, "from": "box@party.example", "security": srv.Security}
		r := owner.do("PUT", "/api/admin/mail", map[string]any{"smtp": sm}).expect(t, 200, "")
		if r.JSON["smtp"].(map[string]any)["hasPassword"] != true {
			t.Fatal("the password went with a save that did not name it")
		}
		sm["password"] = nil
		r = owner.do("PUT", "/api/admin/mail", map[string]any{"smtp": sm}).expect(t, 200, "")
		if r.JSON["smtp"].(map[string]any)["hasPassword"] != false {
			t.Fatal("null did not remove the password")
		}
		setUpMail(t, owner, srv, nil)
	})
	t.Run("the test mail goes to the admin address over STARTTLS", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/mail/test", map[string]any{}).expect(t, 200, "")
		if r.JSON["ok"] != true || r.JSON["to"] != "hosts@party.example" {
			t.Fatalf("answer %v", r.JSON)
		}
		got := srv.Received()
		if len(got) != 1 || got[0].To[0] != "hosts@party.example" {
			t.Fatalf("received %+v", got)
		}
	})
	t.Run("a refused test answers 502 smtp_failed with the server's answer", func(t *testing.T) {
		srv.Reject("gone@party.example", 550)
		r := owner.do("POST", "/api/admin/mail/test", map[string]any{"to": "gone@party.example"}).expect(t, 502, "smtp_failed")
		if msg, _ := r.JSON["message"].(string); !strings.Contains(msg, "550 5.1.1 No such user here") {
			t.Fatalf("message %q", msg)
		}
	})
	t.Run("a wrong password answers 502 with the server's refusal", func(t *testing.T) {
		sm := map[string]any{"host": srv.Host, "port": srv.Port, "username": mailtest.Username, "password": "wrong-one",
			"from": "box@party.example", "security": srv.Security}
		owner.do("PUT", "/api/admin/mail", map[string]any{"smtp": sm}).expect(t, 200, "")
		r := owner.do("POST", "/api/admin/mail/test", map[string]any{}).expect(t, 502, "smtp_failed")
		if msg, _ := r.JSON["message"].(string); !strings.Contains(msg, "535") {
			t.Fatalf("message %q", msg)
		}
		setUpMail(t, owner, srv, nil)
	})
}

func TestEndingAnEventMailsGuestsAndHosts(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.TLS)
	// The box is published at an address guests reach from home: its own
	// link goes in their mails (TestGalleryMailLinkOpensFromHome has the
	// box that is not).
	const public = "https://photos.party-box.example.org"
	h := newHarness(t, withMailServer(srv), func(c *daemon.Config) { c.BaseURL = public })
	owner := h.owner()
	setUpMail(t, owner, srv, nil)
	// The party runs offline: nothing reaches the mail server.
	srv.SetOffline(true)

	ev := h.createEvent(owner, map[string]any{"name": "Festa d'estate", "accessCode": "sunny-day", "collectGuestEmails": true,
		"galleryMailIncludesPassword": true, "defaultLocale": "it"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	quiet := h.createEvent(owner, map[string]any{"name": "Quiet", "collectGuestEmails": true, "defaultLocale": "es"})

	guests := map[string]*client{}
	for _, c := range []struct{ name, email string }{{"Giulia", "giulia@guest.example"}, {"", "anon@guest.example"}} {
		g := h.client()
		g.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "sunny-day"}).expect(t, 200, "")
		if c.name != "" {
			g.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": c.name}).expect(t, 200, "")
		}
		g.do("POST", "/api/e/"+slug+"/contact", map[string]any{"email": c.email}).expect(t, 200, "")
		guests[c.email] = g
	}
	qg := h.guest(quiet["slug"].(string))
	qg.do("POST", "/api/e/"+quiet["slug"].(string)+"/contact", map[string]any{"email": "quiet@guest.example"}).expect(t, 200, "")
	// A code, and a link password the hosts keep to themselves.
	secret := h.createEvent(owner, map[string]any{"name": "Secret", "accessCode": "hush-hush", "collectGuestEmails": true, "galleryMailIncludesPassword": false})
	sg := h.client()
	sg.do("POST", "/api/e/"+secret["slug"].(string)+"/unlock", map[string]any{"code": "hush-hush"}).expect(t, 200, "")
	sg.do("POST", "/api/e/"+secret["slug"].(string)+"/contact", map[string]any{"email": "secret@guest.example"}).expect(t, 200, "")

	var shareURL, password string
	t.Run("the end queues a mail per guest and the summary, and says so", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 200, "")
		res := r.JSON["result"].(map[string]any)
		if res["guestEmails"] != float64(2) || res["summaryQueued"] != true {
			t.Fatalf("result %v", res)
		}
		share := res["share"].(map[string]any)
		if share["hasPassword"] != true || res["sharePassword"] == nil {
			t.Fatalf("the link of an event with a code has no password: %v", res)
		}
		shareURL, password = res["shareUrl"].(string), res["sharePassword"].(string)
		g := h.client()
		g.do("POST", strings.Replace(shareURL, public+"/g/", "/api/g/", 1)+"/unlock", map[string]any{"password": password}).expect(t, 200, "")
	})
	t.Run("the end of an event without a code makes an open link", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/events/"+quiet["id"].(string)+"/end", nil).expect(t, 200, "")
		res := r.JSON["result"].(map[string]any)
		if res["guestEmails"] != float64(1) || res["sharePassword"] != nil || res["share"].(map[string]any)["hasPassword"] != false {
			t.Fatalf("result %v", res)
		}
	})
	var secretPassword string
	t.Run("the link of an event with a code gets a password the guests' mail leaves out", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/events/"+secret["id"].(string)+"/end", nil).expect(t, 200, "")
		res := r.JSON["result"].(map[string]any)
		if res["guestEmails"] != float64(1) || res["sharePassword"] == nil {
			t.Fatalf("result %v", res)
		}
		secretPassword = res["sharePassword"].(string)
	})
	t.Run("while offline, the guest page shows the link and a pending mail", func(t *testing.T) {
		r := guests["giulia@guest.example"].do("GET", "/api/e/"+slug, nil).expect(t, 200, "")
		gal, _ := r.JSON["guest"].(map[string]any)["gallery"].(map[string]any)
		if gal == nil || gal["url"] != shareURL || gal["mail"] != "pending" || gal["needsPassword"] != true {
			t.Fatalf("guest %v", r.JSON["guest"])
		}
	})
	t.Run("the hosts see the addresses and export them", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/events/"+id+"/contacts", nil).expect(t, 200, "")
		cs := r.JSON["contacts"].([]any)
		byEmail := map[string]map[string]any{}
		for _, c := range cs {
			byEmail[c.(map[string]any)["email"].(string)] = c.(map[string]any)
		}
		if g := byEmail["giulia@guest.example"]; len(cs) != 2 || g == nil || g["name"] != "Giulia" || g["mail"] != "pending" || byEmail["anon@guest.example"] == nil {
			t.Fatalf("contacts %v", cs)
		}
		req, _ := http.NewRequest("GET", h.srv.URL+"/api/admin/events/"+id+"/contacts?format=csv", nil)
		resp, err := owner.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		rows, err := csv.NewReader(resp.Body).ReadAll()
		if err != nil || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
			t.Fatalf("csv: %v %s", err, resp.Header.Get("Content-Type"))
		}
		if len(rows) != 3 || rows[0][1] != "email" || !strings.Contains(rows[1][1]+rows[2][1], "giulia@guest.example") || !strings.Contains(rows[1][0]+rows[2][0], "Giulia") {
			t.Fatalf("rows %v", rows)
		}
		h.organizer("outsider").do("GET", "/api/admin/events/"+id+"/contacts", nil).expect(t, 404, "not_found")
	})
	t.Run("the mail queue lists them pending", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/mail", nil).expect(t, 200, "")
		q := r.JSON["queue"].(map[string]any)
		if q["pending"] != float64(7) || len(q["items"].([]any)) != 7 {
			t.Fatalf("queue %v", q)
		}
	})
	t.Run("back online, retry sends each mail once", func(t *testing.T) {
		// Each mail has had its attempt while offline, and none is under
		// way: an attempt still to come would otherwise go out by itself
		// once the server is back, before the retry lists the queue.
		waitMailsTried(t, h, 7)
		srv.SetOffline(false)
		r := owner.do("POST", "/api/admin/mail/retry", nil).expect(t, 200, "")
		if r.JSON["requeued"] != float64(0) || r.JSON["sent"] != float64(7) || r.JSON["failed"] != float64(0) {
			t.Fatalf("retry %v", r.JSON)
		}
		got := srv.Received()
		if len(got) != 7 {
			t.Fatalf("%d mails arrived, want 7 (2 + 1 + 1 guests, 3 summaries)", len(got))
		}
		ids := map[string]bool{}
		byTo := map[string]mailtest.Received{}
		for _, rc := range got {
			if ids[rc.MessageID()] {
				t.Errorf("Message-ID %s arrived twice", rc.MessageID())
			}
			ids[rc.MessageID()] = true
			// The hosts get three summaries: keep the Italian party's.
			if subject, _, _ := mailParts(t, rc); rc.To[0] != "hosts@party.example" || strings.HasPrefix(subject, "Riepilogo") {
				byTo[rc.To[0]] = rc
			}
		}
		subject, text, html := mailParts(t, byTo["giulia@guest.example"])
		for _, body := range []string{text, html} {
			for _, want := range []string{shareURL, password, "Ciao Giulia", "galleria"} {
				if !strings.Contains(body, want) {
					t.Errorf("Giulia's mail lacks %q:\n%s", want, body)
				}
			}
		}
		if subject != "Le foto di Festa d'estate" {
			t.Errorf("subject %q", subject)
		}
		if byTo["giulia@guest.example"].Message(t).Header.Get("List-Unsubscribe") == "" {
			t.Error("a guest's mail lacks List-Unsubscribe")
		}
		_, text, _ = mailParts(t, byTo["quiet@guest.example"])
		if !strings.Contains(text, "Hola:") || strings.Contains(text, "Contraseña") {
			t.Errorf("the quiet event's mail:\n%s", text)
		}
		_, text, html = mailParts(t, byTo["secret@guest.example"])
		for _, body := range []string{text, html} {
			if strings.Contains(body, secretPassword) || !strings.Contains(body, "asks for a password") {
				t.Errorf("the mail of a link whose password the hosts keep:\n%s", body)
			}
		}
		for _, rc := range got {
			if subject, text, _ := mailParts(t, rc); subject == "Summary of Secret" && !strings.Contains(text, secretPassword) {
				t.Errorf("the hosts' summary lacks the link's password:\n%s", text)
			}
		}
		subject, text, _ = mailParts(t, byTo["hosts@party.example"])
		if !strings.HasPrefix(subject, "Riepilogo di ") || !strings.Contains(text, "2 ospiti riceveranno") {
			t.Errorf("summary %q:\n%s", subject, text)
		}
	})
	t.Run("the guest page then says the mail went", func(t *testing.T) {
		r := guests["anon@guest.example"].do("GET", "/api/e/"+slug, nil).expect(t, 200, "")
		if gal := r.JSON["guest"].(map[string]any)["gallery"].(map[string]any); gal["mail"] != "sent" {
			t.Fatalf("gallery %v", gal)
		}
		r = owner.do("GET", "/api/admin/mail", nil).expect(t, 200, "")
		q := r.JSON["queue"].(map[string]any)
		if q["pending"] != float64(0) || q["items"].([]any)[0].(map[string]any)["status"] != "sent" {
			t.Fatalf("queue %v", q)
		}
	})
}

func TestRetryRequeuesRefusedMails(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.None)
	h := newHarness(t, withMailServer(srv))
	owner := h.owner()
	setUpMail(t, owner, srv, nil)
	srv.Reject("sam@example.com", 550)
	r := owner.do("POST", "/api/admin/invitations", map[string]any{"email": "sam@example.com", "role": "owner", "eventIds": []string{}}).expect(t, 201, "")
	if r.JSON["emailed"] != true {
		t.Fatalf("emailed %v with mail set up", r.JSON["emailed"])
	}
	r = owner.do("POST", "/api/admin/mail/retry", nil).expect(t, 200, "")
	if r.JSON["sent"] != float64(0) || r.JSON["failed"] != float64(1) {
		t.Fatalf("first pass %v", r.JSON)
	}
	item := owner.do("GET", "/api/admin/mail", nil).expect(t, 200, "").JSON["queue"].(map[string]any)["items"].([]any)[0].(map[string]any)
	if item["status"] != "failed" || item["reply"] != "550 5.1.1 No such user here" || item["purpose"] != "invitation" {
		t.Fatalf("item %v", item)
	}
	srv.Reject("sam@example.com", 0)
	r = owner.do("POST", "/api/admin/mail/retry", nil).expect(t, 200, "")
	if r.JSON["requeued"] != float64(1) || r.JSON["sent"] != float64(1) || r.JSON["failed"] != float64(0) {
		t.Fatalf("second pass %v", r.JSON)
	}
	got := srv.Received()
	if len(got) != 1 {
		t.Fatalf("%d mails", len(got))
	}
	_, text, _ := mailParts(t, got[0])
	if !strings.Contains(text, h.srv.URL+"/invite/") {
		t.Errorf("the invitation lacks its link:\n%s", text)
	}
	_ = context.Background
	_ = store.MailJobKind
}
