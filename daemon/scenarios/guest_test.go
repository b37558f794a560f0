package scenarios_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/store"
)

func TestPublicEventAndJoining(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	open := h.createEvent(owner, map[string]any{"name": "Open party", "challenges": []string{"Cake"}})
	locked := h.createEvent(owner, map[string]any{"name": "Private", "accessCode": "Tulips"})
	openSlug, lockedSlug := open["slug"].(string), locked["slug"].(string)

	t.Run("the public event hides the access code", func(t *testing.T) {
		r := h.client().do("GET", "/api/e/"+lockedSlug, nil).expect(t, 200, "")
		ev := r.JSON["event"].(map[string]any)
		if ev["needsCode"] != true || ev["name"] != "Private" {
			t.Fatalf("event = %v", ev)
		}
		if strings.Contains(strings.ToLower(string(r.Body)), "tulips") {
			t.Fatalf("the access code leaks: %s", r.Body)
		}
		for _, k := range []string{"slug", "description", "eventDate", "accentColor", "uploadsOpen", "uploadsCloseAt", "captureMode",
			"askGuestName", "maxPhotosPerGuest", "defaultLocale", "collectGuestEmails", "guestbookEnabled", "guestbookVoice",
			"allowVideos", "albumShared", "challenges", "frame", "captureFilters", "logoVersion", "ended"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("public event lacks %s", k)
			}
		}
		limits, _ := ev["limits"].(map[string]any)
		want := daemon.DefaultConfig()
		if limits["imageBytes"] != float64(want.MaxUploadMB<<20) || limits["videoBytes"] != float64(want.MaxVideoMB<<20) ||
			limits["videoSeconds"] != float64(want.MaxVideoSeconds) {
			t.Errorf("limits = %v; want the box's MAX_UPLOAD_MB, MAX_VIDEO_MB and MAX_VIDEO_SECONDS", ev["limits"])
		}
		if g := r.JSON["guest"].(map[string]any); g["joined"] != false {
			t.Errorf("guest = %v", g)
		}
	})
	tests := []struct {
		name       string
		path       string
		body       any
		wantStatus int
		wantCode   string
	}{
		{"an unknown slug is not found", "/api/e/zzzzzz/join", nil, 404, "not_found"},
		{"join works without a code", "/api/e/" + openSlug + "/join", nil, 200, ""},
		{"join is refused when the event has a code", "/api/e/" + lockedSlug + "/join", nil, 403, "forbidden"},
		{"a wrong code is invalid_code", "/api/e/" + lockedSlug + "/unlock", map[string]any{"code": "roses"}, 401, "invalid_code"},
		{"the code ignores case and spaces", "/api/e/" + lockedSlug + "/unlock", map[string]any{"code": " tulips "}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.client().do("POST", tt.path, tt.body).expect(t, tt.wantStatus, tt.wantCode)
		})
	}
	t.Run("a guest that has not joined is forbidden everywhere", func(t *testing.T) {
		c := h.client()
		c.do("GET", "/api/e/"+openSlug+"/photos", nil).expect(t, 403, "forbidden")
		c.do("POST", "/api/e/"+openSlug+"/guest", map[string]any{"name": "Ana"}).expect(t, 403, "forbidden")
		c.upload(openSlug, photoJPEG(t, 32, 32, 0, false, 1), nil, "").expect(t, 403, "forbidden")
		c.do("DELETE", "/api/e/"+openSlug+"/contact", nil).expect(t, 403, "forbidden")
	})
	t.Run("the name is 1 to 60 characters and shows in the public event", func(t *testing.T) {
		c := h.guest(openSlug)
		c.do("POST", "/api/e/"+openSlug+"/guest", map[string]any{"name": "  "}).expect(t, 400, "bad_request")
		c.do("POST", "/api/e/"+openSlug+"/guest", map[string]any{"name": strings.Repeat("a", 61)}).expect(t, 400, "bad_request")
		r := c.do("POST", "/api/e/"+openSlug+"/guest", map[string]any{"name": "  Ana   María "}).expect(t, 200, "")
		if r.JSON["name"] != "Ana María" {
			t.Fatalf("name = %v", r.JSON["name"])
		}
		g := c.do("GET", "/api/e/"+openSlug, nil).JSON["guest"].(map[string]any)
		if g["joined"] != true || g["name"] != "Ana María" {
			t.Fatalf("guest = %v", g)
		}
	})
	t.Run("rotating the slug keeps joined guests in", func(t *testing.T) {
		c := h.guest(openSlug)
		r := owner.do("POST", "/api/admin/events/"+open["id"].(string)+"/rotate", nil).expect(t, 200, "")
		newSlug := r.JSON["event"].(map[string]any)["slug"].(string)
		c.do("GET", "/api/e/"+openSlug, nil).expect(t, 404, "not_found")
		g := c.do("GET", "/api/e/"+newSlug, nil).JSON["guest"].(map[string]any)
		if g["joined"] != true {
			t.Fatalf("guest after rotate = %v", g)
		}
		c.do("GET", "/api/e/"+newSlug+"/photos", nil).expect(t, 200, "")
	})
}

