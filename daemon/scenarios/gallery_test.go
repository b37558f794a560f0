package scenarios_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
)

// createShare makes a gallery link as c and returns the answer's share and
// password.
func createShare(t *testing.T, c *client, eventID string, body map[string]any) (map[string]any, any) {
	t.Helper()
	r := c.do("POST", "/api/admin/events/"+eventID+"/shares", body).expect(t, 201, "")
	return r.JSON["share"].(map[string]any), r.JSON["password"]
}

func TestGalleryLinksForHosts(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "galleryLinkDownload": false, "galleryLinkFavorites": true})
	id := ev["id"].(string)
	base := "/api/admin/events/" + id + "/shares"

	t.Run("a link without a password answers its url and no password", func(t *testing.T) {
		sh, pw := createShare(t, owner, id, map[string]any{"label": " Family ", "allowDownload": true, "favoritesOnly": false, "expiresInDays": 2})
		if pw != nil {
			t.Fatalf("password = %v", pw)
		}
		token := sh["token"].(string)
		want := map[string]any{
			"url": h.srv.URL + "/g/" + token, "label": "Family", "hasPassword": false, "allowDownload": true,
			"favoritesOnly": false, "createdAt": float64(h.clock.Now().UnixMilli()), "expired": false,
			"expiresAt": float64(h.clock.Now().Add(48 * time.Hour).UnixMilli()),
		}
		for k, v := range want {
			if sh[k] != v {
				t.Errorf("%s = %v, want %v", k, sh[k], v)
			}
		}
		if len(token) < 40 || sh["id"] == "" {
			t.Fatalf("share = %v", sh)
		}
	})
	var generated string
	t.Run("password true makes one, answered and listed again for the hosts, never its hash", func(t *testing.T) {
		h.clock.Advance(time.Second)
		sh, pw := createShare(t, owner, id, map[string]any{"password": true})
		generated, _ = pw.(string)
		if len(generated) < 16 || sh["hasPassword"] != true {
			t.Fatalf("share %v, password %v", sh, pw)
		}
		if sh["allowDownload"] != false || sh["favoritesOnly"] != true || sh["expiresAt"] != nil || sh["label"] != nil {
			t.Fatalf("defaults from the event not applied: %v", sh)
		}
		list := owner.do("GET", base, nil).expect(t, 200, "")
		if strings.Contains(string(list.Body), "$2a$") {
			t.Fatalf("the list carries the password's hash: %s", list.Body)
		}
		if list.JSON["shares"].([]any)[0].(map[string]any)["password"] != generated {
			t.Fatalf("the list does not give the hosts the password the box made again: %s", list.Body)
		}
		shares := list.JSON["shares"].([]any)
		if len(shares) != 2 || shares[0].(map[string]any)["id"] != sh["id"] {
			t.Fatalf("list is not newest first: %s", list.Body)
		}
		for _, k := range []string{"id", "token", "url", "label", "hasPassword", "allowDownload", "favoritesOnly", "expiresAt", "createdAt"} {
			if _, ok := shares[0].(map[string]any)[k]; !ok {
				t.Errorf("a listed share lacks %s", k)
			}
		}
	})
	bad := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"a password under 4 characters is refused", map[string]any{"password": "abc"}, "password"},
		{"an empty password is refused", map[string]any{"password": ""}, "password"},
		{"a password over 72 bytes is refused", map[string]any{"password": strings.Repeat("é", 37)}, "password"},
		{"a password must be a string or true", map[string]any{"password": 1234}, "password"},
		{"expiresInDays starts at 1", map[string]any{"expiresInDays": 0}, "expiresInDays"},
		{"expiresInDays ends at 3650", map[string]any{"expiresInDays": 3651}, "expiresInDays"},
		{"a label over 80 characters is refused", map[string]any{"label": strings.Repeat("x", 81)}, "label"},
		{"an unknown field is refused", map[string]any{"downloads": true}, "downloads"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("POST", base, tt.body).expect(t, 400, "bad_request")
			if _, ok := r.details()[tt.field]; !ok {
				t.Fatalf("details = %v", r.details())
			}
		})
	}
	t.Run("a chosen password works and null means none", func(t *testing.T) {
		sh, pw := createShare(t, owner, id, map[string]any{"password": "tulips 2026"})
		if pw != nil || sh["hasPassword"] != true {
			t.Fatalf("share %v, password %v", sh, pw)
		}
		sh, _ = createShare(t, owner, id, map[string]any{"password": nil, "label": nil, "expiresInDays": nil})
		if sh["hasPassword"] != false {
			t.Fatalf("share %v", sh)
		}
	})
	t.Run("revoking removes the link; revoking again is not found", func(t *testing.T) {
		sh, _ := createShare(t, owner, id, map[string]any{})
		owner.do("DELETE", base+"/"+sh["id"].(string), nil).expect(t, 200, "")
		owner.do("DELETE", base+"/"+sh["id"].(string), nil).expect(t, 404, "not_found")
		h.client().do("GET", "/api/g/"+sh["token"].(string), nil).expect(t, 404, "not_found")
		other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
		kept, _ := createShare(t, owner, id, map[string]any{})
		owner.do("DELETE", "/api/admin/events/"+other+"/shares/"+kept["id"].(string), nil).expect(t, 404, "not_found")
		owner.do("DELETE", base+"/not-an-id", nil).expect(t, 404, "not_found")
	})
	t.Run("an event has at most 100 links", func(t *testing.T) {
		n := len(owner.do("GET", base, nil).JSON["shares"].([]any))
		for ; n < 100; n++ {
			createShare(t, owner, id, map[string]any{})
		}
		owner.do("POST", base, map[string]any{}).expect(t, 400, "bad_request")
	})
}

