package scenarios_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWallLinks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding", "moderation": "pre", "accessCode": "ROSE42"})
	id, slug := ev["id"].(string), ev["slug"].(string)

	r := owner.do("POST", "/api/admin/events/"+id+"/walls", map[string]any{"label": "Hall screen"}).expect(t, 201, "")
	wall := r.JSON["wall"].(map[string]any)
	token := strings.TrimPrefix(wall["url"].(string), h.srv.URL+"/wall/")
	if token == wall["url"] || token == "" {
		t.Fatalf("wall url = %v", wall["url"])
	}
	screen := h.client() // no session, no guest cookie

	guest := h.client()
	guest.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "ROSE42"}).expect(t, 200, "")
	pending := guest.upload(slug, photoJPEG(t, 64, 48, 1, false, 1), nil, "").expect(t, 201, "")
	pendingID := pending.JSON["photo"].(map[string]any)["id"].(string)
	waitVariants(t, h)

	t.Run("the wall shows the event without a sign-in, and no pending photo", func(t *testing.T) {
		got := screen.do("GET", "/api/wall/"+token, nil).expect(t, 200, "")
		e := got.JSON["event"].(map[string]any)
		if e["name"] != "Wedding" || e["accessCode"] != "ROSE42" || e["joinUrl"] != h.srv.URL+"/e/"+slug {
			t.Fatalf("wall event = %v", e)
		}
		if n := len(got.JSON["photos"].([]any)); n != 0 {
			t.Fatalf("wall shows %d photos, want 0 (the one photo is pending)", n)
		}
		screen.do("GET", "/api/wall/"+token+"/media/"+pendingID, nil).expect(t, 404, "not_found")
	})
	st := screen.live("/api/wall/"+token+"/live", "")
	if st.Status != 200 {
		t.Fatalf("wall stream answered %d", st.Status)
	}
	t.Run("an approval is pushed to the wall, with the wall's fields only", func(t *testing.T) {
		owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "approve", "ids": []string{pendingID}}).expect(t, 200, "")
		got, _ := st.until(t, "photo.changed", pendingID)
		for _, k := range []string{"status", "favorite", "downloads", "mine", "variants"} {
			if _, ok := got.Data[k]; ok {
				t.Errorf("wall photo carries %s: %v", k, got.Data)
			}
		}
		r := screen.do("GET", "/api/wall/"+token+"/media/"+pendingID+"?v=display", nil).expect(t, 200, "")
		if r.Header.Get("Content-Type") != "image/jpeg" {
			t.Fatalf("media type %q", r.Header.Get("Content-Type"))
		}
		screen.do("GET", "/api/wall/"+token+"/media/"+pendingID+"?v=original", nil).expect(t, 400, "bad_request")
	})
	t.Run("hiding takes it off the wall", func(t *testing.T) {
		owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "hide", "ids": []string{pendingID}}).expect(t, 200, "")
		st.until(t, "photo.removed", pendingID)
		screen.do("GET", "/api/wall/"+token+"/media/"+pendingID, nil).expect(t, 404, "not_found")
	})
	t.Run("a wall link of another event does not open this event's photos", func(t *testing.T) {
		other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
		r := owner.do("POST", "/api/admin/events/"+other+"/walls", map[string]any{}).expect(t, 201, "")
		otherToken := strings.TrimPrefix(r.JSON["wall"].(map[string]any)["url"].(string), h.srv.URL+"/wall/")
		owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "approve", "ids": []string{pendingID}}).expect(t, 200, "")
		screen.do("GET", "/api/wall/"+otherToken+"/media/"+pendingID, nil).expect(t, 404, "not_found")
		screen.do("GET", "/api/wall/"+otherToken, nil).expect(t, 200, "")
		owner.do("DELETE", "/api/admin/events/"+other, nil).expect(t, 200, "")
		screen.do("GET", "/api/wall/"+otherToken, nil).expect(t, 404, "not_found")
	})
	t.Run("the wall's qr code holds the join link", func(t *testing.T) {
		r := screen.do("GET", "/api/wall/"+token+"/qr", nil).expect(t, 200, "")
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "image/svg+xml") {
			t.Fatalf("qr type %q", r.Header.Get("Content-Type"))
		}
	})
	t.Run("a revoked link is refused and its stream ends", func(t *testing.T) {
		list := owner.do("GET", "/api/admin/events/"+id+"/walls", nil).expect(t, 200, "")
		if n := len(list.JSON["walls"].([]any)); n != 1 {
			t.Fatalf("%d wall links listed, want 1", n)
		}
		owner.do("DELETE", "/api/admin/events/"+id+"/walls/"+wall["id"].(string), nil).expect(t, 200, "")
		st.ended(t)
		screen.do("GET", "/api/wall/"+token, nil).expect(t, 404, "not_found")
		screen.do("GET", "/api/wall/"+token+"/live", nil).expect(t, 404, "not_found")
		screen.do("GET", "/api/wall/"+token+"/media/"+pendingID, nil).expect(t, 404, "not_found")
	})
	t.Run("a made-up token is refused", func(t *testing.T) {
		fresh := newHarness(t).client()
		fresh.do("GET", "/api/wall/nothing-here", nil).expect(t, 404, "not_found")
		screen.do("GET", "/api/wall/nothing-here", nil).expect(t, 404, "not_found")
		screen.do("GET", "/api/wall/"+strings.Repeat("x", 200), nil).expect(t, 404, "not_found")
	})
}

