package scenarios_test

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// enrol turns two-factor on for the signed-in client with a code computed
// from the returned secret, and returns the secret and recovery codes.
func enrol(t *testing.T, h *harness, c *client) (string, []string) {
	t.Helper()
	start := c.do("POST", "/api/admin/me/two-factor", map[string]any{"action": "start"}).expect(t, 200, "")
	secret, _ := start.JSON["secret"].(string)
	if secret == "" {
		t.Fatalf("start answered no secret: %s", start.Body)
	}
	r := c.do("POST", "/api/admin/me/two-factor", map[string]any{"action": "confirm", "code": totpAt(t, secret, h.clock.Now())}).expect(t, 200, "")
	var codes []string
	for _, v := range r.JSON["recoveryCodes"].([]any) {
		codes = append(codes, v.(string))
	}
	return secret, codes
}

// strings of a JSON list.
func stringList(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestTwoFactorEnrolment(t *testing.T) {
	h := newHarness(t)
	c := h.owner()
	status := func() map[string]any { return c.do("GET", "/api/admin/me/two-factor", nil).expect(t, 200, "").JSON }

	t.Run("it starts off with no recovery codes", func(t *testing.T) {
		if s := status(); s["enabled"] != false || s["recoveryCodesLeft"] != 0.0 {
			t.Fatalf("status = %v", s)
		}
	})
	t.Run("confirm before start names the action", func(t *testing.T) {
		r := c.do("POST", "/api/admin/me/two-factor", map[string]any{"action": "confirm", "code": "123456"}).expect(t, 400, "bad_request")
		if _, ok := r.details()["action"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
	})
	bad := []struct {
		name  string
		body  any
		field string
	}{
		{"an unknown action is refused", map[string]any{"action": "enable"}, "action"},
		{"a missing action is refused", map[string]any{}, "action"},
		{"confirm without a code names the code", map[string]any{"action": "confirm"}, "code"},
		{"recovery without a code names the code", map[string]any{"action": "recovery"}, "code"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", "/api/admin/me/two-factor", tt.body).expect(t, 400, "bad_request")
			if _, ok := r.details()[tt.field]; !ok {
				t.Fatalf("details %v do not name %s", r.details(), tt.field)
			}
		})
	}

	start := c.do("POST", "/api/admin/me/two-factor", map[string]any{"action": "start"}).expect(t, 200, "")
	secret := start.JSON["secret"].(string)
	t.Run("start answers a secret, its otpauth uri and a PNG QR code", func(t *testing.T) {
		if len(secret) != 32 {
			t.Errorf("secret %q is not 160 bits of base32", secret)
		}
		u, err := url.Parse(start.JSON["uri"].(string))
		if err != nil || u.Scheme != "otpauth" || u.Host != "totp" || u.Query().Get("secret") != secret ||
			u.Query().Get("issuer") != "eventbox" || !strings.Contains(u.Path, "admin") {
			t.Errorf("uri = %v", start.JSON["uri"])
		}
		qr, ok := strings.CutPrefix(start.JSON["qr"].(string), "data:image/png;base64,")
		if !ok {
			t.Fatalf("qr is not a PNG data URL: %.40s", start.JSON["qr"])
		}
		raw, err := base64.StdEncoding.DecodeString(qr)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("qr does not decode: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 256 || b.Dy() != 256 {
			t.Errorf("qr is %v", b)
		}
	})
	t.Run("until confirmed, sign-in needs no code", func(t *testing.T) {
		r := h.client().do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, "")
		if r.JSON["ok"] != true {
			t.Fatalf("login = %s", r.Body)
		}
	})
	t.Run("a wrong code does not confirm and names the code", func(t *testing.T) {
		wrong := totpAt(t, secret, h.clock.Now().Add(5*time.Minute))
		r := c.do("POST", "/api/admin/me/two-factor", map[string]any{"action": "confirm", "code": wrong}).expect(t, 400, "bad_request")
		if _, ok := r.details()["code"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
		if status()["enabled"] != false {
			t.Fatal("a wrong code enabled two-factor")
		}
	})
	var codes []string
	t.Run("the current code confirms and answers 10 distinct recovery codes", func(t *testing.T) {
		r := c.do("POST", "/api/admin/me/two-factor", map[string]any{"action": "confirm", "code": totpAt(t, secret, h.clock.Now())}).expect(t, 200, "")
		if r.JSON["enabled"] != true {
			t.Fatalf("confirm = %s", r.Body)
		}
		codes = stringList(r.JSON["recoveryCodes"])
		seen := map[string]bool{}
		for _, code := range codes {
			if len(code) != 11 || code[5] != '-' || seen[code] {
				t.Errorf("recovery code %q is malformed or repeated", code)
			}
			seen[code] = true
		}
		if len(codes) != 10 {
			t.Fatalf("%d recovery codes", len(codes))
		}
		if s := status(); s["enabled"] != true || s["recoveryCodesLeft"] != 10.0 {
			t.Fatalf("status = %v", s)
		}
	})
	t.Run("after enrolment no answer carries the secret", func(t *testing.T) {
		for _, path := range []string{"/api/admin/me", "/api/admin/me/two-factor", "/api/admin/accounts"} {
			r := c.do("GET", path, nil).expect(t, 200, "")
			assertNoSecret(t, path, string(r.Body), secret, strings.ToLower(secret))
		}
		if r := c.do("GET", "/api/admin/me", nil); r.JSON["account"].(map[string]any)["twoFactor"] != true {
			t.Fatalf("me = %s", r.Body)
		}
	})
	t.Run("start again is refused while two-factor is on", func(t *testing.T) {
		r := c.do("POST", "/api/admin/me/two-factor", map[string]any{"action": "start"}).expect(t, 400, "bad_request")
		if _, ok := r.details()["action"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
	})
	t.Run("recovery codes are replaced with a current code", func(t *testing.T) {
		h.clock.Advance(30 * time.Second)
		r := c.do("POST", "/api/admin/me/two-factor", map[string]any{"action": "recovery", "code": totpAt(t, secret, h.clock.Now())}).expect(t, 200, "")
		fresh := stringList(r.JSON["recoveryCodes"])
		if len(fresh) != 10 || fresh[0] == codes[0] {
			t.Fatalf("recovery codes = %v", fresh)
		}
		signIn := h.client()
		signIn.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, "")
		signIn.do("POST", "/api/admin/login/code", map[string]any{"code": codes[0]}).expect(t, 401, "unauthorized")
		signIn.do("POST", "/api/admin/login/code", map[string]any{"code": fresh[0]}).expect(t, 200, "")
		if s := status(); s["recoveryCodesLeft"] != 9.0 {
			t.Fatalf("status = %v", s)
		}
		h.clock.Advance(time.Minute)
	})
	t.Run("recovery with a wrong code names the code", func(t *testing.T) {
		r := c.do("POST", "/api/admin/me/two-factor", map[string]any{"action": "recovery", "code": "000000"}).expect(t, 400, "bad_request")
		if _, ok := r.details()["code"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
	})

	off := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"turning off needs the password", map[string]any{"code": "123456"}, "password"},
		{"a wrong password names the password and keeps the session", map[string]any{"password": "not-the-password", "code": "123456"}, "password"},
		{"a wrong code names the code", map[string]any{"password": ownerPassword, "code": "000000"}, "code"},
		{"a missing code names the code", map[string]any{"password": ownerPassword}, "code"},
	}
	for _, tt := range off {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("DELETE", "/api/admin/me/two-factor", tt.body).expect(t, 400, "bad_request")
			if _, ok := r.details()[tt.field]; !ok {
				t.Fatalf("details = %v", r.details())
			}
			c.do("GET", "/api/admin/me", nil).expect(t, 200, "")
		})
	}
	t.Run("password and a current code turn it off; sign-in needs no code again", func(t *testing.T) {
		r := c.do("DELETE", "/api/admin/me/two-factor", map[string]any{"password": ownerPassword, "code": totpAt(t, secret, h.clock.Now())}).expect(t, 200, "")
		if r.JSON["enabled"] != false {
			t.Fatalf("answer = %s", r.Body)
		}
		if s := status(); s["enabled"] != false || s["recoveryCodesLeft"] != 0.0 {
			t.Fatalf("status = %v", s)
		}
		l := h.client().do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, "")
		if l.JSON["ok"] != true || l.JSON["codeRequired"] != nil {
			t.Fatalf("login = %s", l.Body)
		}
	})
}