func TestUnlockRateLimit(t *testing.T) {
	h := newHarness(t)
	slug := h.createEvent(h.owner(), map[string]any{"name": "P", "accessCode": "secret"})["slug"].(string)
	c := h.client()
	for i := 0; i < 10; i++ {
		c.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "nope"}).expect(t, 401, "invalid_code")
	}
	r := c.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "secret"}).expect(t, 429, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	h.clock.Advance(time.Minute)
	c.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "secret"}).expect(t, 200, "")
}

func TestContact(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	slug := ev["slug"].(string)
	g := h.guest(slug)
	g.do("POST", "/api/e/"+slug+"/contact", map[string]any{"email": "ana@example.com"}).expect(t, 403, "forbidden")
	owner.do("PATCH", "/api/admin/events/"+ev["id"].(string), map[string]any{"collectGuestEmails": true}).expect(t, 200, "")
	g.do("POST", "/api/e/"+slug+"/contact", map[string]any{"email": "not mail"}).expect(t, 400, "bad_request")
	r := g.do("POST", "/api/e/"+slug+"/contact", map[string]any{"email": "ana@example.com"}).expect(t, 200, "")
	if r.JSON["email"] != "ana@example.com" {
		t.Fatalf("answer = %v", r.JSON)
	}
	contacts, _ := h.st.Guests().Contacts(context.Background(), ev["id"].(string))
	if len(contacts) != 1 {
		t.Fatalf("contacts = %v", contacts)
	}
	g.do("DELETE", "/api/e/"+slug+"/contact", nil).expect(t, 200, "")
	contacts, _ = h.st.Guests().Contacts(context.Background(), ev["id"].(string))
	if len(contacts) != 0 {
		t.Fatalf("contacts after delete = %v", contacts)
	}
}

func TestUploadGates(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) { c.MaxUploadMB = 1 })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "maxPhotosPerGuest": 2})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	jpg := photoJPEG(t, 64, 48, 0, false, 1)
	truncated := jpg[:len(jpg)/2]
	corrupt := append([]byte{}, jpg...)
	copy(corrupt[2:], []byte("garbage garbage garbage"))
	big := make([]byte, 1<<20+10)
	copy(big, jpg)

	tests := []struct {
		name       string
		data       []byte
		wantStatus int
		wantCode   string
	}{
		{"a text file named .jpg is not an image", []byte("hello, this is not a photo at all"), 415, "invalid_image"},
		{"a truncated JPEG is refused", truncated, 415, "invalid_image"},
		{"a corrupt JPEG is refused", corrupt, 415, "invalid_image"},
		{"a body over MAX_UPLOAD_MB is too large", big, 413, "too_large"},
		{"a JPEG is taken", jpg, 201, ""},
		{"a PNG with alpha is taken", pngWithAlpha(t), 201, ""},
		{"past the quota the guest is told", gifImage(t), 403, "quota_reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g.upload(slug, tt.data, nil, "").expect(t, tt.wantStatus, tt.wantCode)
		})
	}
	t.Run("uploads off closes uploads before the quota", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"uploadsOpen": false}).expect(t, 200, "")
		g.upload(slug, jpg, nil, "").expect(t, 403, "uploads_closed")
		h.guest(slug).upload(slug, jpg, nil, "").expect(t, 403, "uploads_closed")
	})
	t.Run("past uploadsCloseAt uploads are closed", func(t *testing.T) {
		closeAt := h.clock.Now().Add(time.Hour).UnixMilli()
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"uploadsOpen": true, "uploadsCloseAt": closeAt, "maxPhotosPerGuest": 0}).expect(t, 200, "")
		g2 := h.guest(slug)
		g2.upload(slug, gifImage(t), nil, "").expect(t, 201, "")
		h.clock.Advance(2 * time.Hour)
		g2.upload(slug, photoJPEG(t, 20, 20, 0, false, 9), nil, "").expect(t, 403, "uploads_closed")
		if pub := g2.do("GET", "/api/e/"+slug, nil).JSON["event"].(map[string]any); pub["uploadsOpen"] != false {
			t.Errorf("public uploadsOpen = %v after the closing time", pub["uploadsOpen"])
		}
	})
	t.Run("refused uploads leave no file behind", func(t *testing.T) {
		waitVariants(t, h)
		if n := countFiles(t, h.cfg.DataDir+"/tmp"); n != 0 {
			t.Fatalf("%d files in the temp area", n)
		}
		counts, _ := h.st.Events().Counts(context.Background(), id)
		if n := countFiles(t, h.cfg.DataDir+"/media/"+id, ".orig"); n != counts.Photos {
			t.Fatalf("%d originals for %d photos", n, counts.Photos)
		}
	})
}

