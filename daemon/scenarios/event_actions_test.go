package scenarios_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"eventbox/store"
)

func TestDuplicateEvent(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	src := h.createEvent(owner, map[string]any{
		"name": "Wedding", "accessCode": "roses", "moderation": "pre", "challenges": []string{"Cake", "Dance"},
		"qrStyle":   map[string]any{"foreground": "#1a235a", "dots": "round", "logo": true},
		"wallStyle": map[string]any{"layout": "grid"}, "galleryLinkDays": 12, "maxPhotosPerGuest": 5,
	})
	id, slug := src["id"].(string), src["slug"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
	owner.uploadLogo(id, pngWithAlpha(t)).expect(t, 200, "")
	ctx := context.Background()
	for _, label := range []string{"Bar", "Garden"} {
		if err := h.st.Spots().Create(ctx, &store.Spot{EventID: id, Label: label}); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(time.Second)
	}
	guest := h.client()
	guest.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "ROSES"}).expect(t, 200, "")
	guest.upload(slug, photoJPEG(t, 40, 30, 0, false, 1), nil, "").expect(t, 201, "")
	owner.do("POST", "/api/admin/events/"+id+"/booth", map[string]any{}).expect(t, 200, "")
	owner.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 200, "")
	src = owner.do("GET", "/api/admin/events/"+id, nil).JSON["event"].(map[string]any)
	org := h.organizer("olga", id)

	t.Run("an organizer may not duplicate", func(t *testing.T) {
		org.do("POST", "/api/admin/events/"+id+"/duplicate", nil).expect(t, 403, "forbidden")
	})
	t.Run("an unknown event is not found", func(t *testing.T) {
		owner.do("POST", "/api/admin/events/"+store.NewID()+"/duplicate", nil).expect(t, 404, "not_found")
	})
	t.Run("a name that is too long is refused", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/events/"+id+"/duplicate", map[string]any{"name": strings.Repeat("n", 101)}).expect(t, 400, "bad_request")
		if _, ok := r.details()["name"]; !ok {
			t.Errorf("details %v", r.details())
		}
	})

	r := owner.do("POST", "/api/admin/events/"+id+"/duplicate", nil).expect(t, 201, "")
	dup := r.JSON["event"].(map[string]any)
	dupID, dupSlug := dup["id"].(string), dup["slug"].(string)

	t.Run("the copy is named after the event", func(t *testing.T) {
		if dup["name"] != "Wedding (copy)" {
			t.Errorf("name %q", dup["name"])
		}
		named := owner.do("POST", "/api/admin/events/"+id+"/duplicate", map[string]any{"name": " Next year "}).expect(t, 201, "")
		if n := named.JSON["event"].(map[string]any)["name"]; n != "Next year" {
			t.Errorf("given name became %q", n)
		}
	})
	t.Run("the copy has its own id and slug", func(t *testing.T) {
		if dupID == id || dupSlug == slug {
			t.Errorf("id %s slug %s", dupID, dupSlug)
		}
		h.client().do("GET", "/api/e/"+dupSlug, nil).expect(t, 200, "")
	})
	t.Run("settings and styles are copied", func(t *testing.T) {
		for _, k := range []string{"accessCode", "moderation", "qrStyle", "wallStyle", "galleryLinkDays", "maxPhotosPerGuest", "challenges", "captureFilters", "frame", "askGuestName"} {
			if fmt.Sprint(dup[k]) != fmt.Sprint(src[k]) {
				t.Errorf("%s = %v, source has %v", k, dup[k], src[k])
			}
		}
	})
	t.Run("the copy starts open, not ended, without a booth", func(t *testing.T) {
		if dup["endedAt"] != nil || dup["uploadsOpen"] != true || dup["boothEnabled"] != false {
			t.Errorf("endedAt %v uploadsOpen %v boothEnabled %v", dup["endedAt"], dup["uploadsOpen"], dup["boothEnabled"])
		}
	})
	t.Run("the logo is copied", func(t *testing.T) {
		if dup["logoVersion"] == nil {
			t.Fatal("the copy has no logo")
		}
		a := h.client().do("GET", "/api/e/"+slug+"/logo", nil).expect(t, 200, "")
		b := h.client().do("GET", "/api/e/"+dupSlug+"/logo", nil).expect(t, 200, "")
		if !bytes.Equal(a.Body, b.Body) {
			t.Error("the copy's logo differs")
		}
	})
	t.Run("places are copied with new ids", func(t *testing.T) {
		spots, err := h.st.Spots().List(ctx, dupID)
		if err != nil {
			t.Fatal(err)
		}
		if len(spots) != 2 || spots[0].Label != "Bar" || spots[1].Label != "Garden" {
			t.Fatalf("places %+v", spots)
		}
		for _, sp := range spots {
			if _, err := h.st.Spots().Get(ctx, id, sp.ID); err == nil {
				t.Errorf("place %s kept its id", sp.Label)
			}
		}
	})
	t.Run("photos, guests and the booth stay behind", func(t *testing.T) {
		counts, err := h.st.Events().Counts(ctx, dupID)
		if err != nil {
			t.Fatal(err)
		}
		if counts.Photos != 0 || counts.Guests != 0 {
			t.Errorf("copy counts %+v", counts)
		}
		if pub := guest.do("GET", "/api/e/"+dupSlug, nil).JSON["guest"].(map[string]any); pub["joined"] != false {
			t.Errorf("a guest of the source is in the copy: %v", pub)
		}
	})
	t.Run("the copy is another event for scopes", func(t *testing.T) {
		org.do("GET", "/api/admin/events/"+dupID, nil).expect(t, 404, "not_found")
		owner.do("POST", "/api/admin/events/"+other+"/duplicate", nil).expect(t, 201, "")
	})
}