func TestGalleryViewing(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Ana & Ben", "eventDate": "2026-06-20", "accentColor": "#aa3366",
		"challenges": []string{"Cake"}, "accessCode": "tulips"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	cake := ev["challenges"].([]any)[0].(map[string]any)["id"].(string)
	g := h.client()
	g.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "tulips"}).expect(t, 200, "")
	visible := uploadID(t, g, slug, 1, map[string]string{"challenge": cake}, "")
	favorite := uploadID(t, g, slug, 2, nil, "")
	hidden := uploadID(t, g, slug, 3, nil, "")
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "hide", "ids": []string{hidden}}).expect(t, 200, "")
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "favorite", "ids": []string{favorite}}).expect(t, 200, "")
	waitVariants(t, h)

	open, _ := createShare(t, owner, id, map[string]any{"allowDownload": false})
	locked, password := createShare(t, owner, id, map[string]any{"password": true, "allowDownload": true, "label": "Family", "expiresInDays": 1})
	favs, _ := createShare(t, owner, id, map[string]any{"favoritesOnly": true, "allowDownload": true})
	openURL, lockedURL, favsURL := "/api/g/"+open["token"].(string), "/api/g/"+locked["token"].(string), "/api/g/"+favs["token"].(string)

	t.Run("an open link shows the event and counts as unlocked", func(t *testing.T) {
		c := h.client()
		r := c.do("GET", openURL, nil).expect(t, 200, "")
		share, event := r.JSON["share"].(map[string]any), r.JSON["event"].(map[string]any)
		wantShare := map[string]any{"label": nil, "allowDownload": false, "favoritesOnly": false, "needsPassword": false, "unlocked": true, "expiresAt": nil}
		for k, v := range wantShare {
			if got, ok := share[k]; !ok || got != v {
				t.Errorf("share.%s = %v, want %v", k, got, v)
			}
		}
		wantEvent := map[string]any{"name": "Ana & Ben", "eventDate": "2026-06-20", "accentColor": "#aa3366", "logoVersion": nil, "guestbook": false}
		for k, v := range wantEvent {
			if got, ok := event[k]; !ok || got != v {
				t.Errorf("event.%s = %v, want %v", k, got, v)
			}
		}
		if strings.Contains(string(r.Body), "tulips") || strings.Contains(string(r.Body), slug) {
			t.Fatalf("the gallery leaks the access code or the slug: %s", r.Body)
		}
		cookie := r.Header.Get("Set-Cookie")
		if !strings.HasPrefix(cookie, "gr_share=") || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") || !strings.Contains(cookie, "Path=/") {
			t.Fatalf("Set-Cookie = %q", cookie)
		}
		ids := photoIDs(t, c.do("GET", openURL+"/photos", nil).expect(t, 200, ""))
		if fmt.Sprint(ids) != fmt.Sprint([]string{favorite, visible}) {
			t.Fatalf("photos = %v", ids)
		}
		c.do("GET", "/api/media/"+visible+"?v=display", nil).expect(t, 200, "")
		c.do("GET", "/api/media/"+hidden+"?v=display", nil).expect(t, 404, "not_found")
	})
	t.Run("a gallery photo carries no admin fields", func(t *testing.T) {
		r := h.client().do("GET", openURL+"/photos", nil).expect(t, 200, "")
		p := photoByID(t, r, favorite)
		for _, k := range []string{"downloads", "favorite"} {
			if _, ok := p[k]; ok {
				t.Errorf("a gallery viewer sees %s: %v", k, p)
			}
		}
	})
	t.Run("the challenge filter narrows the photos", func(t *testing.T) {
		ids := photoIDs(t, h.client().do("GET", openURL+"/photos?challenge="+cake, nil).expect(t, 200, ""))
		if fmt.Sprint(ids) != fmt.Sprint([]string{visible}) {
			t.Fatalf("photos = %v", ids)
		}
		h.client().do("GET", openURL+"/photos?challenge=x", nil).expect(t, 400, "bad_request")
	})
	t.Run("favorites=1 keeps the hosts' favorites and spot= narrows to a place listed with the event", func(t *testing.T) {
		ids := photoIDs(t, h.client().do("GET", openURL+"/photos?favorites=1", nil).expect(t, 200, ""))
		if fmt.Sprint(ids) != fmt.Sprint([]string{favorite}) {
			t.Fatalf("favorites = %v", ids)
		}
		spot := owner.do("POST", "/api/admin/events/"+id+"/spots", map[string]any{"label": "Garden"}).expect(t, 201, "").JSON["spot"].(map[string]any)["id"].(string)
		spots := h.client().do("GET", openURL, nil).expect(t, 200, "").JSON["event"].(map[string]any)["spots"]
		if fmt.Sprint(spots) != fmt.Sprint([]any{map[string]any{"id": spot, "label": "Garden"}}) {
			t.Fatalf("spots = %v", spots)
		}
		if ids := photoIDs(t, h.client().do("GET", openURL+"/photos?spot="+spot, nil).expect(t, 200, "")); len(ids) != 0 {
			t.Fatalf("photos at an empty place = %v", ids)
		}
		h.client().do("GET", openURL+"/photos?spot=x", nil).expect(t, 400, "bad_request")
		h.client().do("GET", openURL+"/logo", nil).expect(t, 404, "not_found")
		h.client().do("GET", "/api/g/nope/logo", nil).expect(t, 404, "not_found")
	})
	t.Run("the listing alone also lets the browser see the media", func(t *testing.T) {
		c := h.client()
		c.do("GET", "/api/media/"+visible+"?v=thumb", nil).expect(t, 404, "not_found")
		c.do("GET", openURL+"/photos", nil).expect(t, 200, "")
		c.do("GET", "/api/media/"+visible+"?v=thumb", nil).expect(t, 200, "")
	})
	t.Run("a link without downloads refuses originals and the archive", func(t *testing.T) {
		c := h.client()
		c.do("GET", openURL, nil).expect(t, 200, "")
		c.do("GET", "/api/media/"+visible+"?v=original&download=1", nil).expect(t, 403, "forbidden")
		c.do("GET", openURL+"/archive", nil).expect(t, 403, "forbidden")
	})
	t.Run("a favorites link shows favorites only", func(t *testing.T) {
		c := h.client()
		ids := photoIDs(t, c.do("GET", favsURL+"/photos", nil).expect(t, 200, ""))
		if fmt.Sprint(ids) != fmt.Sprint([]string{favorite}) {
			t.Fatalf("photos = %v", ids)
		}
		c.do("GET", "/api/media/"+favorite+"?v=original", nil).expect(t, 200, "")
		c.do("GET", "/api/media/"+visible+"?v=thumb", nil).expect(t, 404, "not_found")
	})
	t.Run("a password link is closed until unlocked", func(t *testing.T) {
		c := h.client()
		r := c.do("GET", lockedURL, nil).expect(t, 200, "")
		share := r.JSON["share"].(map[string]any)
		if share["needsPassword"] != true || share["unlocked"] != false || share["label"] != "Family" || share["allowDownload"] != true || share["expiresAt"] == nil {
			t.Fatalf("share = %v", share)
		}
		if r.Header.Get("Set-Cookie") != "" {
			t.Fatalf("a locked link set a cookie: %q", r.Header.Get("Set-Cookie"))
		}
		c.do("GET", lockedURL+"/photos", nil).expect(t, 403, "forbidden")
		c.do("GET", lockedURL+"/archive", nil).expect(t, 403, "forbidden")
		c.do("GET", "/api/media/"+visible+"?v=thumb", nil).expect(t, 404, "not_found")
		c.do("POST", lockedURL+"/unlock", map[string]any{"password": "wrong-password"}).expect(t, 401, "invalid_code")
		c.do("POST", lockedURL+"/unlock", map[string]any{"password": strings.ToUpper(password.(string))}).expect(t, 401, "invalid_code")
		c.do("POST", lockedURL+"/unlock", map[string]any{"password": password}).expect(t, 200, "")
		if s := c.do("GET", lockedURL, nil).JSON["share"].(map[string]any); s["unlocked"] != true {
			t.Fatalf("share after unlock = %v", s)
		}
		if ids := photoIDs(t, c.do("GET", lockedURL+"/photos", nil).expect(t, 200, "")); len(ids) != 2 {
			t.Fatalf("photos = %v", ids)
		}
		c.do("GET", "/api/media/"+visible+"?v=original", nil).expect(t, 200, "")
	})
	t.Run("unlocking an open link is allowed", func(t *testing.T) {
		c := h.client()
		c.do("POST", openURL+"/unlock", map[string]any{}).expect(t, 200, "")
		c.do("GET", "/api/media/"+visible+"?v=thumb", nil).expect(t, 200, "")
	})
	t.Run("a forged cookie opens nothing", func(t *testing.T) {
		c := h.client()
		c.do("GET", lockedURL+"/photos", nil, "Cookie", "gr_share=eyJ4Ijp7fX0.AAAA").expect(t, 403, "forbidden")
	})
	t.Run("unknown tokens are not found", func(t *testing.T) {
		for _, path := range []string{"/api/g/nope", "/api/g/nope/photos", "/api/g/" + strings.Repeat("a", 200)} {
			h.client().do("GET", path, nil).expect(t, 404, "not_found")
		}
		h.client().do("POST", "/api/g/nope/unlock", map[string]any{"password": "x"}).expect(t, 404, "not_found")
	})
	t.Run("an expired link is not found, nor are its photos", func(t *testing.T) {
		c := h.client()
		c.do("POST", lockedURL+"/unlock", map[string]any{"password": password}).expect(t, 200, "")
		h.clock.Advance(25 * time.Hour)
		c.do("GET", lockedURL, nil).expect(t, 404, "not_found")
		c.do("GET", lockedURL+"/photos", nil).expect(t, 404, "not_found")
		c.do("GET", lockedURL+"/archive", nil).expect(t, 404, "not_found")
		c.do("GET", "/api/media/"+visible+"?v=thumb", nil).expect(t, 404, "not_found")
		if s := owner.do("GET", "/api/admin/events/"+id+"/shares", nil).JSON["shares"].([]any); len(s) != 3 {
			t.Fatalf("the hosts no longer see the expired link: %v", s)
		}
	})
	t.Run("a revoked link is not found, nor are its photos", func(t *testing.T) {
		c := h.client()
		c.do("GET", openURL+"/photos", nil).expect(t, 200, "")
		owner.do("DELETE", "/api/admin/events/"+id+"/shares/"+open["id"].(string), nil).expect(t, 200, "")
		c.do("GET", openURL, nil).expect(t, 404, "not_found")
		c.do("GET", openURL+"/photos", nil).expect(t, 404, "not_found")
		c.do("GET", "/api/media/"+visible+"?v=thumb", nil).expect(t, 404, "not_found")
	})
	t.Run("deleting the event ends its links", func(t *testing.T) {
		owner.do("DELETE", "/api/admin/events/"+id, nil).expect(t, 200, "")
		h.client().do("GET", favsURL, nil).expect(t, 404, "not_found")
	})
}

