package scenarios_test

import (
	"strings"
	"testing"
	"time"

	"eventbox/store"
)

func TestPlaces(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
	base := "/api/admin/events/" + id + "/spots"

	var bar, garden string
	t.Run("a place is created with a tidy label and no photos", func(t *testing.T) {
		r := owner.do("POST", base, map[string]any{"label": "  The   bar "}).expect(t, 201, "")
		sp := r.JSON["spot"].(map[string]any)
		if sp["label"] != "The bar" || sp["photos"] != float64(0) || !store.ValidID(sp["id"].(string)) {
			t.Fatalf("spot = %v", sp)
		}
		bar = sp["id"].(string)
		h.clock.Advance(time.Second)
		garden = owner.do("POST", base, map[string]any{"label": strings.Repeat("é", 40)}).expect(t, 201, "").JSON["spot"].(map[string]any)["id"].(string)
	})
	labels := []struct {
		name  string
		label any
	}{
		{"an empty label is refused", "   "},
		{"a label over 40 characters is refused", strings.Repeat("é", 41)},
		{"a label must be a string", 42},
	}
	for _, tt := range labels {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("POST", base, map[string]any{"label": tt.label}).expect(t, 400, "bad_request")
			if _, ok := r.details()["label"]; !ok {
				t.Fatalf("details = %v", r.details())
			}
			owner.do("PATCH", base+"/"+bar, map[string]any{"label": tt.label}).expect(t, 400, "bad_request")
		})
	}
	g := h.guest(slug)
	tagged := uploadID(t, g, slug, 1, nil, "?at="+bar)
	uploadID(t, g, slug, 2, nil, "?at="+bar)
	uploadID(t, g, slug, 3, nil, "")
	t.Run("the list counts each place's photos, oldest place first", func(t *testing.T) {
		r := owner.do("GET", base, nil).expect(t, 200, "")
		spots := r.JSON["spots"].([]any)
		if len(spots) != 2 {
			t.Fatalf("spots = %v", spots)
		}
		first, second := spots[0].(map[string]any), spots[1].(map[string]any)
		if first["id"] != bar || first["photos"] != float64(2) || second["id"] != garden || second["photos"] != float64(0) {
			t.Fatalf("spots = %v", spots)
		}
	})
	t.Run("renaming keeps the photos", func(t *testing.T) {
		r := owner.do("PATCH", base+"/"+bar, map[string]any{"label": "Bar"}).expect(t, 200, "")
		sp := r.JSON["spot"].(map[string]any)
		if sp["label"] != "Bar" || sp["photos"] != float64(2) || sp["id"] != bar {
			t.Fatalf("spot = %v", sp)
		}
	})
	t.Run("the admin list filters by place and shows the place", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/events/"+id+"/photos?spot="+bar, nil).expect(t, 200, "")
		if ids := photoIDs(t, r); len(ids) != 2 {
			t.Fatalf("ids = %v", ids)
		}
		if p := photoByID(t, r, tagged); p["spotId"] != bar {
			t.Fatalf("photo = %v", p)
		}
	})
	missing := []struct {
		name, method, path string
	}{
		{"renaming an unknown place is not found", "PATCH", base + "/" + store.NewID()},
		{"a place is not reached through another event", "PATCH", "/api/admin/events/" + other + "/spots/" + bar},
		{"deleting through another event is not found", "DELETE", "/api/admin/events/" + other + "/spots/" + bar},
		{"a malformed place id is not found", "DELETE", base + "/bar"},
	}
	for _, tt := range missing {
		t.Run(tt.name, func(t *testing.T) {
			owner.do(tt.method, tt.path, map[string]any{"label": "X"}).expect(t, 404, "not_found")
		})
	}
	t.Run("deleting a place leaves its photos, untagged", func(t *testing.T) {
		owner.do("DELETE", base+"/"+bar, nil).expect(t, 200, "")
		owner.do("DELETE", base+"/"+bar, nil).expect(t, 404, "not_found")
		r := owner.do("GET", "/api/admin/events/"+id+"/photos", nil).expect(t, 200, "")
		if ids := photoIDs(t, r); len(ids) != 3 {
			t.Fatalf("photos after the delete: %v", ids)
		}
		if p := photoByID(t, r, tagged); p["spotId"] != nil {
			t.Fatalf("the photo still names the place: %v", p)
		}
		if ids := photoIDs(t, owner.do("GET", "/api/admin/events/"+id+"/photos?spot="+bar, nil)); len(ids) != 0 {
			t.Fatalf("the deleted place still lists %v", ids)
		}
	})
	t.Run("an event has at most 100 places", func(t *testing.T) {
		for i := 1; i < 100; i++ { // garden is the first
			owner.do("POST", base, map[string]any{"label": "Table"}).expect(t, 201, "")
		}
		r := owner.do("POST", base, map[string]any{"label": "One more"}).expect(t, 400, "bad_request")
		if _, ok := r.details()["label"]; !ok {
			t.Fatalf("details = %v", r.details())
		}
		if n := len(owner.do("GET", base, nil).JSON["spots"].([]any)); n != 100 {
			t.Fatalf("%d places", n)
		}
	})
}
