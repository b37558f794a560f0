package scenarios_test

import (
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/store"
)

// accountFields are the fields of an Account answer (docs/design.md, "Account"), with
// mustChangePassword (docs/decisions.md, "First sign-in, statistics, logo log").
var accountFields = []string{"id", "username", "role", "name", "email", "eventIds", "twoFactor", "createdAt", "lastLoginAt", "mustChangePassword"}

func TestAccountList(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	h.clock.Advance(time.Millisecond)
	h.organizer("planner")
	r := owner.do("GET", "/api/admin/accounts", nil).expect(t, 200, "")
	list := r.JSON["accounts"].([]any)
	if len(list) != 2 {
		t.Fatalf("accounts = %s", r.Body)
	}
	first, second := list[0].(map[string]any), list[1].(map[string]any)
	if first["username"] != "admin" || first["role"] != "owner" || second["username"] != "planner" || second["role"] != "organizer" {
		t.Fatalf("accounts are not oldest first: %s", r.Body)
	}
	for _, f := range accountFields {
		if _, ok := second[f]; !ok {
			t.Errorf("account lacks %s", f)
		}
	}
	if len(second) != len(accountFields) {
		t.Errorf("account has fields beyond the shape: %v", second)
	}
	if strings.Contains(string(r.Body), "$2a$") || strings.Contains(string(r.Body), "passwordHash") {
		t.Fatalf("the list leaks a hash: %s", r.Body)
	}
	if second["lastLoginAt"] == nil || first["lastLoginAt"] == nil {
		t.Errorf("lastLoginAt not set by sign-in: %s", r.Body)
	}
}

func TestCreateAccount(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding"})["id"].(string)
	missing := "aaaaaaaaaaaaaaaa"

	t.Run("without a password one is made, answered once, and signs in", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/accounts", map[string]any{
			"username": "Lea", "role": "organizer", "name": " Léa ", "email": "lea@example.com", "eventIds": []string{ev, ev},
		}).expect(t, 201, "")
		a := r.JSON["account"].(map[string]any)
		if a["username"] != "Lea" || a["role"] != "organizer" || a["name"] != "Léa" || a["email"] != "lea@example.com" ||
			!reflect.DeepEqual(a["eventIds"], []any{ev}) || a["twoFactor"] != false || a["lastLoginAt"] != nil {
			t.Fatalf("account = %v", a)
		}
		pw, _ := r.JSON["password"].(string)
		if len(pw) != 23 {
			t.Fatalf("generated password %q", pw)
		}
		c := h.client()
		c.do("POST", "/api/admin/login", map[string]any{"username": "lea", "password": pw}).expect(t, 200, "")
		c.do("GET", "/api/admin/events/"+ev, nil).expect(t, 200, "")
		if strings.Contains(string(r.Body), "$2a$") {
			t.Fatal("the answer carries a hash")
		}
	})
	t.Run("with a password none is answered", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/accounts", map[string]any{"username": "boss2", "role": "owner", "password": "another-owner-pw"}).expect(t, 201, "")
		if _, ok := r.JSON["password"]; !ok || r.JSON["password"] != nil {
			t.Fatalf("password = %v, want null", r.JSON["password"])
		}
		if a := r.JSON["account"].(map[string]any); !reflect.DeepEqual(a["eventIds"], []any{}) || a["name"] != "" || a["email"] != "" {
			t.Fatalf("account = %v", a)
		}
		h.client().do("POST", "/api/admin/login", map[string]any{"username": "boss2", "password": "another-owner-pw"}).expect(t, 200, "")
	})
	bad := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"a username taken in another case is refused", map[string]any{"username": "ADMIN", "role": "owner"}, "username"},
		{"the username is required", map[string]any{"role": "owner"}, "username"},
		{"a username with a space is refused", map[string]any{"username": "ann marie", "role": "owner"}, "username"},
		{"a username over 60 characters is refused", map[string]any{"username": strings.Repeat("u", 61), "role": "owner"}, "username"},
		{"the role is required", map[string]any{"username": "x1"}, "role"},
		{"the role is owner or organizer", map[string]any{"username": "x1", "role": "guest"}, "role"},
		{"an event that does not exist is refused", map[string]any{"username": "x1", "role": "organizer", "eventIds": []string{missing}}, "eventIds"},
		{"a malformed event id is refused", map[string]any{"username": "x1", "role": "organizer", "eventIds": []string{"../x"}}, "eventIds"},
		{"a short password is refused", map[string]any{"username": "x1", "role": "owner", "password": "short"}, "password"},
		{"an empty password is refused", map[string]any{"username": "x1", "role": "owner", "password": ""}, "password"},
		{"a null password is refused", map[string]any{"username": "x1", "role": "owner", "password": nil}, "password"},
		{"a bad email is refused", map[string]any{"username": "x1", "role": "owner", "email": "nope"}, "email"},
		{"resetPassword is for updates", map[string]any{"username": "x1", "role": "owner", "resetPassword": true}, "resetPassword"},
		{"an unknown field is named", map[string]any{"username": "x1", "role": "owner", "admin": true}, "admin"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("POST", "/api/admin/accounts", tt.body).expect(t, 400, "bad_request")
			if _, ok := r.details()[tt.field]; !ok {
				t.Fatalf("details %v do not name %s", r.details(), tt.field)
			}
		})
	}
	t.Run("nothing was created by a refusal", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/accounts", nil).expect(t, 200, "")
		if n := len(r.JSON["accounts"].([]any)); n != 3 {
			t.Fatalf("%d accounts", n)
		}
	})
}

