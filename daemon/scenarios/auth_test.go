package scenarios_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
)

func TestGeneralRules(t *testing.T) {
	h := newHarness(t)
	anon := h.client()
	tests := []struct {
		name       string
		method     string
		path       string
		origin     string
		wantStatus int
		wantCode   string
	}{
		{"health answers ok", "GET", "/api/health", "", 200, ""},
		{"an unknown API path answers a JSON 404", "GET", "/api/nope", "", 404, "not_found"},
		{"a wrong method answers a JSON 405", "PUT", "/api/health", "same", 405, "method_not_allowed"},
		{"a mutating request without Origin is refused", "POST", "/api/admin/login", "", 403, "forbidden"},
		{"a mutating request from another site is refused", "POST", "/api/admin/login", "http://evil.example", 403, "forbidden"},
		{"an Origin of null is refused", "POST", "/api/admin/login", "null", 403, "forbidden"},
		{"an admin route without a session is unauthorized", "GET", "/api/admin/me", "", 401, "unauthorized"},
		{"an owner route without a session is unauthorized", "GET", "/api/admin/webhooks", "", 401, "unauthorized"},
		{"metrics without the token answer a JSON 404", "GET", "/api/metrics", "", 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			anon.origin = tt.origin
			if tt.origin == "same" {
				anon.origin = h.srv.URL
			}
			anon.do(tt.method, tt.path, nil).expect(t, tt.wantStatus, tt.wantCode)
		})
	}
	t.Run("the health answer is status ok", func(t *testing.T) {
		r := anon.do("GET", "/api/health", nil)
		if r.JSON["status"] != "ok" {
			t.Fatalf("status = %v", r.JSON["status"])
		}
	})
	t.Run("pages are served from the embedded UI", func(t *testing.T) {
		anon.origin = ""
		r := anon.do("GET", "/", nil)
		if r.Status != 200 || !strings.Contains(r.Header.Get("Content-Type"), "text/html") || r.Header.Get("ETag") == "" {
			t.Fatalf("GET / = %d %q etag %q", r.Status, r.Header.Get("Content-Type"), r.Header.Get("ETag"))
		}
		r2 := anon.do("GET", "/", nil, "If-None-Match", r.Header.Get("ETag"))
		if r2.Status != http.StatusNotModified {
			t.Fatalf("revalidation = %d, want 304", r2.Status)
		}
	})
}

func TestLogin(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name        string
		body        any
		wantStatus  int
		wantCode    string
		wantDetails []string
	}{
		{"without a username the first owner is meant", map[string]any{"password": ownerPassword}, 200, "", nil},
		{"with the username it signs in", map[string]any{"username": "ADMIN", "password": ownerPassword}, 200, "", nil},
		{"a wrong password is unauthorized", map[string]any{"password": "wrong-password-x"}, 401, "unauthorized", nil},
		{"an unknown user is unauthorized", map[string]any{"username": "nobody", "password": ownerPassword}, 401, "unauthorized", nil},
		{"a missing password names the field", map[string]any{}, 400, "bad_request", []string{"password"}},
		{"an unknown field is named", map[string]any{"password": "x", "remember": true}, 400, "bad_request", []string{"remember"}},
		{"a wrong type is named", map[string]any{"password": 12}, 400, "bad_request", []string{"password"}},
		{"a body that is not an object is refused", "[1,2]", 400, "bad_request", []string{"body"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.client().do("POST", "/api/admin/login", tt.body).expect(t, tt.wantStatus, tt.wantCode)
			for _, f := range tt.wantDetails {
				if _, ok := r.details()[f]; !ok {
					t.Errorf("details %v do not name %q", r.details(), f)
				}
			}
		})
	}
	t.Run("the session cookie is HttpOnly, Lax and lasts 7 days", func(t *testing.T) {
		r := h.client().do("POST", "/api/admin/login", map[string]any{"password": ownerPassword})
		var found bool
		for _, c := range (&http.Response{Header: r.Header}).Cookies() {
			if c.Name == "gr_admin" {
				found = true
				if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.MaxAge != 7*24*3600 || c.Secure {
					t.Errorf("cookie = %+v", c)
				}
			}
		}
		if !found {
			t.Fatal("no gr_admin cookie")
		}
	})
}

