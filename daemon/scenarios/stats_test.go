package scenarios_test

import (
	"fmt"
	"testing"
	"time"

	"eventbox/store"
)

func TestStats(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	// The clock starts at 15:00 UTC.
	start := h.clock.Now().UnixMilli()
	hour := int64(time.Hour / time.Millisecond)
	ev := h.createEvent(owner, map[string]any{"name": "Wedding"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Birthday"})
	otherID, otherSlug := other["id"].(string), other["slug"].(string)

	ana, ben := h.guest(slug), h.guest(slug)
	ana.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana"}).expect(t, 200, "")
	ben.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ben"}).expect(t, 200, "")
	h.guest(slug) // a guest who sends nothing
	seed := 0
	send := func(c *client, s string, n int) {
		for i := 0; i < n; i++ {
			seed++
			c.upload(s, photoJPEG(t, 30, 20, 0, false, seed), nil, "").expect(t, 201, "")
		}
	}
	send(ana, slug, 2) // 15:00
	ben.postMessage(slug, "Hello", nil, "").expect(t, 201, "")
	h.clock.Advance(2*time.Hour + 30*time.Minute) // 17:30
	send(ben, slug, 3)
	carla := h.guest(otherSlug)
	send(carla, otherSlug, 1)
	ct, body := multipartBody(t, "photo", "a.jpg", photoJPEG(t, 30, 20, 0, false, 99), map[string]string{"credit": "Studio"})
	owner.do("POST", "/api/admin/events/"+id+"/photos/import", body, "Content-Type", ct).expect(t, 201, "")

	type point struct{ T, Photos, Messages int64 }
	series := func(r response) []point {
		var out []point
		for _, p := range r.JSON["series"].([]any) {
			m := p.(map[string]any)
			out = append(out, point{int64(m["t"].(float64)), int64(m["photos"].(float64)), int64(m["messages"].(float64))})
		}
		return out
	}
	top := func(r response) string {
		s := ""
		for _, g := range r.JSON["topGuests"].([]any) {
			m := g.(map[string]any)
			s += fmt.Sprintf("%v=%v ", m["name"], m["photos"])
		}
		return s
	}
	org := h.organizer("planner", otherID)
	tests := []struct {
		name      string
		c         *client
		query     string
		totals    map[string]float64
		series    []point
		topGuests string
	}{
		{"one event: totals, each hour since the first, top guests", owner, "?eventId=" + id,
			map[string]float64{"events": 1, "photos": 6, "videos": 0, "messages": 1, "guests": 3},
			[]point{{start, 2, 1}, {start + hour, 0, 0}, {start + 2*hour, 4, 0}},
			"Ben=3 Ana=2 "},
		{"every event of the owner", owner, "",
			map[string]float64{"events": 2, "photos": 7, "videos": 0, "messages": 1, "guests": 4},
			[]point{{start, 2, 1}, {start + hour, 0, 0}, {start + 2*hour, 5, 0}},
			"Ben=3 Ana=2 <nil>=1 "},
		{"an organizer sees their events only", org, "",
			map[string]float64{"events": 1, "photos": 1, "videos": 0, "messages": 0, "guests": 1},
			[]point{{start + 2*hour, 1, 0}}, "<nil>=1 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.c.do("GET", "/api/admin/stats"+tt.query, nil).expect(t, 200, "")
			totals := r.JSON["totals"].(map[string]any)
			for k, v := range tt.totals {
				if totals[k] != v {
					t.Errorf("totals.%s = %v, want %v", k, totals[k], v)
				}
			}
			if b, _ := totals["bytes"].(float64); b <= 0 {
				t.Errorf("totals.bytes = %v", totals["bytes"])
			}
			if got := series(r); fmt.Sprint(got) != fmt.Sprint(tt.series) {
				t.Errorf("series = %v, want %v", got, tt.series)
			}
			if got := top(r); got != tt.topGuests {
				t.Errorf("topGuests = %q, want %q", got, tt.topGuests)
			}
		})
	}
	refusals := []struct {
		name  string
		c     *client
		query string
		code  int
	}{
		{"an organizer gets 404 for another event", org, "?eventId=" + id, 404},
		{"an unknown event is not found", owner, "?eventId=" + store.NewID(), 404},
		{"a malformed event id is not found", owner, "?eventId=x", 404},
		{"a guest is not signed in", ana, "", 401},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			want := map[int]string{404: "not_found", 401: "unauthorized"}[tt.code]
			tt.c.do("GET", "/api/admin/stats"+tt.query, nil).expect(t, tt.code, want)
		})
	}
	t.Run("deleting photos takes them out of the totals and the series", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/events/"+id+"/photos", nil)
		ids := photoIDs(t, r)
		owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "delete", "ids": ids}).expect(t, 200, "")
		s := owner.do("GET", "/api/admin/stats?eventId="+id, nil).expect(t, 200, "")
		if p := s.JSON["totals"].(map[string]any)["photos"]; p != float64(0) {
			t.Fatalf("photos = %v", p)
		}
		if got := series(s); fmt.Sprint(got) != fmt.Sprint([]point{{start, 0, 1}}) {
			t.Fatalf("series = %v", got)
		}
		if got := top(s); got != "" {
			t.Fatalf("topGuests = %q", got)
		}
	})
	t.Run("the series covers at most the last week of activity", func(t *testing.T) {
		h.clock.Advance(30 * 24 * time.Hour)
		send(carla, otherSlug, 1)
		s := h.owner().do("GET", "/api/admin/stats?eventId="+otherID, nil).expect(t, 200, "")
		got := series(s)
		if len(got) != 168 || got[167].Photos != 1 || got[0].T != got[167].T-167*hour {
			t.Fatalf("%d points, first %v, last %v", len(got), got[0], got[len(got)-1])
		}
	})
}