func TestUpdateAccount(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	evA := h.createEvent(owner, map[string]any{"name": "A"})["id"].(string)
	evB := h.createEvent(owner, map[string]any{"name": "B"})["id"].(string)
	org := h.organizer("planner", evA)
	orgID := org.do("GET", "/api/admin/me", nil).JSON["account"].(map[string]any)["id"].(string)
	ownerID := owner.do("GET", "/api/admin/me", nil).JSON["account"].(map[string]any)["id"].(string)
	path := "/api/admin/accounts/" + orgID

	t.Run("fields change and the organizer's scope follows at once", func(t *testing.T) {
		org.do("GET", "/api/admin/events/"+evB, nil).expect(t, 404, "not_found")
		r := owner.do("PATCH", path, map[string]any{"name": "Pat", "email": "pat@example.com", "eventIds": []string{evB}}).expect(t, 200, "")
		a := r.JSON["account"].(map[string]any)
		if a["name"] != "Pat" || a["email"] != "pat@example.com" || !reflect.DeepEqual(a["eventIds"], []any{evB}) || r.JSON["password"] != nil {
			t.Fatalf("answer = %s", r.Body)
		}
		org.do("GET", "/api/admin/events/"+evB, nil).expect(t, 200, "")
		org.do("GET", "/api/admin/events/"+evA, nil).expect(t, 404, "not_found")
	})
	t.Run("null clears name, email and events", func(t *testing.T) {
		r := owner.do("PATCH", path, map[string]any{"name": nil, "email": nil, "eventIds": nil}).expect(t, 200, "")
		a := r.JSON["account"].(map[string]any)
		if a["name"] != "" || a["email"] != "" || !reflect.DeepEqual(a["eventIds"], []any{}) {
			t.Fatalf("account = %v", a)
		}
		owner.do("PATCH", path, map[string]any{"eventIds": []string{evA}}).expect(t, 200, "")
	})
	t.Run("a rename keeps the session and frees the old name", func(t *testing.T) {
		owner.do("PATCH", path, map[string]any{"username": "Planner2"}).expect(t, 200, "")
		org.do("GET", "/api/admin/me", nil).expect(t, 200, "")
		h.client().do("POST", "/api/admin/login", map[string]any{"username": "planner2", "password": "organizer-password"}).expect(t, 200, "")
		owner.do("PATCH", path, map[string]any{"username": "planner"}).expect(t, 200, "")
	})
	bad := []struct {
		name  string
		path  string
		body  map[string]any
		field string
	}{
		{"a username taken in another case is refused", path, map[string]any{"username": "Admin"}, "username"},
		{"resetPassword and password together are refused", path, map[string]any{"resetPassword": true, "password": "a-new-password-1"}, "resetPassword"},
		{"an event that does not exist is refused", path, map[string]any{"eventIds": []string{"aaaaaaaaaaaaaaaa"}}, "eventIds"},
		{"the role is owner or organizer", path, map[string]any{"role": "admin"}, "role"},
		{"the last owner cannot be made an organizer", "/api/admin/accounts/" + ownerID, map[string]any{"role": "organizer"}, "role"},
		{"a null username is refused", path, map[string]any{"username": nil}, "username"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("PATCH", tt.path, tt.body).expect(t, 400, "bad_request")
			if _, ok := r.details()[tt.field]; !ok {
				t.Fatalf("details %v do not name %s", r.details(), tt.field)
			}
		})
	}
	t.Run("an unknown or malformed id is not found", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/accounts/aaaaaaaaaaaaaaaa", map[string]any{"name": "x"}).expect(t, 404, "not_found")
		owner.do("PATCH", "/api/admin/accounts/nope", map[string]any{"name": "x"}).expect(t, 404, "not_found")
	})
	t.Run("resetPassword answers a new password and ends the account's sessions", func(t *testing.T) {
		other := h.client()
		other.do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": "organizer-password"}).expect(t, 200, "")
		r := owner.do("PATCH", path, map[string]any{"resetPassword": true}).expect(t, 200, "")
		pw, _ := r.JSON["password"].(string)
		if len(pw) != 23 {
			t.Fatalf("password = %v", r.JSON["password"])
		}
		org.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		other.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		h.client().do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": "organizer-password"}).expect(t, 401, "unauthorized")
		org.do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": pw}).expect(t, 200, "")
		owner.do("GET", "/api/admin/me", nil).expect(t, 200, "")
	})
	t.Run("a password set by the owner ends the account's sessions too", func(t *testing.T) {
		r := owner.do("PATCH", path, map[string]any{"password": "set-by-the-owner"}).expect(t, 200, "")
		if r.JSON["password"] != nil {
			t.Fatalf("password = %v", r.JSON["password"])
		}
		org.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		org.do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": "set-by-the-owner"}).expect(t, 200, "")
	})
	t.Run("an owner resetting their own password stays signed in here only", func(t *testing.T) {
		elsewhere := h.owner()
		r := owner.do("PATCH", "/api/admin/accounts/"+ownerID, map[string]any{"resetPassword": true}).expect(t, 200, "")
		owner.do("GET", "/api/admin/me", nil).expect(t, 200, "")
		elsewhere.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		h.client().do("POST", "/api/admin/login", map[string]any{"password": r.JSON["password"]}).expect(t, 200, "")
	})
	t.Run("with a second owner the first may become an organizer", func(t *testing.T) {
		owner.do("PATCH", path, map[string]any{"role": "owner"}).expect(t, 200, "")
		org.do("GET", "/api/admin/accounts", nil).expect(t, 200, "")
		r := owner.do("PATCH", "/api/admin/accounts/"+ownerID, map[string]any{"role": "organizer"}).expect(t, 200, "")
		if r.JSON["account"].(map[string]any)["role"] != "organizer" {
			t.Fatalf("answer = %s", r.Body)
		}
		owner.do("GET", "/api/admin/accounts", nil).expect(t, 403, "forbidden")
		r = org.do("PATCH", path, map[string]any{"role": "organizer"}).expect(t, 400, "bad_request")
		if _, ok := r.details()["role"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
	})
}

