package scenarios_test

import (
	"fmt"
	"testing"
)

// TestGuestAlbumFavouritesAndPlaces: the shared album's favourites
// section reads GET /api/e/:slug/photos?scope=all&favorites=1 (the
// visible favourites once the album is open, else nothing), and the
// place filter the public event's spots.
func TestGuestAlbumFavouritesAndPlaces(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "albumShared": true})
	id, slug := ev["id"].(string), ev["slug"].(string)
	spot := owner.do("POST", "/api/admin/events/"+id+"/spots", map[string]any{"label": "Garden"}).expect(t, 201, "").JSON
	ana, ben := h.guest(slug), h.guest(slug)
	a, b := uploadID(t, ana, slug, 1, nil, ""), uploadID(t, ben, slug, 2, nil, "")
	owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "favorite", "ids": []string{b}}).expect(t, 200, "")
	ids := func(r response) []string {
		var out []string
		for _, p := range r.JSON["photos"].([]any) {
			m := p.(map[string]any)
			if _, ok := m["favorite"]; ok {
				t.Errorf("a guest sees favorite: %v", m)
			}
			out = append(out, m["id"].(string))
		}
		return out
	}
	tests := []struct {
		name, query string
		want        []string
	}{
		{"the album's favourites", "?scope=all&favorites=1", []string{b}},
		{"in the order taken", "?scope=all&favorites=1&order=taken", []string{b}},
		{"the whole album", "?scope=all&order=taken", []string{a, b}},
		{"favourites without scope=all: none", "?favorites=1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(ana.do("GET", "/api/e/"+slug+"/photos"+tt.query, nil).expect(t, 200, ""))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("photos %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("an album not shared has no favourites", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"albumShared": false}).expect(t, 200, "")
		if got := ids(ana.do("GET", "/api/e/"+slug+"/photos?scope=all&favorites=1", nil).expect(t, 200, "")); len(got) != 0 {
			t.Errorf("photos %v, want none", got)
		}
	})
	t.Run("the public event carries the places", func(t *testing.T) {
		spots := ana.do("GET", "/api/e/"+slug, nil).expect(t, 200, "").JSON["event"].(map[string]any)["spots"].([]any)
		if len(spots) != 1 || spots[0].(map[string]any)["label"] != "Garden" || spots[0].(map[string]any)["id"] == nil {
			t.Errorf("spots %v, want Garden (%v)", spots, spot)
		}
	})
}
