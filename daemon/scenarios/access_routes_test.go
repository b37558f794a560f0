package scenarios_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"eventbox/daemon/access"
)

// TestAccessRulesOverTheRouter asks the real routes for every photo variant
// and voice note as every kind of viewer, under every album and guestbook
// setting, and expects what daemon/access decides for a viewer described by
// hand. It checks that the daemon reads sessions and cookies into the right
// viewer; access_test.go checks the rules themselves.
func TestAccessRulesOverTheRouter(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Other"})
	otherID, otherSlug := other["id"].(string), other["slug"].(string)
	ogg, err := os.ReadFile("../../probe/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}

	// The items, all sent by one guest ("A" in the hand-made viewers).
	author := h.guest(slug)
	voice := func() string {
		return author.postMessage(slug, "", ogg, "0.8").expect(t, 201, "").JSON["message"].(map[string]any)["id"].(string)
	}
	shownNote, hiddenNote := voice(), voice()
	owner.do("POST", "/api/admin/events/"+id+"/messages", map[string]any{"action": "hide", "ids": []string{hiddenNote}}).expect(t, 200, "")
	plain, favorite, hidden := uploadID(t, author, slug, 1, nil, ""), uploadID(t, author, slug, 2, nil, ""), uploadID(t, author, slug, 3, nil, "")
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "favorite", "ids": []string{favorite}}).expect(t, 200, "")
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "hide", "ids": []string{hidden}}).expect(t, 200, "")
	owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"moderation": "pre"}).expect(t, 200, "")
	pending := uploadID(t, author, slug, 4, nil, "")
	waitVariants(t, h)
	photos := []struct {
		id   string
		item access.Item
	}{
		{plain, access.Item{EventID: "E", GuestID: "A", Visible: true}},
		{favorite, access.Item{EventID: "E", GuestID: "A", Visible: true, Favorite: true}},
		{hidden, access.Item{EventID: "E", GuestID: "A"}},
		{pending, access.Item{EventID: "E", GuestID: "A"}},
	}
	notes := []struct {
		id   string
		item access.Item
	}{
		{shownNote, access.Item{EventID: "E", GuestID: "A", Visible: true}},
		{hiddenNote, access.Item{EventID: "E", GuestID: "A"}},
	}

	// The viewers, each with its hand-made access.Viewer.
	type viewer struct {
		name string
		c    *client
		v    access.Viewer
	}
	viewers := []viewer{
		{"a stranger", h.client(), access.Viewer{}},
		{"the author", author, access.Viewer{Guests: map[string]string{"E": "A"}}},
		{"another guest of the event", h.guest(slug), access.Viewer{Guests: map[string]string{"E": "B"}}},
		{"a guest of another event", h.guest(otherSlug), access.Viewer{Guests: map[string]string{"F": "C"}}},
		{"the owner", owner, access.Viewer{Account: &access.Account{Owner: true}}},
		{"an organizer of the event", h.organizer("inside", id), access.Viewer{Account: &access.Account{EventIDs: []string{"E"}}}},
		{"an organizer of another event", h.organizer("outside", otherID), access.Viewer{Account: &access.Account{EventIDs: []string{"F"}}}},
	}
	for _, fav := range []bool{false, true} {
		for _, dl := range []bool{false, true} {
			sh, _ := createShare(t, owner, id, map[string]any{"favoritesOnly": fav, "allowDownload": dl})
			c := h.client()
			c.do("GET", "/api/g/"+sh["token"].(string), nil).expect(t, 200, "")
			viewers = append(viewers, viewer{
				fmt.Sprintf("a gallery viewer (favoritesOnly=%v, allowDownload=%v)", fav, dl), c,
				access.Viewer{Links: []access.Link{{EventID: "E", FavoritesOnly: fav, AllowDownload: dl}}},
			})
		}
	}
	sh, _ := createShare(t, owner, otherID, map[string]any{"allowDownload": true})
	c := h.client()
	c.do("GET", "/api/g/"+sh["token"].(string), nil).expect(t, 200, "")
	viewers = append(viewers, viewer{"a gallery viewer of another event", c, access.Viewer{Links: []access.Link{{EventID: "F", AllowDownload: true}}}})

	status := map[access.Verdict]int{access.Allowed: 200, access.Forbidden: 403, access.NotFound: 404}
	for _, albumShared := range []bool{false, true} {
		for _, guestbook := range []bool{false, true} {
			owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"albumShared": albumShared, "guestbookInGallery": guestbook}).expect(t, 200, "")
			e := access.Event{ID: "E", AlbumShared: albumShared, GuestbookInGallery: guestbook}
			for _, vw := range viewers {
				t.Run(fmt.Sprintf("%s, albumShared=%v guestbookInGallery=%v", vw.name, albumShared, guestbook), func(t *testing.T) {
					for i, p := range photos {
						for _, variant := range []access.Variant{access.Thumb, access.Display, access.Original} {
							want := status[access.Media(vw.v, e, p.item, variant)]
							if got := vw.c.do("GET", "/api/media/"+p.id+"?v="+string(variant), nil).Status; got != want {
								t.Errorf("photo %d (%+v) %s: %d, want %d", i, p.item, variant, got, want)
							}
						}
					}
					for i, m := range notes {
						want := map[bool]int{true: 200, false: 404}[access.Hear(vw.v, e, m.item)]
						if got := vw.c.do("GET", "/api/messages/"+m.id+"/audio", nil).Status; got != want {
							t.Errorf("voice note %d (%+v): %d, want %d", i, m.item, got, want)
						}
					}
				})
			}
		}
	}

	t.Run("an expired link shows nothing", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"albumShared": true, "guestbookInGallery": true}).expect(t, 200, "")
		sh, _ := createShare(t, owner, id, map[string]any{"allowDownload": true, "expiresInDays": 1})
		c := h.client()
		c.do("GET", "/api/g/"+sh["token"].(string), nil).expect(t, 200, "")
		c.do("GET", "/api/media/"+plain+"?v=original", nil).expect(t, 200, "")
		c.do("GET", "/api/messages/"+shownNote+"/audio", nil).expect(t, 200, "")
		h.clock.Advance(25 * time.Hour)
		c.do("GET", "/api/media/"+plain+"?v=thumb", nil).expect(t, 404, "not_found")
		c.do("GET", "/api/messages/"+shownNote+"/audio", nil).expect(t, 404, "not_found")
	})
}
