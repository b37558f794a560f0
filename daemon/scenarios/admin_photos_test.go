package scenarios_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"eventbox/daemon"
	"eventbox/store"
)

// photoIDs lists the ids of a { photos } answer in order.
func photoIDs(t *testing.T, r response) []string {
	t.Helper()
	list, ok := r.JSON["photos"].([]any)
	if !ok {
		t.Fatalf("answer has no photos list: %s", r.Body)
	}
	ids := make([]string, 0, len(list))
	for _, p := range list {
		ids = append(ids, p.(map[string]any)["id"].(string))
	}
	return ids
}

// photoByID finds a photo of a { photos } answer.
func photoByID(t *testing.T, r response, id string) map[string]any {
	t.Helper()
	for _, p := range r.JSON["photos"].([]any) {
		if m := p.(map[string]any); m["id"] == id {
			return m
		}
	}
	t.Fatalf("photo %s is not in %s", id, r.Body)
	return nil
}

func uploadID(t *testing.T, c *client, slug string, seed int, fields map[string]string, query string) string {
	t.Helper()
	r := c.upload(slug, photoJPEG(t, 40, 30, 0, false, seed), fields, query).expect(t, 201, "")
	return r.JSON["photo"].(map[string]any)["id"].(string)
}

func TestAdminPhotoListFilters(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "challenges": []string{"Cake", "Dance"}})
	id, slug := ev["id"].(string), ev["slug"].(string)
	cake := ev["challenges"].([]any)[0].(map[string]any)["id"].(string)
	spot := owner.do("POST", "/api/admin/events/"+id+"/spots", map[string]any{"label": "Bar"}).expect(t, 201, "").JSON["spot"].(map[string]any)["id"].(string)
	g := h.guest(slug)
	p1 := uploadID(t, g, slug, 1, map[string]string{"challenge": cake}, "?at="+spot)
	owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"moderation": "pre"}).expect(t, 200, "")
	p2 := uploadID(t, g, slug, 2, nil, "")
	p3 := uploadID(t, g, slug, 3, nil, "")
	act := func(action string, ids ...string) int {
		r := owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": action, "ids": ids}).expect(t, 200, "")
		return int(r.JSON["changed"].(float64))
	}
	if n := act("hide", p3); n != 1 {
		t.Fatalf("hide changed %d", n)
	}
	if n := act("favorite", p1); n != 1 {
		t.Fatalf("favorite changed %d", n)
	}

	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"without a filter every status shows, newest first", "", []string{p3, p2, p1}},
		{"status=pending keeps the photos waiting for review", "?status=pending", []string{p2}},
		{"status=hidden keeps the hidden ones", "?status=hidden", []string{p3}},
		{"status=visible keeps the visible ones", "?status=visible", []string{p1}},
		{"favorites=1 keeps the favorites", "?favorites=1", []string{p1}},
		{"favorites=1 with a status combines both", "?favorites=1&status=pending", []string{}},
		{"challenge keeps that challenge's photos", "?challenge=" + cake, []string{p1}},
		{"spot keeps the place's photos", "?spot=" + spot, []string{p1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("GET", "/api/admin/events/"+id+"/photos"+tt.query, nil).expect(t, 200, "")
			if got := photoIDs(t, r); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("ids = %v, want %v", got, tt.want)
			}
			if r.JSON["nextCursor"] != nil {
				t.Fatalf("nextCursor = %v on a short list", r.JSON["nextCursor"])
			}
		})
	}
	t.Run("admins get downloads and favorite, guests do not", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/events/"+id+"/photos", nil).expect(t, 200, "")
		p := photoByID(t, r, p1)
		if p["favorite"] != true || p["downloads"] != float64(0) || p["status"] != "visible" || p["challengeId"] != cake || p["mine"] != false {
			t.Fatalf("admin photo = %v", p)
		}
		if p := photoByID(t, r, p2); p["favorite"] != false {
			t.Fatalf("pending photo = %v", p)
		}
		mine := g.do("GET", "/api/e/"+slug+"/photos", nil).expect(t, 200, "")
		for _, q := range mine.JSON["photos"].([]any) {
			m := q.(map[string]any)
			if _, ok := m["downloads"]; ok {
				t.Fatalf("a guest sees downloads: %v", m)
			}
			if _, ok := m["favorite"]; ok {
				t.Fatalf("a guest sees favorite: %v", m)
			}
		}
	})
	bad := []struct {
		name, query, field string
	}{
		{"an unknown status is refused", "?status=deleted", "status"},
		{"favorites must be 1 or 0", "?favorites=yes", "favorites"},
		{"a challenge must be an id", "?challenge=../x", "challenge"},
		{"a spot must be an id", "?spot=bar", "spot"},
		{"before must be epoch milliseconds", "?before=yesterday", "before"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("GET", "/api/admin/events/"+id+"/photos"+tt.query, nil).expect(t, 400, "bad_request")
			if _, ok := r.details()[tt.field]; !ok {
				t.Fatalf("details = %v, want %s", r.details(), tt.field)
			}
		})
	}
}

