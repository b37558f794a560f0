package scenarios_test

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestCreateEventDefaults(t *testing.T) {
	h := newHarness(t)
	e := h.createEvent(h.owner(), map[string]any{"name": "  Ana & Ben  "})
	want := map[string]any{
		"name": "Ana & Ben", "moderation": "post", "uploadsOpen": true, "uploadsCloseAt": nil,
		"captureMode": "both", "askGuestName": true, "maxPhotosPerGuest": float64(0), "defaultLocale": nil,
		"collectGuestEmails": false, "notifyAdminSummary": true, "emailGuestsGallery": true,
		"galleryLinkDays": float64(30), "galleryLinkDownload": true, "galleryMailIncludesPassword": true,
		"galleryLinkFavorites": false, "guestbookEnabled": true, "guestbookVoice": true,
		"guestbookInGallery": false, "frame": "none", "allowVideos": true, "albumShared": true,
		"accessCode": nil, "endedAt": nil, "logoVersion": nil, "boothEnabled": false, "eventDate": nil,
	}
	for k, v := range want {
		if fmt.Sprint(e[k]) != fmt.Sprint(v) {
			t.Errorf("%s = %v, want %v", k, e[k], v)
		}
	}
	if cs, ok := e["challenges"].([]any); !ok || len(cs) != 0 {
		t.Errorf("challenges = %v, want []", e["challenges"])
	}
	slug, _ := e["slug"].(string)
	if len(slug) != 6 {
		t.Errorf("slug %q is not 6 characters", slug)
	}
	for _, c := range slug {
		if c == '0' || c == 'o' || c == '1' || c == 'l' || c == 'i' {
			t.Errorf("slug %q has the ambiguous character %q", slug, c)
		}
	}
	if qs := e["qrStyle"].(map[string]any); qs["foreground"] != "#000000" || qs["dots"] != "square" {
		t.Errorf("qrStyle = %v", qs)
	}
}

func TestEventValidation(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "Party"})["id"].(string)
	tests := []struct {
		name  string
		body  map[string]any
		field string // the field details must name; "" = accepted
	}{
		{"an empty name is refused", map[string]any{"name": "   "}, "name"},
		{"a null name is refused", map[string]any{"name": nil}, "name"},
		{"a date must be YYYY-MM-DD", map[string]any{"eventDate": "20/06/2026"}, "eventDate"},
		{"a date must exist", map[string]any{"eventDate": "2026-02-30"}, "eventDate"},
		{"a valid date is kept", map[string]any{"eventDate": "2026-06-20"}, ""},
		{"a colour must be #rrggbb", map[string]any{"accentColor": "red"}, "accentColor"},
		{"a valid colour is kept", map[string]any{"accentColor": "#AA3366"}, ""},
		{"moderation must be post or pre", map[string]any{"moderation": "later"}, "moderation"},
		{"captureMode must be one of three", map[string]any{"captureMode": "video"}, "captureMode"},
		{"defaultLocale must be a known language", map[string]any{"defaultLocale": "de"}, "defaultLocale"},
		{"defaultLocale may be null", map[string]any{"defaultLocale": nil}, ""},
		{"galleryLinkDays above 3650 is refused", map[string]any{"galleryLinkDays": 3651}, "galleryLinkDays"},
		{"galleryLinkDays below 0 is refused", map[string]any{"galleryLinkDays": -1}, "galleryLinkDays"},
		{"galleryLinkDays must be an integer", map[string]any{"galleryLinkDays": 1.5}, "galleryLinkDays"},
		{"galleryLinkDays of 3650 is kept", map[string]any{"galleryLinkDays": 3650}, ""},
		{"uploadsOpen must be a boolean", map[string]any{"uploadsOpen": "yes"}, "uploadsOpen"},
		{"maxPhotosPerGuest must not be negative", map[string]any{"maxPhotosPerGuest": -3}, "maxPhotosPerGuest"},
		{"frame must be a known frame", map[string]any{"frame": "gold"}, "frame"},
		{"an unknown field is named", map[string]any{"colour": "#ffffff"}, "colour"},
		{"wallStyle refuses unknown keys", map[string]any{"wallStyle": map[string]any{"speed": 3}}, "wallStyle"},
		{"wallStyle checks its layout", map[string]any{"wallStyle": map[string]any{"layout": "mosaic"}}, "wallStyle"},
		{"wallStyle takes a partial object", map[string]any{"wallStyle": map[string]any{"interval": 10}}, ""},
		{"qrStyle checks colours", map[string]any{"qrStyle": map[string]any{"foreground": "black"}}, "qrStyle"},
		{"qrStyle refuses too little contrast", map[string]any{"qrStyle": map[string]any{"foreground": "#cccccc"}}, "qrStyle"},
		{"qrStyle refuses a light code on dark", map[string]any{"qrStyle": map[string]any{"foreground": "#ffffff", "background": "#000000"}}, "qrStyle"},
		{"qrStyle checks dots", map[string]any{"qrStyle": map[string]any{"dots": "hearts"}}, "qrStyle"},
		{"qrStyle takes round dots", map[string]any{"qrStyle": map[string]any{"dots": "round", "foreground": "#1a2b3c"}}, ""},
		{"captureFilters must name known filters", map[string]any{"captureFilters": map[string]any{"enabled": []string{"glitter"}}}, "captureFilters"},
		{"captureFilters keeps known filters", map[string]any{"captureFilters": map[string]any{"enabled": []string{"bw", "sepia"}}}, ""},
		{"an access code too short is refused", map[string]any{"accessCode": "ab"}, "accessCode"},
		{"challenges must be strings or objects", map[string]any{"challenges": []any{12}}, "challenges"},
		{"challenges need a label", map[string]any{"challenges": []any{map[string]any{"label": ""}}}, "challenges"},
		{"uploadsCloseAt must be a positive time", map[string]any{"uploadsCloseAt": -5}, "uploadsCloseAt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := owner.do("GET", "/api/admin/events/"+id, nil).expect(t, 200, "")
			r := owner.do("PATCH", "/api/admin/events/"+id, tt.body)
			if tt.field == "" {
				r.expect(t, 200, "")
				return
			}
			r.expect(t, 400, "bad_request")
			if _, ok := r.details()[tt.field]; !ok {
				t.Errorf("details %v do not name %q", r.details(), tt.field)
			}
			after := owner.do("GET", "/api/admin/events/"+id, nil)
			if string(before.Body) != string(after.Body) {
				t.Errorf("a refused update changed the event:\n%s\n%s", before.Body, after.Body)
			}
		})
	}
	t.Run("creation without a name is refused", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/events", map[string]any{"description": "x"}).expect(t, 400, "bad_request")
		if _, ok := r.details()["name"]; !ok {
			t.Errorf("details = %v", r.details())
		}
	})
}

