package scenarios_test

import (
	"os"
	"testing"
)

// TestVoiceNoteSeconds: seconds must be a real length close to the
// recording's; NaN, infinities, negatives and absurd values are 400
// naming seconds.
func TestVoiceNoteSeconds(t *testing.T) {
	h := newHarness(t)
	ev := h.createEvent(h.owner(), map[string]any{"name": "Voices", "guestbookEnabled": true, "guestbookVoice": true})
	slug := ev["slug"].(string)
	g := h.guest(slug)
	ogg, err := os.ReadFile("../../probe/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		seconds    string
		wantStatus int
	}{
		{"0.8", 201},
		{"NaN", 400},
		{"nan", 400},
		{"Inf", 400},
		{"+Inf", 400},
		{"-Inf", 400},
		{"infinity", 400},
		{"1e400", 400},
		{"1e308", 400},
		{"-1", 400},
		{"-0", 400},
		{"0", 400},
		{"86400", 400},
		{"", 400},
	} {
		t.Run("seconds="+tc.seconds, func(t *testing.T) {
			r := g.postMessage(slug, "", ogg, tc.seconds)
			if tc.wantStatus == 201 {
				r.expect(t, 201, "")
				return
			}
			r.expect(t, 400, "bad_request")
			if _, ok := r.details()["seconds"]; !ok || len(r.details()) != 1 {
				t.Fatalf("details %v, want seconds only", r.details())
			}
		})
	}
}