func TestSignInWithASecondFactor(t *testing.T) {
	h := newHarness(t)
	secret, codes := enrol(t, h, h.owner())
	h.clock.Advance(30 * time.Second)
	pending := func(t *testing.T) *client {
		c := h.client()
		r := c.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, "")
		if r.JSON["codeRequired"] != true || r.JSON["ok"] != nil {
			t.Fatalf("login = %s", r.Body)
		}
		return c
	}
	at := func(d time.Duration) string { return totpAt(t, secret, h.clock.Now().Add(d)) }

	t.Run("a password alone reaches nothing", func(t *testing.T) {
		c := pending(t)
		c.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		c.do("GET", "/api/admin/events", nil).expect(t, 401, "unauthorized")
	})
	t.Run("the code step needs a pending sign-in", func(t *testing.T) {
		h.client().do("POST", "/api/admin/login/code", map[string]any{"code": at(0)}).expect(t, 401, "unauthorized")
	})
	t.Run("an empty code names the field", func(t *testing.T) {
		r := pending(t).do("POST", "/api/admin/login/code", map[string]any{"code": " "}).expect(t, 400, "bad_request")
		if _, ok := r.details()["code"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
	})
	// Each row starts 90 s after the last: a fresh rate-limit window, and
	// every code of the row's window is later than any used before.
	type try struct {
		offset time.Duration // from now; -1 ns means "12345"
		status int
	}
	codeTests := []struct {
		name  string
		tries []try
	}{
		{"a code two steps ahead is refused", []try{{61 * time.Second, 401}}},
		{"a code two steps behind is refused", []try{{-61 * time.Second, 401}}},
		{"a code that is not six digits is refused", []try{{-1, 401}}},
		{"the code of the previous step is accepted", []try{{-30 * time.Second, 200}}},
		{"the current code is accepted", []try{{0, 200}}},
		{"the code of the next step is accepted", []try{{30 * time.Second, 200}}},
		{"the same code cannot be used twice", []try{{0, 200}, {0, 401}}},
		{"a step up to the last one used is refused", []try{{30 * time.Second, 200}, {0, 401}, {-30 * time.Second, 401}}},
	}
	for _, tt := range codeTests {
		t.Run(tt.name, func(t *testing.T) {
			h.clock.Advance(90 * time.Second)
			var c *client
			for _, try := range tt.tries {
				if c == nil {
					c = pending(t)
				}
				code := "12345"
				if try.offset != -1 {
					code = at(try.offset)
				}
				errCode := map[int]string{200: "", 401: "unauthorized"}[try.status]
				c.do("POST", "/api/admin/login/code", map[string]any{"code": code}).expect(t, try.status, errCode)
				c.do("GET", "/api/admin/me", nil).expect(t, try.status, errCode)
				if try.status == 200 {
					c = nil
				}
			}
		})
	}
	t.Run("a recovery code signs in once, typed any way", func(t *testing.T) {
		h.clock.Advance(90 * time.Second)
		typed := strings.ToUpper(strings.ReplaceAll(codes[3], "-", " "))
		c := pending(t)
		c.do("POST", "/api/admin/login/code", map[string]any{"code": typed}).expect(t, 200, "")
		s := c.do("GET", "/api/admin/me/two-factor", nil).expect(t, 200, "")
		if s.JSON["recoveryCodesLeft"] != 9.0 {
			t.Fatalf("status = %s", s.Body)
		}
		pending(t).do("POST", "/api/admin/login/code", map[string]any{"code": codes[3]}).expect(t, 401, "unauthorized")
	})
	t.Run("success replaces the pending session with a new one", func(t *testing.T) {
		h.clock.Advance(90 * time.Second)
		c := pending(t)
		u, _ := url.Parse(h.srv.URL)
		before := c.hc.Jar.Cookies(u)
		c.do("POST", "/api/admin/login/code", map[string]any{"code": codes[4]}).expect(t, 200, "")
		after := c.hc.Jar.Cookies(u)
		if len(before) != 1 || len(after) != 1 || before[0].Value == after[0].Value {
			t.Fatalf("session cookie not replaced: %v → %v", before, after)
		}
		old := h.client()
		old.hc.Jar.SetCookies(u, before)
		old.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		c.do("POST", "/api/admin/login/code", map[string]any{"code": "999999"}).expect(t, 200, "")
	})
	t.Run("a pending sign-in lapses after 10 minutes", func(t *testing.T) {
		h.clock.Advance(90 * time.Second)
		c := pending(t)
		h.clock.Advance(10*time.Minute + time.Second)
		c.do("POST", "/api/admin/login/code", map[string]any{"code": at(0)}).expect(t, 401, "unauthorized")
		c.do("POST", "/api/admin/login/code", map[string]any{"code": at(0)}).expect(t, 401, "unauthorized")
	})
	t.Run("wrong codes are rate-limited", func(t *testing.T) {
		h.clock.Advance(90 * time.Second)
		c := pending(t)
		var last response
		for i := 0; i < 10; i++ {
			last = c.do("POST", "/api/admin/login/code", map[string]any{"code": "000000"})
			if last.Status == 429 {
				break
			}
			last.expect(t, 401, "unauthorized")
		}
		last.expect(t, 429, "rate_limited")
		if last.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
		h.clock.Advance(time.Minute)
		c.do("POST", "/api/admin/login/code", map[string]any{"code": at(0)}).expect(t, 200, "")
	})
}