func TestAdminPhotoListPages(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "P"})["id"].(string)
	ctx := context.Background()
	for i := 0; i < 130; i++ {
		status := store.StatusVisible
		if i%2 == 0 {
			status = store.StatusHidden
		}
		if _, err := h.st.Photos().Add(ctx, store.Photo{EventID: id, Status: status, Width: 1, Height: 1, Format: "jpeg"}, 0); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		query string
		pages []int
	}{
		{"every photo in pages of 60", "", []int{60, 60, 10}},
		{"the hidden half in pages of 60", "status=hidden", []int{60, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sizes []int
			var last float64
			cursor := ""
			for len(sizes) < 10 {
				q := tt.query
				if cursor != "" {
					q += "&before=" + cursor
				}
				r := owner.do("GET", "/api/admin/events/"+id+"/photos?"+q, nil).expect(t, 200, "")
				list := r.JSON["photos"].([]any)
				sizes = append(sizes, len(list))
				for _, p := range list {
					at := p.(map[string]any)["createdAt"].(float64)
					if last != 0 && at >= last {
						t.Fatalf("not newest first: %v after %v", at, last)
					}
					last = at
				}
				next := r.JSON["nextCursor"]
				if next == nil {
					break
				}
				if next.(float64) != last {
					t.Fatalf("nextCursor %v is not the last item's createdAt %v", next, last)
				}
				cursor = fmt.Sprintf("%.0f", next.(float64))
			}
			if fmt.Sprint(sizes) != fmt.Sprint(tt.pages) {
				t.Fatalf("pages %v, want %v", sizes, tt.pages)
			}
		})
	}
}

func TestAdminPhotoActions(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "moderation": "pre"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Other"})
	g := h.guest(slug)
	a, b := uploadID(t, g, slug, 1, nil, ""), uploadID(t, g, slug, 2, nil, "")
	foreign := uploadID(t, h.guest(other["slug"].(string)), other["slug"].(string), 3, nil, "")
	waitVariants(t, h)
	status := func(eventID, pid string) map[string]any {
		r := owner.do("GET", "/api/admin/events/"+eventID+"/photos", nil).expect(t, 200, "")
		return photoByID(t, r, pid)
	}
	steps := []struct {
		name    string
		action  string
		ids     []string
		changed int
		check   func(t *testing.T)
	}{
		{"approve makes pending photos visible", "approve", []string{a, b}, 2, func(t *testing.T) {
			if s := status(id, a)["status"]; s != "visible" {
				t.Fatalf("status %v", s)
			}
		}},
		{"approving again changes nothing", "approve", []string{a}, 0, nil},
		{"hide makes a photo hidden", "hide", []string{b}, 1, func(t *testing.T) {
			if s := status(id, b)["status"]; s != "hidden" {
				t.Fatalf("status %v", s)
			}
		}},
		{"favorite marks it without touching its status", "favorite", []string{b}, 1, func(t *testing.T) {
			p := status(id, b)
			if p["favorite"] != true || p["status"] != "hidden" {
				t.Fatalf("photo %v", p)
			}
		}},
		{"unfavorite clears the mark", "unfavorite", []string{b, b}, 1, func(t *testing.T) {
			if f := status(id, b)["favorite"]; f != false {
				t.Fatalf("favorite %v", f)
			}
		}},
		{"ids of another event are not touched", "hide", []string{foreign}, 0, func(t *testing.T) {
			if s := status(other["id"].(string), foreign)["status"]; s != "visible" {
				t.Fatalf("the other event's photo is %v", s)
			}
		}},
		{"unknown ids are skipped", "favorite", []string{store.NewID()}, 0, nil},
		{"delete removes the photo and its files", "delete", []string{a, foreign}, 1, func(t *testing.T) {
			r := owner.do("GET", "/api/admin/events/"+id+"/photos", nil).expect(t, 200, "")
			if got := photoIDs(t, r); fmt.Sprint(got) != fmt.Sprint([]string{b}) {
				t.Fatalf("left %v", got)
			}
			owner.do("GET", "/api/media/"+a+"?v=original", nil).expect(t, 404, "not_found")
			owner.do("GET", "/api/media/"+foreign+"?v=original", nil).expect(t, 200, "")
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": st.action, "ids": st.ids}).expect(t, 200, "")
			if got := int(r.JSON["changed"].(float64)); got != st.changed {
				t.Fatalf("changed = %d, want %d", got, st.changed)
			}
			if st.check != nil {
				st.check(t)
			}
		})
	}
	bad := []struct {
		name  string
		body  any
		field string
	}{
		{"an unknown action is refused", map[string]any{"action": "publish", "ids": []string{b}}, "action"},
		{"an empty id list is refused", map[string]any{"action": "hide", "ids": []string{}}, "ids"},
		{"ids must be a list", map[string]any{"action": "hide", "ids": b}, "ids"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("POST", "/api/admin/events/"+id+"/photos", tt.body).expect(t, 400, "bad_request")
			if _, ok := r.details()[tt.field]; !ok {
				t.Fatalf("details = %v", r.details())
			}
		})
	}
}

