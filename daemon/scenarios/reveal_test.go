package scenarios_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"
)

// ids lists the ids of a photo list answer, in order.
func ids(r response) []string {
	var out []string
	for _, p := range r.JSON["photos"].([]any) {
		out = append(out, p.(map[string]any)["id"].(string))
	}
	return out
}

// TestTakenAtFromPhoneFiles: the capture time of real phone files is kept
// as takenAt (null without one), and order=taken lists the gallery and
// the guest's album by it, oldest first, whatever the upload order.
func TestTakenAtFromPhoneFiles(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding"})
	slug, id := ev["slug"].(string), ev["id"].(string)
	g := h.guest(slug)
	// Uploaded in this order. A capture time without a zone is the box's
	// (time.Local); the photo without one sorts at its upload time. (The
	// zone of OffsetTimeOriginal is read in imaging's test, on the
	// HEIC, whose variants are too slow under -race for this harness.)
	files := []struct {
		name  string
		taken *time.Time
	}{
		{"phone-gps.webp", ptr(time.Date(2026, 6, 20, 18, 43, 0, 0, time.Local))},
		{"phone-gps.jpg", ptr(time.Date(2026, 6, 20, 18, 40, 0, 0, time.Local))},
		{"", nil},
		{"phone-gps.png", ptr(time.Date(2026, 6, 20, 18, 41, 0, 0, time.Local))},
	}
	var uploaded []string
	at := map[string]int64{}
	for _, f := range files {
		data := photoJPEG(t, 40, 30, 1, false, 7)
		if f.name != "" {
			var err error
			if data, err = os.ReadFile(filepath.Join("..", "..", "imaging", "testdata", f.name)); err != nil {
				t.Fatal(err)
			}
		}
		h.clock.Advance(time.Minute)
		p := g.upload(slug, data, nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)
		uploaded = append(uploaded, p["id"].(string))
		at[p["id"].(string)] = int64(p["createdAt"].(float64))
		if f.taken != nil {
			at[p["id"].(string)] = f.taken.UnixMilli()
		}
		switch {
		case f.taken == nil && p["takenAt"] != nil:
			t.Errorf("%s: takenAt %v, want null", f.name, p["takenAt"])
		case f.taken != nil && p["takenAt"] != float64(f.taken.UnixMilli()):
			t.Errorf("%s: takenAt %v, want %d (%v)", f.name, p["takenAt"], f.taken.UnixMilli(), f.taken)
		}
	}
	sh, _ := createShare(t, owner, id, map[string]any{})
	visitor := h.client()
	visitor.do("GET", "/api/g/"+sh["token"].(string), nil).expect(t, 200, "")

	want := slices.Clone(uploaded)
	sort.SliceStable(want, func(i, j int) bool { return at[want[i]] < at[want[j]] })
	for _, path := range []string{"/api/g/" + sh["token"].(string) + "/photos?order=taken", "/api/e/" + slug + "/photos?order=taken"} {
		c := visitor
		if path[5] == 'e' {
			c = g
		}
		r := c.do("GET", path, nil).expect(t, 200, "")
		if got := ids(r); !equalStrings(got, want) {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
		if r.JSON["nextCursor"] != nil {
			t.Errorf("%s: nextCursor %v", path, r.JSON["nextCursor"])
		}
	}
	visitor.do("GET", "/api/g/"+sh["token"].(string)+"/photos?order=sideways", nil).expect(t, 400, "bad_request")
}

func ptr[T any](v T) *T { return &v }

func equalStrings(a, b []string) bool { return slices.Equal(a, b) }

// TestRevealLater: with revealAt set, guests see only their own photos
// (list and media) until then, and the public event carries revealAt for
// a countdown; from revealAt on, the album opens. The hosts see all.
func TestRevealLater(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	reveal := h.clock.Now().Add(2 * time.Hour).UnixMilli()
	ev := h.createEvent(owner, map[string]any{"name": "Surprise", "albumShared": true, "revealAt": reveal})
	slug, id := ev["slug"].(string), ev["id"].(string)
	if ev["revealAt"] != float64(reveal) {
		t.Fatalf("revealAt = %v", ev["revealAt"])
	}
	ana, ben := h.guest(slug), h.guest(slug)
	anas := ana.upload(slug, photoJPEG(t, 40, 30, 1, false, 1), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	h.clock.Advance(time.Second)
	bens := ben.upload(slug, photoJPEG(t, 40, 30, 1, false, 2), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)

	check := func(t *testing.T, wantBen []string, benSeesAna int) {
		t.Helper()
		if got := ids(ben.do("GET", "/api/e/"+slug+"/photos?scope=all", nil).expect(t, 200, "")); !equalStrings(got, wantBen) {
			t.Errorf("Ben's album: %v, want %v", got, wantBen)
		}
		if r := ben.do("GET", "/api/media/"+anas+"?v=thumb", nil); r.Status != benSeesAna {
			t.Errorf("Ben gets Ana's thumb: %d, want %d", r.Status, benSeesAna)
		}
		ben.do("GET", "/api/media/"+bens+"?v=thumb", nil).expect(t, 200, "")
		owner.do("GET", "/api/media/"+anas+"?v=thumb", nil).expect(t, 200, "")
	}
	t.Run("before revealAt each guest sees their own", func(t *testing.T) {
		pub := ben.do("GET", "/api/e/"+slug, nil).expect(t, 200, "").JSON["event"].(map[string]any)
		if pub["revealAt"] != float64(reveal) || pub["albumShared"] != true {
			t.Fatalf("public event: revealAt %v, albumShared %v", pub["revealAt"], pub["albumShared"])
		}
		check(t, []string{bens}, 404)
	})
	t.Run("at revealAt the album opens", func(t *testing.T) {
		h.clock.Advance(2 * time.Hour)
		check(t, []string{bens, anas}, 200)
	})
	t.Run("revealAt is an epoch ms time or null", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"revealAt": -5}).expect(t, 400, "bad_request")
		r := owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"revealAt": nil}).expect(t, 200, "")
		if v, ok := r.JSON["event"].(map[string]any)["revealAt"]; !ok || v != nil {
			t.Fatalf("revealAt = %v (present %v), want null", v, ok)
		}
	})
}
