package scenarios_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHearts runs the hearts over the real router: one heart per guest or
// gallery browser and photo, its undo, a photo the viewer may not see, the
// gallery's password, and the live change a wall reads.
func TestHearts(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	ann, bob, outsider := h.guest(slug), h.guest(slug), h.client()
	photo := uploadID(t, ann, slug, 1, nil, "")
	other := uploadID(t, bob, slug, 2, nil, "")
	hidden := uploadID(t, bob, slug, 3, nil, "")
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "hide", "ids": []string{hidden}}).expect(t, 200, "")
	waitVariants(t, h)
	open, _ := createShare(t, owner, id, map[string]any{})
	locked, password := createShare(t, owner, id, map[string]any{"password": true})
	openURL, lockedURL := "/api/g/"+open["token"].(string), "/api/g/"+locked["token"].(string)
	visitor, stranger, unlocked := h.client(), h.client(), h.client()
	unlocked.do("POST", lockedURL+"/unlock", map[string]any{"password": password}).expect(t, 200, "")

	wall := owner.do("POST", "/api/admin/events/"+id+"/walls", map[string]any{}).expect(t, 201, "").JSON["wall"].(map[string]any)
	screen := h.client().live("/api/wall/"+strings.TrimPrefix(wall["url"].(string), h.srv.URL+"/wall/")+"/live", "")
	if screen.Status != 200 {
		t.Fatalf("wall stream answered %d", screen.Status)
	}

	heart := "/api/e/" + slug + "/photos/" + photo + "/heart"
	steps := []struct {
		name    string
		c       *client
		method  string
		path    string
		status  int
		code    string
		hearts  int
		hearted bool
	}{
		{"a guest hearts a photo", bob, "PUT", heart, 200, "", 1, true},
		{"hearting again is still one", bob, "PUT", heart, 200, "", 1, true},
		{"the undo takes it back", bob, "DELETE", heart, 200, "", 0, false},
		{"an undo without a heart changes nothing", bob, "DELETE", heart, 200, "", 0, false},
		{"bob again", bob, "PUT", heart, 200, "", 1, true},
		{"another guest makes two", ann, "PUT", heart, 200, "", 2, true},
		{"a gallery visitor makes three", visitor, "PUT", openURL + "/photos/" + photo + "/heart", 200, "", 3, true},
		{"the same browser again is still three", visitor, "PUT", openURL + "/photos/" + photo + "/heart", 200, "", 3, true},
		{"a browser through the unlocked link makes four", unlocked, "PUT", lockedURL + "/photos/" + photo + "/heart", 200, "", 4, true},
		{"a browser without the link's password is refused", stranger, "PUT", lockedURL + "/photos/" + photo + "/heart", 403, "forbidden", 0, false},
		{"a dead link is not found", stranger, "PUT", "/api/g/" + strings.Repeat("x", 43) + "/photos/" + photo + "/heart", 404, "not_found", 0, false},
		{"a visitor who has not joined is refused", outsider, "PUT", heart, 403, "forbidden", 0, false},
		{"a hidden photo is not found", ann, "PUT", "/api/e/" + slug + "/photos/" + hidden + "/heart", 404, "not_found", 0, false},
		{"a hidden photo is not found in the gallery", visitor, "PUT", openURL + "/photos/" + hidden + "/heart", 404, "not_found", 0, false},
		{"an unknown photo is not found", ann, "PUT", "/api/e/" + slug + "/photos/aaaaaaaaaaaaaaaa/heart", 404, "not_found", 0, false},
		{"the other photo", ann, "PUT", "/api/e/" + slug + "/photos/" + other + "/heart", 200, "", 1, true},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			r := s.c.do(s.method, s.path, nil).expect(t, s.status, s.code)
			if s.status != 200 {
				return
			}
			if r.JSON["hearts"] != float64(s.hearts) || r.JSON["hearted"] != s.hearted {
				t.Fatalf("answer %s, want hearts %d hearted %v", r.Body, s.hearts, s.hearted)
			}
		})
	}
	t.Run("the wall hears a heart arrive", func(t *testing.T) {
		got, _ := screen.until(t, "photo.changed", photo)
		if got.Data["hearts"] != float64(1) {
			t.Fatalf("the wall's first change of the photo = %v", got.Data)
		}
	})
	t.Run("each page asks which of its photos this guest or browser hearted", func(t *testing.T) {
		r := bob.do("GET", "/api/e/"+slug+"/hearts?ids="+photo+","+other, nil).expect(t, 200, "")
		if got := r.JSON["hearted"].([]any); len(got) != 1 || got[0] != photo {
			t.Fatalf("bob's hearts = %s", r.Body)
		}
		r = visitor.do("GET", openURL+"/hearts?ids="+photo+","+other, nil).expect(t, 200, "")
		if got := r.JSON["hearted"].([]any); len(got) != 1 || got[0] != photo {
			t.Fatalf("the visitor's hearts = %s", r.Body)
		}
		stranger.do("GET", lockedURL+"/hearts?ids="+photo, nil).expect(t, 403, "forbidden")
		bob.do("GET", "/api/e/"+slug+"/hearts?ids=nope", nil).expect(t, 400, "bad_request")
	})
	t.Run("the hosts see the count and the most loved first", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/events/"+id+"/photos?loved=1", nil).expect(t, 200, "")
		got := r.JSON["photos"].([]any)
		if len(got) != 2 || got[0].(map[string]any)["id"] != photo || got[0].(map[string]any)["hearts"] != float64(4) ||
			got[1].(map[string]any)["id"] != other || got[1].(map[string]any)["hearts"] != float64(1) {
			t.Fatalf("most loved = %s", r.Body)
		}
		owner.do("GET", "/api/admin/events/"+id+"/album?order=most", nil).expect(t, 400, "bad_request")
		r = visitor.do("GET", openURL+"/photos?order=loved", nil).expect(t, 200, "")
		got = r.JSON["photos"].([]any)
		if len(got) != 2 || got[0].(map[string]any)["id"] != photo || got[1].(map[string]any)["id"] != other {
			t.Fatalf("the gallery's most loved = %s", r.Body)
		}
	})
	t.Run("deleting a photo takes its hearts", func(t *testing.T) {
		ann.do("DELETE", "/api/e/"+slug+"/photos/"+photo, nil).expect(t, 200, "")
		r := owner.do("GET", "/api/admin/events/"+id+"/photos?loved=1", nil).expect(t, 200, "")
		if got := r.JSON["photos"].([]any); len(got) != 1 || got[0].(map[string]any)["id"] != other {
			t.Fatalf("most loved after a delete = %s", r.Body)
		}
		if n, _ := h.st.Hearts().Count(t.Context(), photo); n != 0 {
			t.Fatalf("%d hearts left of a deleted photo", n)
		}
	})
}

