package scenarios_test

import (
	"strings"
	"testing"
)

// TestFrontPageNeverDeadEnds: with several open events the front page's
// list names them (not a closed one, never a code), and a code typed on
// it opens its event: the access code the hosts gave out joins this
// browser; a slug or a pasted link answers the slug; anything else is
// invalid_code.
func TestFrontPageNeverDeadEnds(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	roses := h.createEvent(owner, map[string]any{"name": "Roses wedding", "accessCode": "Roses"})["slug"].(string)
	party := h.createEvent(owner, map[string]any{"name": "Birthday", "accentColor": "#aa3355"})["slug"].(string)
	h.createEvent(owner, map[string]any{"name": "Closed", "uploadsOpen": false})

	r := h.client().do("GET", "/api/events", nil).expect(t, 200, "")
	list := r.JSON["events"].([]any)
	if len(list) != 2 {
		t.Fatalf("events = %v", list)
	}
	first, second := list[0].(map[string]any), list[1].(map[string]any)
	if first["name"] != "Birthday" || first["slug"] != party || first["needsCode"] != false || first["accentColor"] != "#aa3355" ||
		second["name"] != "Roses wedding" || second["needsCode"] != true {
		t.Fatalf("events = %v", list)
	}
	if strings.Contains(strings.ToLower(string(r.Body)), `"roses"`) || strings.Contains(string(r.Body), "accessCode") {
		t.Fatalf("the list gives a code away: %s", r.Body)
	}

	tests := []struct {
		name     string
		code     string
		status   int
		errCode  string
		slug     string
		joinedIn string
	}{
		{"the access code joins its event", "  ROSES ", 200, "", roses, roses},
		{"a slug opens its event", strings.ToUpper(party), 200, "", party, ""},
		{"a pasted link opens its event", "http://eventbox.local/e/" + party + "?at=x", 200, "", party, ""},
		{"a wrong code is invalid_code", "tulips", 401, "invalid_code", "", ""},
		{"an empty code is a bad request", "  ", 400, "bad_request", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := h.client()
			r := c.do("POST", "/api/join", map[string]any{"code": tt.code}).expect(t, tt.status, tt.errCode)
			if tt.slug != "" && r.JSON["slug"] != tt.slug {
				t.Fatalf("slug = %v, want %s", r.JSON["slug"], tt.slug)
			}
			if tt.joinedIn != "" {
				g := c.do("GET", "/api/e/"+tt.joinedIn, nil).JSON["guest"].(map[string]any)
				if g["joined"] != true {
					t.Fatalf("not joined: %v", g)
				}
			}
		})
	}
}
