package scenarios_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// browser speaks to the box only over HTTP, as the console page does:
// JSON bodies, its own cookies, and the page's Origin on every request.
type browser struct {
	t    *testing.T
	base string
	hc   *http.Client
	// seen collects every answer, to check afterwards that none leaked.
	seen *[]string
}

func newBrowser(t *testing.T, base string, seen *[]string) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, base: base, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second}, seen: seen}
}

// call sends a JSON request and decodes the JSON answer; it fails the test
// unless the status is want.
func (b *browser) call(method, path string, body any, want int) map[string]any {
	b.t.Helper()
	var rdr io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			b.t.Fatal(err)
		}
		rdr = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.base+path, rdr)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Origin", b.base)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	*b.seen = append(*b.seen, string(raw))
	if res.StatusCode != want {
		b.t.Fatalf("%s %s = %d, want %d: %s", method, path, res.StatusCode, want, raw)
	}
	var out map[string]any
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out); err != nil {
			b.t.Fatalf("%s %s: not JSON: %s", method, path, raw)
		}
	}
	return out
}

// page fetches a page as a browser opening a link would.
func (b *browser) page(path string) (int, string) {
	b.t.Helper()
	res, err := b.hc.Get(b.base + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	return res.StatusCode, res.Header.Get("Content-Type")
}

// TestBlackBoxTeamStory follows a wedding planner's box from the first
// sign-in to a team of two organizers with two-factor, knowing only the
// spec: an owner creates an organizer, invites another, the invitee enrols
// an authenticator (codes computed from the secret the box shows, with
// the phone's clock) and both are probed for scope.
func TestBlackBoxTeamStory(t *testing.T) {
	h := newHarness(t)
	phone := h.clock // the authenticator app's clock agrees with the box's
	base := h.srv.URL
	var seen []string

	owner := newBrowser(t, base, &seen)
	if r := owner.call("POST", "/api/admin/login", map[string]any{"password": ownerPassword}, 200); r["ok"] != true {
		t.Fatalf("owner sign-in = %v", r)
	}
	if me := owner.call("GET", "/api/admin/me", nil, 200)["account"].(map[string]any); me["role"] != "owner" {
		t.Fatalf("me = %v", me)
	}
	ev1 := owner.call("POST", "/api/admin/events", map[string]any{"name": "Ana & Ben"}, 201)["event"].(map[string]any)["id"].(string)
	ev2 := owner.call("POST", "/api/admin/events", map[string]any{"name": "Chloe & Dan"}, 201)["event"].(map[string]any)["id"].(string)

	// The owner creates an organizer for the first couple; the box makes
	// the password and shows it once.
	created := owner.call("POST", "/api/admin/accounts", map[string]any{
		"username": "lea", "role": "organizer", "name": "Léa", "email": "lea@example.com", "eventIds": []string{ev1},
	}, 201)
	leaPassword, _ := created["password"].(string)
	leaID := created["account"].(map[string]any)["id"].(string)
	if leaPassword == "" {
		t.Fatalf("no generated password: %v", created)
	}
	lea := newBrowser(t, base, &seen)
	lea.call("POST", "/api/admin/login", map[string]any{"username": "Lea", "password": leaPassword}, 200)
	lea.call("POST", "/api/admin/password", map[string]any{"current": leaPassword, "next": "lea-own-password"}, 200)
	if list := lea.call("GET", "/api/admin/events", nil, 200)["events"].([]any); len(list) != 1 || list[0].(map[string]any)["id"] != ev1 {
		t.Fatalf("Léa's events = %v", list)
	}

	// The owner invites the second couple's planner.
	inv := owner.call("POST", "/api/admin/invitations", map[string]any{"email": "sam@example.com", "role": "organizer", "eventIds": []string{ev2}}, 201)
	if inv["emailed"] != false {
		t.Fatalf("emailed = %v with no mail set up", inv["emailed"])
	}
	link, err := url.Parse(inv["url"].(string))
	if err != nil || link.Scheme+"://"+link.Host != base || !strings.HasPrefix(link.Path, "/invite/") {
		t.Fatalf("invitation url = %v", inv["url"])
	}
	pending := owner.call("GET", "/api/admin/invitations", nil, 200)["invitations"].([]any)
	if len(pending) != 1 || pending[0].(map[string]any)["email"] != "sam@example.com" {
		t.Fatalf("pending = %v", pending)
	}

	sam := newBrowser(t, base, &seen)
	if status, ct := sam.page(link.Path); status != 200 || !strings.Contains(ct, "text/html") {
		t.Fatalf("the invitation page = %d %s", status, ct)
	}
	token := strings.TrimPrefix(link.Path, "/invite/")
	sam.call("POST", "/api/admin/invite/"+token, map[string]any{"username": "sam", "name": "Sam", "password": "sams-password-1"}, 201)
	me := sam.call("GET", "/api/admin/me", nil, 200)["account"].(map[string]any)
	if me["role"] != "organizer" || me["email"] != "sam@example.com" || len(me["eventIds"].([]any)) != 1 || me["eventIds"].([]any)[0] != ev2 {
		t.Fatalf("Sam = %v", me)
	}
	newBrowser(t, base, &seen).call("POST", "/api/admin/invite/"+token, map[string]any{"username": "sam2", "name": "", "password": "sams-password-2"}, 404)

	// Sam turns on two-factor with an authenticator app.
	start := sam.call("POST", "/api/admin/me/two-factor", map[string]any{"action": "start"}, 200)
	secret := start["secret"].(string)
	if !strings.HasPrefix(start["uri"].(string), "otpauth://totp/") || !strings.HasPrefix(start["qr"].(string), "data:image/png;base64,") {
		t.Fatalf("start = %v", start)
	}
	confirm := sam.call("POST", "/api/admin/me/two-factor", map[string]any{"action": "confirm", "code": totpAt(t, secret, phone.Now())}, 200)
	recovery := confirm["recoveryCodes"].([]any)
	if confirm["enabled"] != true || len(recovery) != 10 {
		t.Fatalf("confirm = %v", confirm)
	}
	sam.call("POST", "/api/admin/logout", nil, 200)
	sam.call("GET", "/api/admin/me", nil, 401)

	// Signing in now takes a code: the one just used cannot be replayed.
	if r := sam.call("POST", "/api/admin/login", map[string]any{"username": "sam", "password": "sams-password-1"}, 200); r["codeRequired"] != true {
		t.Fatalf("sign-in = %v", r)
	}
	sam.call("GET", "/api/admin/me", nil, 401)
	sam.call("POST", "/api/admin/login/code", map[string]any{"code": totpAt(t, secret, phone.Now())}, 401)
	h.clock.Advance(30 * time.Second)
	sam.call("POST", "/api/admin/login/code", map[string]any{"code": totpAt(t, secret, phone.Now())}, 200)
	if s := sam.call("GET", "/api/admin/me/two-factor", nil, 200); s["enabled"] != true || s["recoveryCodesLeft"] != 10.0 {
		t.Fatalf("two-factor = %v", s)
	}
	// A lost phone, a minute later: a recovery code works once.
	h.clock.Advance(time.Minute)
	lost := newBrowser(t, base, &seen)
	lost.call("POST", "/api/admin/login", map[string]any{"username": "sam", "password": "sams-password-1"}, 200)
	lost.call("POST", "/api/admin/login/code", map[string]any{"code": recovery[0]}, 200)
	again := newBrowser(t, base, &seen)
	again.call("POST", "/api/admin/login", map[string]any{"username": "sam", "password": "sams-password-1"}, 200)
	again.call("POST", "/api/admin/login/code", map[string]any{"code": recovery[0]}, 401)

	// Each planner sees only their couple; owners' pages are closed.
	for _, probe := range []struct {
		who    *browser
		method string
		path   string
		body   any
		want   int
	}{
		{sam, "GET", "/api/admin/events/" + ev1, nil, 404},
		{sam, "PATCH", "/api/admin/events/" + ev1, map[string]any{"name": "Mine now"}, 404},
		{sam, "POST", "/api/admin/events/" + ev1 + "/rotate", nil, 404},
		{sam, "GET", "/api/admin/events/" + ev2, nil, 200},
		{lea, "GET", "/api/admin/events/" + ev2, nil, 404},
		{lea, "GET", "/api/admin/events/" + ev1, nil, 200},
		{sam, "DELETE", "/api/admin/events/" + ev2, nil, 403},
		{sam, "POST", "/api/admin/events", map[string]any{"name": "New"}, 403},
		{sam, "GET", "/api/admin/accounts", nil, 403},
		{sam, "PATCH", "/api/admin/accounts/" + leaID, map[string]any{"resetPassword": true}, 403},
		{lea, "POST", "/api/admin/invitations", map[string]any{"email": "x@example.com", "role": "owner", "eventIds": []string{}}, 403},
	} {
		probe.who.call(probe.method, probe.path, probe.body, probe.want)
	}
	if list := sam.call("GET", "/api/admin/events", nil, 200)["events"].([]any); len(list) != 1 || list[0].(map[string]any)["id"] != ev2 {
		t.Fatalf("Sam's events = %v", list)
	}

	// The owner lets Léa go: her browser is signed out at once.
	accounts := owner.call("GET", "/api/admin/accounts", nil, 200)["accounts"].([]any)
	if len(accounts) != 3 {
		t.Fatalf("accounts = %v", accounts)
	}
	owner.call("DELETE", "/api/admin/accounts/"+leaID, nil, 200)
	lea.call("GET", "/api/admin/me", nil, 401)
	newBrowser(t, base, &seen).call("POST", "/api/admin/login", map[string]any{"username": "lea", "password": "lea-own-password"}, 401)

	for _, body := range seen {
		if strings.Contains(body, "$2a$") || strings.Contains(body, "passwordHash") {
			t.Errorf("an answer carries a hash: %.200s", body)
		}
	}
	for _, body := range seen[1:] {
		if strings.Contains(body, `"secret"`) {
			continue // the start answer itself
		}
		if strings.Contains(body, secret) {
			t.Errorf("an answer after enrolment carries the secret: %.200s", body)
		}
	}
}