// TestSecondFactorReplayAtTheSameMoment sends one code from two pending
// sign-ins at once: exactly one may get in.
func TestSecondFactorReplayAtTheSameMoment(t *testing.T) {
	h := newHarness(t)
	secret, _ := enrol(t, h, h.owner())
	h.clock.Advance(30 * time.Second)
	code := totpAt(t, secret, h.clock.Now())
	const n = 4
	clients := make([]*client, n)
	for i := range clients {
		clients[i] = h.client()
		clients[i].do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, "")
	}
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest("POST", h.srv.URL+"/api/admin/login/code", strings.NewReader(`{"code":"`+code+`"}`))
			if err != nil {
				return
			}
			req.Header.Set("Origin", h.srv.URL)
			res, err := c.hc.Do(req)
			if err != nil {
				return
			}
			res.Body.Close()
			statuses[i] = res.StatusCode
		}()
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		switch s {
		case 200:
			ok++
		case 401:
		default:
			t.Errorf("status %d", s)
		}
	}
	if ok != 1 {
		t.Fatalf("%d sign-ins got in with one code, want 1 (statuses %v)", ok, statuses)
	}
}

func TestOwnerResetsASecondFactor(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	org := h.organizer("planner")
	secret, _ := enrol(t, h, org)
	elsewhere := h.client()
	elsewhere.do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": "organizer-password"}).expect(t, 200, "")
	h.clock.Advance(30 * time.Second)
	elsewhere.do("POST", "/api/admin/login/code", map[string]any{"code": totpAt(t, secret, h.clock.Now())}).expect(t, 200, "")
	id := org.do("GET", "/api/admin/me", nil).expect(t, 200, "").JSON["account"].(map[string]any)["id"].(string)

	r := owner.do("PATCH", "/api/admin/accounts/"+id, map[string]any{"resetTwoFactor": true}).expect(t, 200, "")
	if a := r.JSON["account"].(map[string]any); a["twoFactor"] != false || r.JSON["password"] != nil {
		t.Fatalf("answer = %s", r.Body)
	}
	t.Run("the account's sessions have ended", func(t *testing.T) {
		org.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		elsewhere.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
	})
	t.Run("the password alone signs in again", func(t *testing.T) {
		l := h.client().do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": "organizer-password"}).expect(t, 200, "")
		if l.JSON["ok"] != true {
			t.Fatalf("login = %s", l.Body)
		}
	})
	t.Run("a sign-in left waiting for its code cannot finish after a reset", func(t *testing.T) {
		c := h.client()
		c.do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": "organizer-password"}).expect(t, 200, "")
		s2, _ := enrol(t, h, c)
		waiting := h.client()
		waiting.do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": "organizer-password"}).expect(t, 200, "")
		owner.do("PATCH", "/api/admin/accounts/"+id, map[string]any{"resetTwoFactor": true}).expect(t, 200, "")
		h.clock.Advance(30 * time.Second)
		waiting.do("POST", "/api/admin/login/code", map[string]any{"code": totpAt(t, s2, h.clock.Now())}).expect(t, 401, "unauthorized")
	})
}