func TestDeleteAccount(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ownerID := owner.do("GET", "/api/admin/me", nil).JSON["account"].(map[string]any)["id"].(string)
	org := h.organizer("planner")
	orgID := org.do("GET", "/api/admin/me", nil).JSON["account"].(map[string]any)["id"].(string)

	t.Run("the last owner cannot be deleted", func(t *testing.T) {
		r := owner.do("DELETE", "/api/admin/accounts/"+ownerID, nil).expect(t, 400, "bad_request")
		if _, ok := r.details()["id"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
	})
	t.Run("an unknown id is not found", func(t *testing.T) {
		owner.do("DELETE", "/api/admin/accounts/aaaaaaaaaaaaaaaa", nil).expect(t, 404, "not_found")
	})
	t.Run("a deleted account's sessions end at once and it cannot sign in", func(t *testing.T) {
		owner.do("DELETE", "/api/admin/accounts/"+orgID, nil).expect(t, 200, "")
		org.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		h.client().do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": "organizer-password"}).expect(t, 401, "unauthorized")
		owner.do("DELETE", "/api/admin/accounts/"+orgID, nil).expect(t, 404, "not_found")
	})
	t.Run("the username is free again", func(t *testing.T) {
		owner.do("POST", "/api/admin/accounts", map[string]any{"username": "PLANNER", "role": "organizer"}).expect(t, 201, "")
	})
	t.Run("an owner may delete themselves when another owner remains", func(t *testing.T) {
		owner.do("POST", "/api/admin/accounts", map[string]any{"username": "second", "role": "owner", "password": "second-owner-pw"}).expect(t, 201, "")
		owner.do("DELETE", "/api/admin/accounts/"+ownerID, nil).expect(t, 200, "")
		owner.do("GET", "/api/admin/me", nil).expect(t, 401, "unauthorized")
		h.client().do("POST", "/api/admin/login", map[string]any{"username": "second", "password": "second-owner-pw"}).expect(t, 200, "")
	})
}

func TestEventDeletionLeavesAccountsAndInvitations(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	evA := h.createEvent(owner, map[string]any{"name": "A"})["id"].(string)
	evB := h.createEvent(owner, map[string]any{"name": "B"})["id"].(string)
	org := h.organizer("planner", evA, evB)
	owner.do("POST", "/api/admin/invitations", map[string]any{"email": "x@example.com", "role": "organizer", "eventIds": []string{evA, evB}}).expect(t, 201, "")

	owner.do("DELETE", "/api/admin/events/"+evA, nil).expect(t, 200, "")
	me := org.do("GET", "/api/admin/me", nil).expect(t, 200, "")
	if ids := me.JSON["account"].(map[string]any)["eventIds"]; !reflect.DeepEqual(ids, []any{evB}) {
		t.Fatalf("organizer's eventIds = %v, want [%s]", ids, evB)
	}
	inv := owner.do("GET", "/api/admin/invitations", nil).expect(t, 200, "").JSON["invitations"].([]any)[0].(map[string]any)
	if !reflect.DeepEqual(inv["eventIds"], []any{evB}) {
		t.Fatalf("invitation's eventIds = %v", inv["eventIds"])
	}
	owner.do("DELETE", "/api/admin/events/"+evB, nil).expect(t, 200, "")
	me = org.do("GET", "/api/admin/me", nil).expect(t, 200, "")
	if ids := me.JSON["account"].(map[string]any)["eventIds"]; !reflect.DeepEqual(ids, []any{}) {
		t.Fatalf("organizer's eventIds = %v, want []", ids)
	}
	r := org.do("GET", "/api/admin/events", nil).expect(t, 200, "")
	if n := len(r.JSON["events"].([]any)); n != 0 {
		t.Fatalf("organizer still lists %d events", n)
	}
}

// invite creates an invitation as the owner and returns the answer and
// the token from its url.
func invite(t *testing.T, owner *client, body map[string]any) (map[string]any, string) {
	t.Helper()
	r := owner.do("POST", "/api/admin/invitations", body).expect(t, 201, "")
	u, err := url.Parse(r.JSON["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	token, ok := strings.CutPrefix(u.Path, "/invite/")
	if !ok || len(token) < 40 {
		t.Fatalf("url = %v", r.JSON["url"])
	}
	return r.JSON, token
}

func TestInvitations(t *testing.T) {
	logs := &logBuffer{}
	h := newHarness(t, withLogs(logs))
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding"})["id"].(string)

	created, token := invite(t, owner, map[string]any{"email": "sam@example.com", "role": "organizer", "eventIds": []string{ev}})
	inv := created["invitation"].(map[string]any)
	t.Run("creation answers the invitation, a link on this origin, and emailed false", func(t *testing.T) {
		if created["emailed"] != false || !strings.HasPrefix(created["url"].(string), h.srv.URL+"/invite/") {
			t.Fatalf("answer = %v", created)
		}
		want := map[string]any{"id": inv["id"], "email": "sam@example.com", "role": "organizer", "eventIds": []any{ev},
			"createdAt": float64(h.clock.Now().UnixMilli()), "expiresAt": float64(h.clock.Now().Add(7 * 24 * time.Hour).UnixMilli())}
		if !reflect.DeepEqual(inv, want) {
			t.Fatalf("invitation = %v\nwant %v", inv, want)
		}
	})
	t.Run("the pending list shows it without its token", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/invitations", nil).expect(t, 200, "")
		list := r.JSON["invitations"].([]any)
		if len(list) != 1 || !reflect.DeepEqual(list[0], inv) {
			t.Fatalf("invitations = %s", r.Body)
		}
		assertNoSecret(t, "the list", string(r.Body), token, store.HashToken(token))
	})
	bad := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"the email is required", map[string]any{"role": "organizer"}, "email"},
		{"the email must be an address", map[string]any{"email": "sam", "role": "organizer"}, "email"},
		{"the role is required", map[string]any{"email": "a@example.com"}, "role"},
		{"the role is owner or organizer", map[string]any{"email": "a@example.com", "role": "guest"}, "role"},
		{"an event that does not exist is refused", map[string]any{"email": "a@example.com", "role": "organizer", "eventIds": []string{"aaaaaaaaaaaaaaaa"}}, "eventIds"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("POST", "/api/admin/invitations", tt.body).expect(t, 400, "bad_request")
			if _, ok := r.details()[tt.field]; !ok {
				t.Fatalf("details %v do not name %s", r.details(), tt.field)
			}
		})
	}
	accept := func(c *client, token string, body map[string]any) response {
		return c.do("POST", "/api/admin/invite/"+token, body)
	}
	t.Run("a refused form leaves the link usable", func(t *testing.T) {
		r := accept(h.client(), token, map[string]any{"username": "admin", "name": "Sam", "password": "sams-password-1"}).expect(t, 400, "bad_request")
		if _, ok := r.details()["username"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
		r = accept(h.client(), token, map[string]any{"username": "sam", "name": "Sam", "password": "short"}).expect(t, 400, "bad_request")
		if _, ok := r.details()["password"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
	})
	sam := h.client()
	t.Run("using the link creates the account and signs the caller in", func(t *testing.T) {
		r := accept(sam, token, map[string]any{"username": "sam", "name": "Sam", "password": "sams-password-1"}).expect(t, 201, "")
		if r.JSON["ok"] != true {
			t.Fatalf("answer = %s", r.Body)
		}
		a := sam.do("GET", "/api/admin/me", nil).expect(t, 200, "").JSON["account"].(map[string]any)
		if a["username"] != "sam" || a["name"] != "Sam" || a["email"] != "sam@example.com" || a["role"] != "organizer" ||
			!reflect.DeepEqual(a["eventIds"], []any{ev}) || a["lastLoginAt"] == nil {
			t.Fatalf("account = %v", a)
		}
		sam.do("GET", "/api/admin/events/"+ev, nil).expect(t, 200, "")
		sam.do("GET", "/api/admin/accounts", nil).expect(t, 403, "forbidden")
	})
	t.Run("a spent link is not found and no longer listed", func(t *testing.T) {
		accept(h.client(), token, map[string]any{"username": "sam2", "name": "", "password": "sams-password-1"}).expect(t, 404, "not_found")
		r := owner.do("GET", "/api/admin/invitations", nil).expect(t, 200, "")
		if n := len(r.JSON["invitations"].([]any)); n != 0 {
			t.Fatalf("%d pending", n)
		}
	})
	t.Run("a revoked link is not found", func(t *testing.T) {
		created, tok := invite(t, owner, map[string]any{"email": "r@example.com", "role": "owner"})
		id := created["invitation"].(map[string]any)["id"].(string)
		owner.do("DELETE", "/api/admin/invitations/"+id, nil).expect(t, 200, "")
		owner.do("DELETE", "/api/admin/invitations/"+id, nil).expect(t, 404, "not_found")
		accept(h.client(), tok, map[string]any{"username": "r", "name": "R", "password": "rrrrrrrrrrrr"}).expect(t, 404, "not_found")
	})
	t.Run("an owner invitation makes an owner", func(t *testing.T) {
		_, tok := invite(t, owner, map[string]any{"email": "o@example.com", "role": "owner", "eventIds": []string{}})
		c := h.client()
		accept(c, tok, map[string]any{"username": "o", "name": "O", "password": "oooooooooooo"}).expect(t, 201, "")
		c.do("GET", "/api/admin/accounts", nil).expect(t, 200, "")
	})
	t.Run("a link expires after 7 days", func(t *testing.T) {
		_, tok := invite(t, owner, map[string]any{"email": "late@example.com", "role": "organizer"})
		h.clock.Advance(7*24*time.Hour - time.Second)
		if n := len(owner.do("GET", "/api/admin/invitations", nil).JSON["invitations"].([]any)); n != 1 {
			t.Fatalf("%d pending before expiry", n)
		}
		owner = h.owner()
		h.clock.Advance(time.Second)
		owner.do("GET", "/api/admin/invitations", nil).expect(t, 200, "")
		if n := len(owner.do("GET", "/api/admin/invitations", nil).JSON["invitations"].([]any)); n != 0 {
			t.Fatalf("%d pending after expiry", n)
		}
		accept(h.client(), tok, map[string]any{"username": "late", "name": "", "password": "late-password"}).expect(t, 404, "not_found")
	})
	t.Run("an unknown or absurd token is not found", func(t *testing.T) {
		h.clock.Advance(time.Minute)
		accept(h.client(), "nope", map[string]any{}).expect(t, 404, "not_found")
		accept(h.client(), strings.Repeat("x", 500), map[string]any{}).expect(t, 404, "not_found")
	})
	t.Run("using links is rate-limited per address", func(t *testing.T) {
		h.clock.Advance(time.Minute)
		c := h.client()
		for i := 0; i < 10; i++ {
			accept(c, "guess"+string(rune('a'+i)), map[string]any{}).expect(t, 404, "not_found")
		}
		r := accept(c, token, map[string]any{}).expect(t, 429, "rate_limited")
		if r.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
	})
	t.Run("no token reaches the log", func(t *testing.T) {
		assertNoSecret(t, "the log", logs.String(), token, "sams-password-1")
		if !strings.Contains(logs.String(), "/api/admin/invite/…") {
			t.Errorf("the log does not show the redacted invitation path:\n%s", logs.String())
		}
	})
}

func TestInvitationURLUsesBaseURL(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) { c.BaseURL = "http://eventbox.local" })
	r := h.owner().do("POST", "/api/admin/invitations", map[string]any{"email": "a@example.com", "role": "organizer"}).expect(t, 201, "")
	if u := r.JSON["url"].(string); !strings.HasPrefix(u, "http://eventbox.local/invite/") {
		t.Fatalf("url = %s", u)
	}
}