func TestEventUpdate(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	e := h.createEvent(owner, map[string]any{"name": "Party", "accessCode": "tulips", "challenges": []any{"First dance", map[string]any{"label": "Cake"}}})
	id := e["id"].(string)
	if e["accessCode"] != "tulips" {
		t.Fatalf("accessCode = %v", e["accessCode"])
	}
	cs := e["challenges"].([]any)
	first := cs[0].(map[string]any)
	t.Run("a subset changes only those fields", func(t *testing.T) {
		r := owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"description": "Garden party"}).expect(t, 200, "")
		ev := r.JSON["event"].(map[string]any)
		if ev["description"] != "Garden party" || ev["name"] != "Party" || ev["accessCode"] != "tulips" {
			t.Fatalf("event = %v", ev)
		}
	})
	t.Run("accessCode null removes the code", func(t *testing.T) {
		r := owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"accessCode": nil}).expect(t, 200, "")
		if ev := r.JSON["event"].(map[string]any); ev["accessCode"] != nil {
			t.Fatalf("accessCode = %v", ev["accessCode"])
		}
	})
	t.Run("challenges keep existing ids and get new ones", func(t *testing.T) {
		r := owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"challenges": []any{
			map[string]any{"id": first["id"], "label": "First dance!"}, "Bouquet", map[string]any{"id": "madeupmadeupmade", "label": "Toast"},
		}}).expect(t, 200, "")
		got := r.JSON["event"].(map[string]any)["challenges"].([]any)
		if len(got) != 3 {
			t.Fatalf("challenges = %v", got)
		}
		c0, c1, c2 := got[0].(map[string]any), got[1].(map[string]any), got[2].(map[string]any)
		if c0["id"] != first["id"] || c0["label"] != "First dance!" {
			t.Errorf("existing challenge = %v, want id %v kept", c0, first["id"])
		}
		if c1["id"] == "" || c1["id"] == first["id"] || c1["label"] != "Bouquet" {
			t.Errorf("new challenge = %v", c1)
		}
		if c2["id"] == "madeupmadeupmade" {
			t.Errorf("an unknown id was accepted: %v", c2)
		}
	})
	t.Run("rotate gives a new slug", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/events/"+id+"/rotate", nil).expect(t, 200, "")
		if s := r.JSON["event"].(map[string]any)["slug"]; s == e["slug"] || s == "" {
			t.Fatalf("slug %v after rotating %v", s, e["slug"])
		}
	})
	t.Run("delete removes the event", func(t *testing.T) {
		owner.do("DELETE", "/api/admin/events/"+id, nil).expect(t, 200, "")
		owner.do("GET", "/api/admin/events/"+id, nil).expect(t, 404, "not_found")
		owner.do("DELETE", "/api/admin/events/"+id, nil).expect(t, 404, "not_found")
	})
}