func TestLoginRateLimit(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	for i := 0; i < 10; i++ {
		c.do("POST", "/api/admin/login", map[string]any{"password": "wrong-password-x"}).expect(t, 401, "unauthorized")
	}
	r := c.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 429, "rate_limited")
	if r.Header.Get("Retry-After") != "60" {
		t.Errorf("Retry-After = %q, want 60", r.Header.Get("Retry-After"))
	}
	h.clock.Advance(30 * time.Second)
	r = c.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 429, "rate_limited")
	if r.Header.Get("Retry-After") != "30" {
		t.Errorf("Retry-After = %q, want 30", r.Header.Get("Retry-After"))
	}
	h.clock.Advance(31 * time.Second)
	c.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, "")
}

func TestSessions(t *testing.T) {
	h := newHarness(t)
	t.Run("me answers the account without secrets", func(t *testing.T) {
		r := h.owner().do("GET", "/api/admin/me", nil).expect(t, 200, "")
		acct := r.JSON["account"].(map[string]any)
		if acct["username"] != "admin" || acct["role"] != "owner" || acct["twoFactor"] != false {
			t.Fatalf("account = %v", acct)
		}
		if strings.Contains(string(r.Body), "$2a$") || strings.Contains(string(r.Body), "passwordHash") {
			t.Fatalf("answer leaks the hash: %s", r.Body)
		}
		if acct["lastLoginAt"] == nil {
			t.Error("lastLoginAt not set by the sign-in")
		}
	})
	t.Run("PATCH me changes name and email and validates", func(t *testing.T) {
		c := h.owner()
		r := c.do("PATCH", "/api/admin/me", map[string]any{"name": "Ana", "email": "ana@example.com"}).expect(t, 200, "")
		if a := r.JSON["account"].(map[string]any); a["name"] != "Ana" || a["email"] != "ana@example.com" {
			t.Fatalf("account = %v", a)
		}
		c.do("PATCH", "/api/admin/me", map[string]any{"email": "not-an-address"}).expect(t, 400, "bad_request")
		c.do("PATCH", "/api/admin/me", map[string]any{"role": "owner"}).expect(t, 400, "bad_request")
	})
	t.Run("logout ends the session", func(t *testing.T) {
		c := h.owner()
		c.do("POST", "/api/admin/logout", nil).expect(t, 200, "")
		c.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
	})
	t.Run("a session unused for 7 days ends; use keeps it alive", func(t *testing.T) {
		c := h.owner()
		h.clock.Advance(6 * 24 * time.Hour)
		c.do("GET", "/api/admin/me", nil).expect(t, 200, "")
		h.clock.Advance(6 * 24 * time.Hour)
		c.do("GET", "/api/admin/me", nil).expect(t, 200, "")
		h.clock.Advance(7*24*time.Hour + time.Minute)
		c.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
	})
}

func TestPasswordChange(t *testing.T) {
	h := newHarness(t)
	here, elsewhere := h.owner(), h.owner()
	tests := []struct {
		name       string
		body       map[string]any
		wantStatus int
		wantCode   string
	}{
		{"a wrong current password is unauthorized", map[string]any{"current": "wrong-password-x", "next": "a-new-password-1"}, 401, "unauthorized"},
		{"a short new password is refused", map[string]any{"current": ownerPassword, "next": "short"}, 400, "bad_request"},
		{"a missing current password is refused", map[string]any{"next": "a-new-password-1"}, 400, "bad_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			here.do("POST", "/api/admin/password", tt.body).expect(t, tt.wantStatus, tt.wantCode)
		})
	}
	t.Run("a change keeps this session and ends the others", func(t *testing.T) {
		here.do("POST", "/api/admin/password", map[string]any{"current": ownerPassword, "next": "a-new-password-1"}).expect(t, 200, "")
		here.do("GET", "/api/admin/me", nil).expect(t, 200, "")
		elsewhere.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		h.client().do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 401, "unauthorized")
		h.client().do("POST", "/api/admin/login", map[string]any{"password": "a-new-password-1"}).expect(t, 200, "")
	})
}

func TestGeneratedInitialPassword(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) { c.AdminPassword = "" })
	path := filepath.Join(h.cfg.DataDir, "initial-password")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("initial-password not written: %v", err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pw := strings.TrimSpace(string(raw))
	if len(pw) < 10 {
		t.Fatalf("generated password %q is too short", pw)
	}
	h.client().do("POST", "/api/admin/login", map[string]any{"password": pw}).expect(t, 200, "")
}

func TestHealthWhenTheDatabaseCannotBeRead(t *testing.T) {
	h := newHarness(t)
	h.client().do("GET", "/api/health", nil).expect(t, 200, "")
	if err := h.st.Close(); err != nil {
		t.Fatal(err)
	}
	h.client().do("GET", "/api/health", nil).expect(t, 503, "unavailable")
}