// TestHeartsAreRateLimited: hearts and their undo count against one
// per-address budget, like the other guest writes.
func TestHeartsAreRateLimited(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	slug := ev["slug"].(string)
	g := h.guest(slug)
	heart := "/api/e/" + slug + "/photos/" + uploadID(t, g, slug, 1, nil, "") + "/heart"
	for i := range 120 {
		method := http.MethodPut
		if i%2 == 1 {
			method = http.MethodDelete
		}
		g.do(method, heart, nil).expect(t, 200, "")
	}
	r := g.do("PUT", heart, nil).expect(t, 429, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	h.clock.Advance(time.Minute)
	g.do("PUT", heart, nil).expect(t, 200, "")
}

// TestHeartsFollowTheReveal: hearts follow the album's rule for photos,
// the one GET /api/media/:id follows (issue 39, finding 7). Before the
// event's revealAt a guest who knows another guest's photo id could
// heart it (200 and its count) while the photo itself answered 404, and
// the change reached the consoles. Now a photo the guest may not see
// answers 404 to its heart and its undo, is not among the guest's hearts,
// and nothing is changed or told; the guest's own photo stays hers to
// heart; at the reveal the album's photos open to hearts.
func TestHeartsFollowTheReveal(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Surprise", "albumShared": true})
	id, slug := ev["id"].(string), ev["slug"].(string)
	ana, ben := h.guest(slug), h.guest(slug)
	anas := uploadID(t, ana, slug, 1, nil, "")
	bens := uploadID(t, ben, slug, 2, nil, "")
	last := uploadID(t, ben, slug, 3, nil, "") // Ben's, hearted last: the consoles' marker
	waitVariants(t, h)
	// Ben hearted Ana's photo while the album was open; then the hosts
	// hold it back until the reveal.
	ben.do("PUT", "/api/e/"+slug+"/photos/"+anas+"/heart", nil).expect(t, 200, "")
	reveal := h.clock.Now().Add(2 * time.Hour).UnixMilli()
	owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"revealAt": reveal}).expect(t, 200, "")
	console := owner.live("/api/admin/events/"+id+"/live", "")
	if console.Status != 200 {
		t.Fatalf("console stream answered %d", console.Status)
	}
	console.until(t, "counts", "")

	heart := func(photo string) string { return "/api/e/" + slug + "/photos/" + photo + "/heart" }
	hearted := func(c *client) []any {
		return c.do("GET", "/api/e/"+slug+"/hearts?ids="+anas+","+bens+","+last, nil).expect(t, 200, "").JSON["hearted"].([]any)
	}
	ben.do("GET", "/api/media/"+anas+"?v=thumb", nil).expect(t, 404, "not_found") // the rule hearts follow
	before := []struct {
		name   string
		c      *client
		method string
		photo  string
		status int
	}{
		{"another guest's photo cannot be hearted", ana, "PUT", bens, 404},
		{"nor its heart taken back", ben, "DELETE", anas, 404},
		{"nor given again", ben, "PUT", anas, 404},
		{"a guest's own photo can", ben, "PUT", last, 200},
	}
	for _, s := range before {
		t.Run("before the reveal "+s.name, func(t *testing.T) {
			r := s.c.do(s.method, heart(s.photo), nil)
			if s.status != 200 {
				r.expect(t, s.status, "not_found")
				return
			}
			if r.expect(t, 200, ""); r.JSON["hearts"] != float64(1) {
				t.Fatalf("answer %s, want 1 heart", r.Body)
			}
		})
	}
	t.Run("before the reveal nothing changed or was told", func(t *testing.T) {
		for photo, want := range map[string]int{anas: 1, bens: 0, last: 1} {
			if n, err := h.st.Hearts().Count(t.Context(), photo); err != nil || n != want {
				t.Errorf("%s has %d hearts (%v), want %d", photo, n, err, want)
			}
		}
		// The consoles hear Ben's heart on his own photo, and nothing before it.
		if named := console.namedUntil(t, "photo.changed", last); len(named) != 1 {
			t.Errorf("the console was told of %v before the reveal, want only %s", named, last)
		}
		if got := hearted(ben); len(got) != 1 || got[0] != last {
			t.Errorf("Ben's hearts before the reveal = %v, want only his own photo", got)
		}
	})
	t.Run("at the reveal the album opens to hearts", func(t *testing.T) {
		h.clock.Advance(2 * time.Hour)
		if got := hearted(ben); len(got) != 2 || got[0] != anas {
			t.Errorf("Ben's hearts after the reveal = %v, want Ana's photo and his own", got)
		}
		if r := ana.do("PUT", heart(bens), nil).expect(t, 200, ""); r.JSON["hearts"] != float64(1) {
			t.Fatalf("answer %s, want 1 heart", r.Body)
		}
		ben.do("DELETE", heart(anas), nil).expect(t, 200, "")
	})
}