func TestEventRoles(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	mine := h.createEvent(owner, map[string]any{"name": "Mine"})["id"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
	org := h.organizer("planner", mine)
	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		wantStatus int
		wantCode   string
	}{
		{"an organizer reads its event", "GET", "/api/admin/events/" + mine, nil, 200, ""},
		{"an organizer edits its event", "PATCH", "/api/admin/events/" + mine, map[string]any{"description": "x"}, 200, ""},
		{"an organizer rotates its event", "POST", "/api/admin/events/" + mine + "/rotate", nil, 200, ""},
		{"another event is not found", "GET", "/api/admin/events/" + other, nil, 404, "not_found"},
		{"another event cannot be edited", "PATCH", "/api/admin/events/" + other, map[string]any{"name": "x"}, 404, "not_found"},
		{"another event cannot be rotated", "POST", "/api/admin/events/" + other + "/rotate", nil, 404, "not_found"},
		{"creating events is for owners", "POST", "/api/admin/events", map[string]any{"name": "x"}, 403, "forbidden"},
		{"deleting events is for owners", "DELETE", "/api/admin/events/" + mine, nil, 403, "forbidden"},
		{"a malformed id is not found", "GET", "/api/admin/events/../../etc", nil, 404, "not_found"},
		{"owner-only routes answer 403", "GET", "/api/admin/accounts", nil, 403, "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			org.do(tt.method, tt.path, tt.body).expect(t, tt.wantStatus, tt.wantCode)
		})
	}
	t.Run("an organizer lists only its events", func(t *testing.T) {
		r := org.do("GET", "/api/admin/events", nil).expect(t, 200, "")
		events := r.JSON["events"].([]any)
		if len(events) != 1 || events[0].(map[string]any)["id"] != mine {
			t.Fatalf("events = %v", events)
		}
	})
}

func TestEventList(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	for i := 1; i <= 25; i++ {
		h.createEvent(owner, map[string]any{"name": fmt.Sprintf("Party %02d", i)})
		h.clock.Advance(time.Second)
	}
	h.createEvent(owner, map[string]any{"name": "Wedding of Ana"})
	tests := []struct {
		name                 string
		query                string
		wantStatus           int
		wantLen, total, page int
		pageCount            int
		first                string
	}{
		{"without paging every event comes, newest first", "", 200, 26, -1, -1, -1, "Wedding of Ana"},
		{"the first page has 20 by default", "?page=1", 200, 20, 26, 1, 2, "Wedding of Ana"},
		{"the second page has the rest", "?page=2", 200, 6, 26, 2, 2, "Party 06"},
		{"perPage sets the size", "?page=3&perPage=5", 200, 5, 26, 3, 6, "Party 16"},
		{"a page past the end is empty", "?page=9", 200, 0, 26, 9, 2, ""},
		{"q filters by name", "?q=wedding", 200, 1, 1, 1, 1, "Wedding of Ana"},
		{"q with no match gives an empty page", "?q=funeral", 200, 0, 0, 1, 1, ""},
		{"perPage 0 is refused", "?perPage=0", 400, 0, 0, 0, 0, ""},
		{"perPage 101 is refused", "?perPage=101", 400, 0, 0, 0, 0, ""},
		{"page 0 is refused", "?page=0", 400, 0, 0, 0, 0, ""},
		{"a page that is not a number is refused", "?page=two", 400, 0, 0, 0, 0, ""},
		{"the largest page with 100 a page is empty, not an overflow", "?page=9223372036854775807&perPage=100", 200, 0, 26, math.MaxInt64, 1, ""},
		{"the largest page with the default size is empty", "?page=9223372036854775807", 200, 0, 26, math.MaxInt64, 2, ""},
		{"a page beyond the largest number is refused", "?page=9223372036854775808&perPage=100", 400, 0, 0, 0, 0, ""},
		{"a negative page is refused", "?page=-9223372036854775808&perPage=100", 400, 0, 0, 0, 0, ""},
		{"the largest perPage is refused", "?page=2&perPage=9223372036854775807", 400, 0, 0, 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("GET", "/api/admin/events"+tt.query, nil)
			if tt.wantStatus != 200 {
				r.expect(t, tt.wantStatus, "bad_request")
				if len(r.details()) != 1 {
					t.Errorf("details %v, want one field named", r.details())
				}
				return
			}
			r.expect(t, 200, "")
			events := r.JSON["events"].([]any)
			if len(events) != tt.wantLen {
				t.Fatalf("%d events, want %d", len(events), tt.wantLen)
			}
			if tt.first != "" && events[0].(map[string]any)["name"] != tt.first {
				t.Errorf("first = %v, want %s", events[0].(map[string]any)["name"], tt.first)
			}
			if tt.total >= 0 {
				if r.JSON["total"] != float64(tt.total) || r.JSON["page"] != float64(tt.page) || r.JSON["pageCount"] != float64(tt.pageCount) {
					t.Errorf("total/page/pageCount = %v/%v/%v", r.JSON["total"], r.JSON["page"], r.JSON["pageCount"])
				}
			} else if _, ok := r.JSON["total"]; ok {
				t.Errorf("an unpaged list carries total")
			}
			if len(events) > 0 {
				row := events[0].(map[string]any)
				for _, k := range []string{"id", "slug", "name", "eventDate", "createdAt", "endedAt", "uploadsOpen", "photos", "pending"} {
					if _, ok := row[k]; !ok {
						t.Errorf("summary lacks %s", k)
					}
				}
			}
		})
	}
}