func TestUploadRecords(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "challenges": []string{"Cake"}})
	other := h.createEvent(owner, map[string]any{"name": "Other"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	chal := ev["challenges"].([]any)[0].(map[string]any)["id"].(string)
	spot := store.Spot{EventID: id, Label: "Bar"}
	foreignSpot := store.Spot{EventID: other["id"].(string), Label: "Garden"}
	for _, sp := range []*store.Spot{&spot, &foreignSpot} {
		if err := h.st.Spots().Create(context.Background(), sp); err != nil {
			t.Fatal(err)
		}
	}
	g := h.guest(slug)
	g.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana"}).expect(t, 200, "")

	t.Run("an upload answers the photo as displayed", func(t *testing.T) {
		r := g.upload(slug, photoJPEG(t, 64, 48, 6, true, 1), map[string]string{"challenge": chal}, "?at="+spot.ID).expect(t, 201, "")
		p := r.JSON["photo"].(map[string]any)
		if p["width"] != float64(48) || p["height"] != float64(64) {
			t.Errorf("size %v×%v, want 48×64 (orientation 6 turns it)", p["width"], p["height"])
		}
		if p["status"] != "visible" || p["mine"] != true || p["guestName"] != "Ana" || p["challengeId"] != chal {
			t.Errorf("photo = %v", p)
		}
		if _, ok := p["downloads"]; ok {
			t.Error("a guest sees admin-only fields")
		}
		stored, _ := h.st.Photos().Get(context.Background(), p["id"].(string))
		if stored.SpotID != spot.ID {
			t.Errorf("spot = %q, want %q", stored.SpotID, spot.ID)
		}
	})
	t.Run("an unknown challenge and another event's spot are ignored", func(t *testing.T) {
		r := g.upload(slug, photoJPEG(t, 30, 30, 0, false, 2), map[string]string{"challenge": "nosuchchallenge1"}, "?at="+foreignSpot.ID).expect(t, 201, "")
		p := r.JSON["photo"].(map[string]any)
		if p["challengeId"] != nil {
			t.Errorf("challengeId = %v", p["challengeId"])
		}
		stored, _ := h.st.Photos().Get(context.Background(), p["id"].(string))
		if stored.SpotID != "" {
			t.Errorf("spot = %q, want none", stored.SpotID)
		}
	})
	t.Run("a retry of the same bytes answers the same photo with 200", func(t *testing.T) {
		data := photoJPEG(t, 40, 40, 0, false, 3)
		first := g.upload(slug, data, nil, "").expect(t, 201, "")
		again := g.upload(slug, data, nil, "").expect(t, 200, "")
		if first.JSON["photo"].(map[string]any)["id"] != again.JSON["photo"].(map[string]any)["id"] {
			t.Fatal("the retry made a second photo")
		}
		// Another guest sending the same bytes makes their own photo.
		h.guest(slug).upload(slug, data, nil, "").expect(t, 201, "")
	})
	t.Run("under pre-moderation uploads wait", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"moderation": "pre"}).expect(t, 200, "")
		r := g.upload(slug, photoJPEG(t, 30, 30, 0, false, 4), nil, "").expect(t, 201, "")
		if s := r.JSON["photo"].(map[string]any)["status"]; s != "pending" {
			t.Fatalf("status = %v", s)
		}
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"moderation": "post"}).expect(t, 200, "")
	})
	t.Run("createdAt is unique within the event", func(t *testing.T) {
		page, _ := h.st.Photos().List(context.Background(), store.PhotoQuery{EventID: id, Limit: 100})
		seen := map[int64]bool{}
		for _, p := range page.Items {
			if seen[p.CreatedAt] {
				t.Fatalf("createdAt %d repeats", p.CreatedAt)
			}
			seen[p.CreatedAt] = true
		}
	})
}