// TestWallWaitsForRevealAt: an event that holds its album back until
// revealAt shows no photo on its wall before then (not in the list, not by
// its media), and every visible photo after.
func TestWallWaitsForRevealAt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	reveal := h.clock.Now().Add(2 * time.Hour).UnixMilli()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding", "revealAt": reveal})
	id, slug := ev["id"].(string), ev["slug"].(string)
	r := owner.do("POST", "/api/admin/events/"+id+"/walls", map[string]any{"label": "Hall"}).expect(t, 201, "")
	token := strings.TrimPrefix(r.JSON["wall"].(map[string]any)["url"].(string), h.srv.URL+"/wall/")
	pid := h.guest(slug).upload(slug, photoJPEG(t, 64, 48, 1, false, 1), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	waitVariants(t, h)
	screen := h.client()

	got := screen.do("GET", "/api/wall/"+token, nil).expect(t, 200, "")
	if n := len(got.JSON["photos"].([]any)); n != 0 {
		t.Errorf("before revealAt the wall shows %d photos", n)
	}
	if got.JSON["event"].(map[string]any)["revealAt"] != float64(reveal) {
		t.Errorf("wall event revealAt = %v, want %d", got.JSON["event"].(map[string]any)["revealAt"], reveal)
	}
	screen.do("GET", "/api/wall/"+token+"/media/"+pid, nil).expect(t, 404, "not_found")

	h.clock.Advance(2*time.Hour + time.Second)
	got = screen.do("GET", "/api/wall/"+token, nil).expect(t, 200, "")
	if n := len(got.JSON["photos"].([]any)); n != 1 {
		t.Errorf("after revealAt the wall shows %d photos, want 1", n)
	}
	screen.do("GET", "/api/wall/"+token+"/media/"+pid, nil).expect(t, 200, "")
}

// TestWallStreamStartsWhereTheListingEnded: a photo approved after the
// wall read its first list but before its stream opened is not lost. The
// list carries liveId, the stream's position when it was read; a stream
// opened from it replays what changed since.
func TestWallStreamStartsWhereTheListingEnded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Party", "moderation": "pre"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	r := owner.do("POST", "/api/admin/events/"+id+"/walls", map[string]any{}).expect(t, 201, "")
	token := strings.TrimPrefix(r.JSON["wall"].(map[string]any)["url"].(string), h.srv.URL+"/wall/")
	guest := h.client()
	guest.do("POST", "/api/e/"+slug+"/join", nil).expect(t, 200, "")
	up := guest.upload(slug, photoJPEG(t, 64, 48, 1, false, 1), nil, "").expect(t, 201, "")
	photoID := up.JSON["photo"].(map[string]any)["id"].(string)
	waitVariants(t, h)

	screen := h.client()
	first := screen.do("GET", "/api/wall/"+token, nil).expect(t, 200, "")
	if n := len(first.JSON["photos"].([]any)); n != 0 {
		t.Fatalf("the wall lists %d photos before the approval, want 0", n)
	}
	from, _ := first.JSON["liveId"].(string)
	if from == "" {
		t.Fatalf("the wall's list carries no liveId: %v", first.JSON)
	}
	// The approval lands between the list and the stream.
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "approve", "ids": []string{photoID}}).expect(t, 200, "")
	st := screen.live("/api/wall/"+token+"/live?lastEventId="+url.QueryEscape(from), "")
	if st.Status != 200 {
		t.Fatalf("wall stream answered %d", st.Status)
	}
	st.until(t, "photo.changed", photoID)
}

// namedUntil reads frames until one named name with data id arrives and
// returns every id the frames' data named on the way (that one too).
func (s *liveStream) namedUntil(t *testing.T, name, id string) []string {
	t.Helper()
	var named []string
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("stream ended before %s %s (named so far: %v)", name, id, named)
			}
			if got, _ := ev.Data["id"].(string); got != "" {
				named = append(named, got)
			}
			if ev.Name == name && ev.Data["id"] == id {
				return named
			}
		case <-deadline:
			t.Fatalf("no %s %s within 5 s (named so far: %v)", name, id, named)
		}
	}
}