// TestControlCharactersAreRefused: single-line text a user sets (guest
// names, credits, event names, access codes, challenge, place and link
// labels, account names) refuses control characters and line breaks, and
// multi-line text (messages, descriptions) refuses control characters but
// takes line breaks. Runs of white space in guest names and labels are
// still collapsed.
func TestControlCharactersAreRefused(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Texts", "guestbookEnabled": true})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	spot := owner.do("POST", "/api/admin/events/"+id+"/spots", map[string]any{"label": "Table 1"}).expect(t, 201, "")
	spotID := spot.JSON["spot"].(map[string]any)["id"].(string)
	jpeg := photoJPEG(t, 64, 48, 0, false, 7)

	type row struct {
		name       string
		send       func() response
		wantStatus int
		field      string
	}
	json := func(c *client, method, path string, body map[string]any) func() response {
		return func() response { return c.do(method, path, body) }
	}
	importWith := func(credit string) func() response {
		return func() response {
			ct, body := multipartBody(t, "photo", "a.jpg", jpeg, map[string]string{"credit": credit})
			return owner.do("POST", "/api/admin/events/"+id+"/photos/import", body, "Content-Type", ct)
		}
	}
	rows := []row{
		{"a guest name with NUL is refused", json(g, "POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana\x00"}), 400, "name"},
		{"a guest name with an escape sequence is refused", json(g, "POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana\x1b[2J"}), 400, "name"},
		{"a guest name with DEL is refused", json(g, "POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana\x7f"}), 400, "name"},
		{"a guest name with a C1 control is refused", json(g, "POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana\u009b"}), 400, "name"},
		{"a guest name with a right-to-left override is refused", json(g, "POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana\u202egpj.exe"}), 400, "name"},
		{"a guest name with a tab has it collapsed", json(g, "POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana\t\nMaria"}), 200, ""},
		{"a guest name with an emoji sequence is taken", json(g, "POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana 👩\u200d👩\u200d👧"}), 200, ""},
		{"an import credit with a control is refused", importWith("Studio\x07"), 400, "credit"},
		{"an event name with a bell is refused", json(owner, "POST", "/api/admin/events", map[string]any{"name": "Party\x07"}), 400, "name"},
		{"an event name with a newline is refused", json(owner, "POST", "/api/admin/events", map[string]any{"name": "Party\nTwo"}), 400, "name"},
		{"an event name with a line separator is refused", json(owner, "PATCH", "/api/admin/events/"+id, map[string]any{"name": "Party\u2028Two"}), 400, "name"},
		{"a description with line breaks is taken", json(owner, "PATCH", "/api/admin/events/"+id, map[string]any{"description": "Line one\nLine two\r\n\tindented"}), 200, ""},
		{"a description with a control is refused", json(owner, "PATCH", "/api/admin/events/"+id, map[string]any{"description": "Line\x00"}), 400, "description"},
		{"an access code with a control is refused", json(owner, "PATCH", "/api/admin/events/"+id, map[string]any{"accessCode": "open\x00sesame"}), 400, "accessCode"},
		{"a challenge label with a control is refused", json(owner, "PATCH", "/api/admin/events/"+id, map[string]any{"challenges": []any{map[string]any{"label": "Sel\x00fie"}}}), 400, "challenges"},
		{"a duplicate's name with a control is refused", json(owner, "POST", "/api/admin/events/"+id+"/duplicate", map[string]any{"name": "Copy\x1b"}), 400, "name"},
		{"a place label with a control is refused", json(owner, "POST", "/api/admin/events/"+id+"/spots", map[string]any{"label": "Table\x00 2"}), 400, "label"},
		{"a place rename with a control is refused", json(owner, "PATCH", "/api/admin/events/"+id+"/spots/"+spotID, map[string]any{"label": "Bar\u202e"}), 400, "label"},
		{"a gallery link label with a control is refused", json(owner, "POST", "/api/admin/events/"+id+"/shares", map[string]any{"label": "Family\x1b"}), 400, "label"},
		{"an account name with a control is refused", json(owner, "POST", "/api/admin/accounts", map[string]any{"username": "bob", "role": "organizer", "name": "Bob\x00"}), 400, "name"},
		{"one's own name with a control is refused", json(owner, "PATCH", "/api/admin/me", map[string]any{"name": "Me\x08"}), 400, "name"},
		{"a message with line breaks is taken", func() response { return g.postMessage(slug, "Hello\nyou two", nil, "") }, 201, ""},
		{"a message with a control is refused", func() response { return g.postMessage(slug, "Hello\x00", nil, "") }, 400, "text"},
		{"a message with an escape sequence is refused", func() response { return g.postMessage(slug, "Hi\x1b[31m", nil, "") }, 400, "text"},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.send()
			if tc.wantStatus != 400 {
				r.expect(t, tc.wantStatus, "")
				return
			}
			r.expect(t, 400, "bad_request")
			if _, ok := r.details()[tc.field]; !ok {
				t.Fatalf("details %v do not name %s", r.details(), tc.field)
			}
		})
	}
	t.Run("the collapsed guest name is stored", func(t *testing.T) {
		r := g.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": " Ana\t\tMaria\n"}).expect(t, 200, "")
		if r.JSON["name"] != "Ana Maria" {
			t.Fatalf("name %q", r.JSON["name"])
		}
	})
}

// TestCursorOverflow: the before= cursor of every paged list takes the
// largest epoch ms and refuses what does not fit (the guest's message
// list is not paged).
func TestCursorOverflow(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Cursors", "guestbookEnabled": true})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	g.upload(slug, photoJPEG(t, 64, 48, 0, false, 3), nil, "").expect(t, 201, "")
	for _, path := range []string{
		"/api/e/" + slug + "/photos",
		"/api/admin/events/" + id + "/photos", "/api/admin/events/" + id + "/messages",
	} {
		c := owner
		if path[5] == 'e' {
			c = g
		}
		t.Run(path+" takes the largest cursor", func(t *testing.T) {
			c.do("GET", path+"?before=9223372036854775807", nil).expect(t, 200, "")
		})
		t.Run(path+" refuses a cursor past the largest", func(t *testing.T) {
			r := c.do("GET", path+"?before=9223372036854775808", nil).expect(t, 400, "bad_request")
			if _, ok := r.details()["before"]; !ok {
				t.Fatalf("details %v", r.details())
			}
		})
	}
}