func TestCopyNameStaysWithinTheLimit(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	long := strings.Repeat("é", 100)
	id := h.createEvent(owner, map[string]any{"name": long})["id"].(string)
	r := owner.do("POST", "/api/admin/events/"+id+"/duplicate", nil).expect(t, 201, "")
	name := r.JSON["event"].(map[string]any)["name"].(string)
	if want := strings.Repeat("é", 93) + " (copy)"; name != want {
		t.Errorf("name %q (%d runes)", name, len([]rune(name)))
	}
}

func TestEndEvent(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Party", "galleryLinkDays": 0, "emailGuestsGallery": false, "notifyAdminSummary": false})
	id, slug := ev["id"].(string), ev["slug"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
	guest := h.guest(slug)
	guest.upload(slug, photoJPEG(t, 40, 30, 0, false, 1), nil, "").expect(t, 201, "")
	org := h.organizer("olga", id)

	t.Run("an organizer cannot end another event", func(t *testing.T) {
		org.do("POST", "/api/admin/events/"+other+"/end", nil).expect(t, 404, "not_found")
	})
	h.clock.Advance(time.Hour)
	r := org.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 200, "")
	t.Run("ending sets endedAt and closes uploads", func(t *testing.T) {
		e := r.JSON["event"].(map[string]any)
		if e["endedAt"] != float64(h.clock.Now().UnixMilli()) || e["uploadsOpen"] != false {
			t.Errorf("endedAt %v uploadsOpen %v", e["endedAt"], e["uploadsOpen"])
		}
	})
	t.Run("the result of an event that asks for nothing is empty", func(t *testing.T) {
		res := r.JSON["result"].(map[string]any)
		want := map[string]any{"share": nil, "shareUrl": nil, "guestEmails": float64(0), "summaryQueued": false, "exportQueued": false}
		for k, v := range want {
			if got, ok := res[k]; !ok || got != v {
				t.Errorf("%s = %v, want %v", k, got, v)
			}
		}
		if notes := res["notes"].([]any); len(notes) != 0 {
			t.Errorf("notes %v for an event that asks for nothing", notes)
		}
	})
	t.Run("guests are refused with uploads_closed", func(t *testing.T) {
		guest.upload(slug, photoJPEG(t, 40, 30, 0, false, 2), nil, "").expect(t, 403, "uploads_closed")
		pub := guest.do("GET", "/api/e/"+slug, nil).JSON["event"].(map[string]any)
		if pub["ended"] != true || pub["uploadsOpen"] != false {
			t.Errorf("public event %v", pub)
		}
	})
	t.Run("a second end is a bad request", func(t *testing.T) {
		owner.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 400, "bad_request")
	})
	t.Run("reopening uploads does not reopen an ended event", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"uploadsOpen": true}).expect(t, 200, "")
		guest.upload(slug, photoJPEG(t, 40, 30, 0, false, 3), nil, "").expect(t, 403, "uploads_closed")
	})
	t.Run("ending makes the gallery link the event asks for", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+other, map[string]any{
			"galleryLinkDays": 14, "galleryLinkDownload": false, "galleryLinkFavorites": true,
		}).expect(t, 200, "")
		r := owner.do("POST", "/api/admin/events/"+other+"/end", nil).expect(t, 200, "")
		res := r.JSON["result"].(map[string]any)
		sh, ok := res["share"].(map[string]any)
		if !ok {
			t.Fatalf("no share in %v", res)
		}
		wantExpiry := float64(h.clock.Now().Add(14 * 24 * time.Hour).UnixMilli())
		if sh["allowDownload"] != false || sh["favoritesOnly"] != true || sh["expiresAt"] != wantExpiry || sh["hasPassword"] != false {
			t.Errorf("share %v", sh)
		}
		token := sh["token"].(string)
		if want := h.srv.URL + "/g/" + token; res["shareUrl"] != want || sh["url"] != want {
			t.Errorf("shareUrl %v, want %s", res["shareUrl"], want)
		}
		if res["guestEmails"] != float64(0) || res["summaryQueued"] != false || res["exportQueued"] != false {
			t.Errorf("result %v", res)
		}
		if notes := res["notes"].([]any); len(notes) != 1 || !strings.Contains(notes[0].(string), "mail") {
			t.Errorf("notes %v, want one about mail", notes)
		}
		g := h.client().do("GET", "/api/g/"+token, nil).expect(t, 200, "")
		if n := g.JSON["event"].(map[string]any)["name"]; n != "Other" {
			t.Errorf("the link shows %v", n)
		}
		list := owner.do("GET", "/api/admin/events/"+other+"/shares", nil).expect(t, 200, "")
		if shares := list.JSON["shares"].([]any); len(shares) != 1 {
			t.Errorf("%d links listed", len(shares))
		}
	})
	t.Run("an event without gallery link days gets no link", func(t *testing.T) {
		list := owner.do("GET", "/api/admin/events/"+id+"/shares", nil).expect(t, 200, "")
		if shares := list.JSON["shares"].([]any); len(shares) != 0 {
			t.Errorf("%d links", len(shares))
		}
	})
}