// TestWallNeverLearnsAnIDItWasNotShown: a wall hears of a photo or a text
// only once it is on the wall, and of its removal only if it was: a
// pending upload whose display is made, that is favourited, hidden or
// deleted by the hosts or by its guest, a pending text hidden or deleted,
// a visible photo deleted while the album is held back, none of them is
// named to a wall, live or replayed. Before, each of them reached the wall
// as photo.removed or message.removed with its id.
func TestWallNeverLearnsAnIDItWasNotShown(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding", "moderation": "pre"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	r := owner.do("POST", "/api/admin/events/"+id+"/walls", map[string]any{}).expect(t, 201, "")
	token := strings.TrimPrefix(r.JSON["wall"].(map[string]any)["url"].(string), h.srv.URL+"/wall/")
	screen := h.client()
	from := screen.do("GET", "/api/wall/"+token, nil).expect(t, 200, "").JSON["liveId"].(string)
	st := screen.live("/api/wall/"+token+"/live", "")
	if st.Status != 200 {
		t.Fatalf("wall stream answered %d", st.Status)
	}
	guest := h.guest(slug)
	photo := func(seed int) string {
		t.Helper()
		up := guest.upload(slug, photoJPEG(t, 64, 48, 1, false, seed), nil, "").expect(t, 201, "")
		return up.JSON["photo"].(map[string]any)["id"].(string)
	}
	message := func(text string) string {
		t.Helper()
		return guest.postMessage(slug, text, nil, "").expect(t, 201, "").JSON["message"].(map[string]any)["id"].(string)
	}
	photos := func(action string, ids ...string) {
		t.Helper()
		owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": action, "ids": ids}).expect(t, 200, "")
	}
	messages := func(action string, ids ...string) {
		t.Helper()
		owner.do("POST", "/api/admin/events/"+id+"/messages", map[string]any{"action": action, "ids": ids}).expect(t, 200, "")
	}

	// Never on the wall.
	favourited, hidden, deleted, own := photo(1), photo(2), photo(3), photo(4)
	waitVariants(t, h) // each display made: a change of a pending photo
	photos("favorite", favourited)
	photos("hide", hidden)
	photos("delete", hidden, deleted)
	guest.do("DELETE", "/api/e/"+slug+"/photos/"+own, nil).expect(t, 200, "")
	hiddenText, deletedText := message("not yet"), message("never")
	messages("hide", hiddenText)
	messages("delete", hiddenText, deletedText)
	// On the wall, then off it: named.
	shown, shownThenHidden := photo(5), photo(6)
	waitVariants(t, h)
	photos("approve", shown, shownThenHidden)
	photos("hide", shownThenHidden)
	photos("delete", shownThenHidden) // already off the wall: named once
	text := message("Congratulations!")
	messages("approve", text)
	messages("delete", text)
	marker := photo(7)
	waitVariants(t, h)
	photos("approve", marker)

	allowed := map[string]bool{shown: true, shownThenHidden: true, text: true, marker: true}
	check := func(t *testing.T, st *liveStream) {
		named := st.namedUntil(t, "photo.changed", marker)
		var leaked []string
		for _, n := range named {
			if !allowed[n] && !slices.Contains(leaked, n) {
				leaked = append(leaked, n)
			}
		}
		if len(leaked) > 0 {
			t.Errorf("the wall learned %d ids it was never shown: %v", len(leaked), leaked)
		}
		if removals := strings.Count(strings.Join(named, " "), shownThenHidden); removals != 2 {
			t.Errorf("the photo shown then hidden is named %d times, want 2 (on, off): %v", removals, named)
		}
		if !slices.Contains(named, text) {
			t.Errorf("the approved then deleted text is not named: %v", named)
		}
	}
	t.Run("live", func(t *testing.T) { check(t, st) })
	t.Run("replayed", func(t *testing.T) {
		again := screen.live("/api/wall/"+token+"/live?lastEventId="+url.QueryEscape(from), "")
		if again.Status != 200 {
			t.Fatalf("wall stream answered %d", again.Status)
		}
		check(t, again)
	})

	t.Run("while the album is held back", func(t *testing.T) {
		reveal := h.clock.Now().Add(2 * time.Hour).UnixMilli()
		held := h.createEvent(owner, map[string]any{"name": "Later", "revealAt": reveal})
		heldID, heldSlug := held["id"].(string), held["slug"].(string)
		r := owner.do("POST", "/api/admin/events/"+heldID+"/walls", map[string]any{}).expect(t, 201, "")
		heldToken := strings.TrimPrefix(r.JSON["wall"].(map[string]any)["url"].(string), h.srv.URL+"/wall/")
		wall := screen.live("/api/wall/"+heldToken+"/live", "")
		g := h.guest(heldSlug)
		visible := g.upload(heldSlug, photoJPEG(t, 64, 48, 1, false, 8), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
		waitVariants(t, h)
		owner.do("POST", "/api/admin/events/"+heldID+"/photos", map[string]any{"action": "delete", "ids": []string{visible}}).expect(t, 200, "")
		// Texts are not held back: one is the marker.
		mark := g.postMessage(heldSlug, "See you!", nil, "").expect(t, 201, "").JSON["message"].(map[string]any)["id"].(string)
		named := wall.namedUntil(t, "message.changed", mark)
		if slices.Contains(named, visible) {
			t.Errorf("a wall held back learned the id of a photo it never showed: %v", named)
		}
	})
}