func TestInvitationPageIsServed(t *testing.T) {
	h := newHarness(t)
	_, token := invite(t, h.owner(), map[string]any{"email": "a@example.com", "role": "organizer"})
	r := h.client().do("GET", "/invite/"+token, nil)
	if r.Status != http.StatusOK || !strings.Contains(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /invite/<token> = %d %s", r.Status, r.Header.Get("Content-Type"))
	}
}

// from makes c connect from another loopback address, so the box sees
// another client address (RemoteAddr).
func from(c *client, ip string) *client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	c.hc.Transport = &http.Transport{DialContext: d.DialContext}
	return c
}

func TestSignInIsLimitedPerUsername(t *testing.T) {
	h := newHarness(t)
	h.organizer("planner")
	first := from(h.client(), "127.0.0.2")
	for i := 0; i < 9; i++ {
		first.do("POST", "/api/admin/login", map[string]any{"username": "admin", "password": "guess-number-" + string(rune('a'+i))}).expect(t, 401, "unauthorized")
	}
	second := from(h.client(), "127.0.0.3")
	t.Run("the tenth try on one username from another address still counts", func(t *testing.T) {
		second.do("POST", "/api/admin/login", map[string]any{"username": "ADMIN", "password": "guess-number-j"}).expect(t, 401, "unauthorized")
	})
	t.Run("then that username is closed for a minute to every address that failed on it", func(t *testing.T) {
		for _, c := range []*client{first, second} {
			r := c.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 429, "rate_limited")
			if r.Header.Get("Retry-After") != "60" {
				t.Errorf("Retry-After = %q", r.Header.Get("Retry-After"))
			}
		}
	})
	t.Run("other usernames are not held up", func(t *testing.T) {
		second.do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": organizerPassword}).expect(t, 200, "")
	})
	t.Run("an address that did not fail still gets its try (docs/decisions.md, Guessing and lock-out)", func(t *testing.T) {
		from(h.client(), "127.0.0.4").do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, "")
	})
	t.Run("a minute later the owner signs in from an address that failed", func(t *testing.T) {
		h.clock.Advance(time.Minute)
		second.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, "")
	})
}