func TestGalleryUnlockRateLimit(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "P"})["id"].(string)
	sh, _ := createShare(t, owner, id, map[string]any{"password": "lilies and roses"})
	path := "/api/g/" + sh["token"].(string) + "/unlock"
	c := h.client()
	for i := 0; i < 10; i++ {
		c.do("POST", path, map[string]any{"password": "nope"}).expect(t, 401, "invalid_code")
	}
	r := c.do("POST", path, map[string]any{"password": "lilies and roses"}).expect(t, 429, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	h.clock.Advance(time.Minute)
	c.do("POST", path, map[string]any{"password": "lilies and roses"}).expect(t, 200, "")
	t.Run("the unlock needs the same origin like every POST", func(t *testing.T) {
		c := h.client()
		c.origin = "http://evil.example"
		c.do("POST", path, map[string]any{"password": "lilies and roses"}).expect(t, http.StatusForbidden, "forbidden")
	})
}

func TestGalleryGuestbook(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	g.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana"}).expect(t, 200, "")
	var ids []string
	for _, text := range []string{"Congratulations!", "Hidden one", "Lovely day"} {
		r := g.postMessage(slug, text, nil, "").expect(t, 201, "")
		ids = append(ids, r.JSON["message"].(map[string]any)["id"].(string))
		h.clock.Advance(time.Second)
	}
	owner.do("POST", "/api/admin/events/"+id+"/messages", map[string]any{"action": "hide", "ids": []string{ids[1]}}).expect(t, 200, "")
	open, _ := createShare(t, owner, id, map[string]any{})
	locked, password := createShare(t, owner, id, map[string]any{"password": true})
	openURL, lockedURL := "/api/g/"+open["token"].(string), "/api/g/"+locked["token"].(string)
	viewer := h.client()

	t.Run("the guestbook is closed while the hosts do not share it", func(t *testing.T) {
		if gb := viewer.do("GET", openURL, nil).JSON["event"].(map[string]any)["guestbook"]; gb != false {
			t.Fatalf("guestbook = %v", gb)
		}
		viewer.do("GET", openURL+"/messages", nil).expect(t, 403, "forbidden")
	})
	owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"guestbookInGallery": true}).expect(t, 200, "")
	t.Run("shared, it lists the visible messages newest first", func(t *testing.T) {
		if gb := viewer.do("GET", openURL, nil).JSON["event"].(map[string]any)["guestbook"]; gb != true {
			t.Fatalf("guestbook = %v", gb)
		}
		r := viewer.do("GET", openURL+"/messages", nil).expect(t, 200, "")
		msgs := r.JSON["messages"].([]any)
		if len(msgs) != 2 || r.JSON["nextCursor"] != nil {
			t.Fatalf("messages = %s", r.Body)
		}
		first := msgs[0].(map[string]any)
		if first["text"] != "Lovely day" || first["guestName"] != "Ana" || first["mine"] != false || msgs[1].(map[string]any)["text"] != "Congratulations!" {
			t.Fatalf("messages = %s", r.Body)
		}
		before := fmt.Sprintf("%.0f", first["createdAt"].(float64))
		older := viewer.do("GET", openURL+"/messages?before="+before, nil).expect(t, 200, "").JSON["messages"].([]any)
		if len(older) != 1 {
			t.Fatalf("before= gives %v", older)
		}
	})
	t.Run("a password link keeps its guestbook closed until unlocked", func(t *testing.T) {
		c := h.client()
		c.do("GET", lockedURL+"/messages", nil).expect(t, 403, "forbidden")
		c.do("POST", lockedURL+"/unlock", map[string]any{"password": password}).expect(t, 200, "")
		c.do("GET", lockedURL+"/messages", nil).expect(t, 200, "")
	})
}

func TestGalleryTokensStayOutOfTheLog(t *testing.T) {
	logs := &logBuffer{}
	h := newHarness(t, func(c *daemon.Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "P"})["id"].(string)
	sh, _ := createShare(t, owner, id, map[string]any{"password": "sunflowers"})
	token := sh["token"].(string)
	c := h.client()
	c.do("GET", "/api/g/"+token, nil).expect(t, 200, "")
	c.do("POST", "/api/g/"+token+"/unlock", map[string]any{"password": "sunflowers"}).expect(t, 200, "")
	c.do("GET", "/api/g/"+token+"/photos", nil).expect(t, 200, "")
	out := logs.String()
	if !strings.Contains(out, "/api/g/…/photos") {
		t.Fatalf("the gallery requests are not logged:\n%s", out)
	}
	if strings.Contains(out, token) || strings.Contains(out, "sunflowers") {
		t.Fatalf("a token or password reached the log:\n%s", out)
	}
}