func TestAdminImport(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) { c.MaxUploadMB = 1 })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "moderation": "pre", "uploadsOpen": false, "maxPhotosPerGuest": 1})
	id := ev["id"].(string)
	importPhoto := func(c *client, data []byte, fields map[string]string) response {
		ct, body := multipartBody(t, "photo", "DSC_0001.jpg", data, fields)
		return c.do("POST", "/api/admin/events/"+id+"/photos/import", body, "Content-Type", ct)
	}
	jpeg := photoJPEG(t, 300, 200, 0, false, 9)
	t.Run("an import is visible at once, credited, even with uploads closed", func(t *testing.T) {
		r := importPhoto(owner, jpeg, map[string]string{"credit": "  Studio   Lumière "}).expect(t, 201, "")
		p := r.JSON["photo"].(map[string]any)
		if p["status"] != "visible" || p["guestName"] != "Studio Lumière" || p["width"] != float64(300) ||
			p["height"] != float64(200) || p["downloads"] != float64(0) || p["favorite"] != false || p["mine"] != false {
			t.Fatalf("photo = %v", p)
		}
		waitVariants(t, h)
		orig := owner.do("GET", "/api/media/"+p["id"].(string)+"?v=original", nil).expect(t, 200, "")
		if !bytes.Equal(orig.Body, jpeg) {
			t.Fatal("the original is not the bytes imported")
		}
		owner.do("GET", "/api/media/"+p["id"].(string)+"?v=thumb", nil).expect(t, 200, "")
	})
	t.Run("without a credit the photo has no guest name", func(t *testing.T) {
		p := importPhoto(owner, photoJPEG(t, 30, 30, 0, false, 10), nil).expect(t, 201, "").JSON["photo"].(map[string]any)
		if p["guestName"] != nil {
			t.Fatalf("guestName = %v", p["guestName"])
		}
	})
	t.Run("a quota does not apply to imports", func(t *testing.T) {
		importPhoto(owner, photoJPEG(t, 30, 30, 0, false, 11), nil).expect(t, 201, "")
	})
	fails := []struct {
		name   string
		data   []byte
		fields map[string]string
		status int
		code   string
	}{
		{"a file that is not an image is invalid_image", []byte("not an image at all"), nil, 415, "invalid_image"},
		{"a file over MAX_UPLOAD_MB is too_large", bytes.Repeat([]byte{0xff}, 1<<20+10), nil, 413, "too_large"},
		{"a credit over 60 characters is refused", jpeg, map[string]string{"credit": strings.Repeat("é", 61)}, 400, "bad_request"},
	}
	for _, tt := range fails {
		t.Run(tt.name, func(t *testing.T) {
			importPhoto(owner, tt.data, tt.fields).expect(t, tt.status, tt.code)
		})
	}
	t.Run("guests cannot import", func(t *testing.T) {
		importPhoto(h.guest(ev["slug"].(string)), jpeg, nil).expect(t, 401, "unauthorized")
	})
	r := owner.do("GET", "/api/admin/events/"+id+"/photos", nil).expect(t, 200, "")
	if n := len(photoIDs(t, r)); n != 3 {
		t.Fatalf("%d photos after the imports, want 3", n)
	}
}

func TestHostRoutesKeepOrganizersInScope(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	mine := h.createEvent(owner, map[string]any{"name": "Mine"})["id"].(string)
	theirs := h.createEvent(owner, map[string]any{"name": "Theirs"})["id"].(string)
	org := h.organizer("planner", mine)
	jpegCT, jpegBody := multipartBody(t, "photo", "a.jpg", photoJPEG(t, 20, 20, 0, false, 1), nil)
	routes := []struct {
		method, path string
		body         any
		headers      []string
	}{
		{"GET", "/photos", nil, nil},
		{"POST", "/photos", map[string]any{"action": "hide", "ids": []string{store.NewID()}}, nil},
		{"POST", "/photos/import", jpegBody, []string{"Content-Type", jpegCT}},
		{"GET", "/archive", nil, nil},
		{"GET", "/spots", nil, nil},
		{"POST", "/spots", map[string]any{"label": "Bar"}, nil},
		{"GET", "/shares", nil, nil},
		{"POST", "/shares", map[string]any{}, nil},
	}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path+" answers 404 outside the organizer's events", func(t *testing.T) {
			org.do(rt.method, "/api/admin/events/"+theirs+rt.path, rt.body, rt.headers...).expect(t, 404, "not_found")
		})
		t.Run(rt.method+" "+rt.path+" works inside them", func(t *testing.T) {
			r := org.do(rt.method, "/api/admin/events/"+mine+rt.path, rt.body, rt.headers...)
			if r.Status != 200 && r.Status != 201 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
		})
		t.Run(rt.method+" "+rt.path+" needs a signed-in host", func(t *testing.T) {
			h.client().do(rt.method, "/api/admin/events/"+mine+rt.path, rt.body, rt.headers...).expect(t, 401, "unauthorized")
		})
	}
}
