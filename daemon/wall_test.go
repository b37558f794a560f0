package daemon_test

import (
	"net/url"
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