func TestGuestListingAndDelete(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	me, other := h.guest(slug), h.guest(slug)
	// The clock stands still, so createdAt values are neighbours moved by
	// 1 ms: paging must still be exact.
	for i := 0; i < 65; i++ {
		me.upload(slug, photoJPEG(t, 16, 16, 0, false, 100+i), nil, "").expect(t, 201, "")
	}
	hidden := other.upload(slug, photoJPEG(t, 16, 16, 0, false, 1), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	other.upload(slug, photoJPEG(t, 16, 16, 0, false, 2), nil, "").expect(t, 201, "")
	if _, err := h.st.Photos().Update(context.Background(), id, []string{hidden}, func(p *store.Photo) bool { p.Status = store.StatusHidden; return true }); err != nil {
		t.Fatal(err)
	}
	walk := func(t *testing.T, c *client, query string) []map[string]any {
		var all []map[string]any
		path := "/api/e/" + slug + "/photos" + query
		for i := 0; ; i++ {
			r := c.do("GET", path, nil).expect(t, 200, "")
			for _, p := range r.JSON["photos"].([]any) {
				all = append(all, p.(map[string]any))
			}
			next := r.JSON["nextCursor"]
			if next == nil {
				return all
			}
			if i > 5 {
				t.Fatal("paging does not end")
			}
			sep := "?"
			if query != "" {
				sep = "&"
			}
			path = fmt.Sprintf("/api/e/%s/photos%s%sbefore=%d", slug, query, sep, int64(next.(float64)))
		}
	}
	t.Run("own photos page newest first without repeats", func(t *testing.T) {
		all := walk(t, me, "")
		if len(all) != 65 {
			t.Fatalf("%d photos, want 65", len(all))
		}
		for i := 1; i < len(all); i++ {
			if all[i]["createdAt"].(float64) >= all[i-1]["createdAt"].(float64) {
				t.Fatal("not newest first")
			}
		}
	})
	t.Run("scope=all adds others' visible photos", func(t *testing.T) {
		all := walk(t, me, "?scope=all")
		if len(all) != 66 {
			t.Fatalf("%d photos, want 65 own + 1 visible other", len(all))
		}
	})
	t.Run("scope=all on an album that is not shared shows only own", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"albumShared": false}).expect(t, 200, "")
		if n := len(walk(t, other, "?scope=all")); n != 2 {
			t.Fatalf("%d photos, want 2", n)
		}
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"albumShared": true}).expect(t, 200, "")
	})
	t.Run("a bad cursor is refused", func(t *testing.T) {
		me.do("GET", "/api/e/"+slug+"/photos?before=yesterday", nil).expect(t, 400, "bad_request")
	})
	t.Run("a guest deletes an own photo with its files, not another's", func(t *testing.T) {
		mine := walk(t, me, "")[0]["id"].(string)
		other.do("DELETE", "/api/e/"+slug+"/photos/"+mine, nil).expect(t, 404, "not_found")
		before := countFiles(t, h.cfg.DataDir+"/media/"+id, ".orig")
		me.do("DELETE", "/api/e/"+slug+"/photos/"+mine, nil).expect(t, 200, "")
		me.do("DELETE", "/api/e/"+slug+"/photos/"+mine, nil).expect(t, 404, "not_found")
		if after := countFiles(t, h.cfg.DataDir+"/media/"+id, ".orig"); after != before-1 {
			t.Fatalf("originals %d → %d after delete", before, after)
		}
		waitVariants(t, h)
		for _, suffix := range []string{".orig", ".thumb.jpg", ".display.jpg"} {
			if _, err := os.Stat(filepath.Join(h.cfg.DataDir, "media", id, mine+suffix)); !os.IsNotExist(err) {
				t.Errorf("%s%s remains after delete: %v", mine, suffix, err)
			}
		}
		me.do("GET", "/api/media/"+mine+"?v=original", nil).expect(t, 404, "not_found")
	})
}

func TestCaptivePortalOpensTheEvent(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	probe := func(t *testing.T) string {
		t.Helper()
		c := h.client()
		c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		r := c.do("GET", "/hotspot-detect.html", nil, "Host", "captive.apple.com")
		if r.Status != 302 {
			t.Fatalf("probe answered %d", r.Status)
		}
		if len(r.Header.Values("Set-Cookie")) > 0 {
			t.Fatal("the probe answer sets a cookie")
		}
		// The sheet opens the portal page, which names the event to open
		// in the phone's own browser (portal_test.go).
		if loc := r.Header.Get("Location"); !strings.HasSuffix(loc, "/portal") {
			t.Fatalf("the probe opens %q, want the portal page", loc)
		}
		return c.do("GET", "/api/portal", nil).expect(t, 200, "").JSON["address"].(string)
	}
	if loc := probe(t); !strings.HasSuffix(loc, "/") || strings.Contains(loc, "/e/") {
		t.Fatalf("without events the portal opens %q, want the start page", loc)
	}
	first := h.createEvent(owner, map[string]any{"name": "One"})
	if loc := probe(t); !strings.HasSuffix(loc, "/e/"+first["slug"].(string)) {
		t.Fatalf("with one open event the portal opens %q", loc)
	}
	h.createEvent(owner, map[string]any{"name": "Two"})
	if loc := probe(t); strings.Contains(loc, "/e/") {
		t.Fatalf("with two open events the portal opens %q, want the chooser", loc)
	}
}
