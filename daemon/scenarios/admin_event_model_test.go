package scenarios_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// eventModel is the answer of GET /api/admin/event-model.
type eventModel struct {
	Defaults      map[string]any                    `json:"defaults"`
	Values        map[string][]string               `json:"values"`
	Limits        map[string]struct{ Min, Max int } `json:"limits"`
	QRMinContrast float64                           `json:"qrMinContrast"`
}

func getEventModel(t *testing.T, c *client) eventModel {
	t.Helper()
	r := c.do("GET", "/api/admin/event-model", nil).expect(t, 200, "")
	var m eventModel
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("decoding the event model: %v: %s", err, r.Body)
	}
	return m
}

func TestEventModelRoles(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "Mine"})["id"].(string)
	tests := []struct {
		name   string
		c      *client
		status int
		code   string
	}{
		{"an owner reads the event model", owner, 200, ""},
		{"an organizer reads the event model", h.organizer("planner", id), 200, ""},
		{"a signed-out visitor does not", h.client(), 401, "unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.do("GET", "/api/admin/event-model", nil).expect(t, tt.status, tt.code)
		})
	}
}

// TestEventModelDefaultsAreANewEvent: the defaults the console starts its
// form from are the settings an event created with only a name gets.
func TestEventModelDefaultsAreANewEvent(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	m := getEventModel(t, owner)
	created := h.createEvent(owner, map[string]any{"name": "Party"})
	for _, k := range []string{"id", "slug", "createdAt", "endedAt", "logoVersion", "boothEnabled"} {
		delete(created, k)
	}
	created["name"] = ""
	if !reflect.DeepEqual(m.Defaults, created) {
		t.Errorf("defaults =\n%v\nwant the fields of a new event\n%v", m.Defaults, created)
	}
}

// TestEventModelValuesAreWhatUpdatesAccept: every value the model offers
// is accepted by an update, and the values are the spec's.
func TestEventModelValuesAreWhatUpdatesAccept(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	m := getEventModel(t, owner)
	want := map[string][]string{
		"moderation":       {"post", "pre"},
		"captureMode":      {"camera", "picker", "both"},
		"defaultLocale":    {"en", "fr", "it", "es"},
		"frame":            {"none", "print", "border", "stamp"},
		"captureFilters":   {"bw", "sepia", "vintage", "warm", "cool", "vivid"},
		"wallStyle.layout": {"single", "grid"},
		"qrStyle.dots":     {"square", "round"},
	}
	if !reflect.DeepEqual(m.Values, want) {
		t.Errorf("values = %v, want %v", m.Values, want)
	}
	id := h.createEvent(owner, map[string]any{"name": "Party"})["id"].(string)
	for key, values := range m.Values {
		for _, v := range values {
			var body map[string]any
			switch field, sub, nested := strings.Cut(key, "."); {
			case key == "captureFilters":
				body = map[string]any{key: map[string]any{"enabled": []string{v}}}
			case nested:
				body = map[string]any{field: map[string]any{sub: v}}
			default:
				body = map[string]any{key: v}
			}
			t.Run(key+" "+v+" is accepted", func(t *testing.T) {
				owner.do("PATCH", "/api/admin/events/"+id, body).expect(t, 200, "")
			})
		}
	}
	if m.QRMinContrast != 4 {
		t.Errorf("qrMinContrast = %v, want 4", m.QRMinContrast)
	}
}

// TestEventModelLimitsAreWhatUpdatesCheck: each limit's ends are accepted
// and one past them is refused, naming the field.
func TestEventModelLimitsAreWhatUpdatesCheck(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	m := getEventModel(t, owner)
	id := h.createEvent(owner, map[string]any{"name": "Party"})["id"].(string)
	text := func(n int) string { return strings.Repeat("a", n) }
	labels := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = text(size)
		}
		return out
	}
	bodies := map[string]struct {
		detail string
		body   func(n int) map[string]any
	}{
		"name":               {"name", func(n int) map[string]any { return map[string]any{"name": text(n)} }},
		"description":        {"description", func(n int) map[string]any { return map[string]any{"description": text(n)} }},
		"accessCode":         {"accessCode", func(n int) map[string]any { return map[string]any{"accessCode": text(n)} }},
		"challenges":         {"challenges", func(n int) map[string]any { return map[string]any{"challenges": labels(n, 5)} }},
		"challenges.label":   {"challenges", func(n int) map[string]any { return map[string]any{"challenges": labels(1, n)} }},
		"maxPhotosPerGuest":  {"maxPhotosPerGuest", func(n int) map[string]any { return map[string]any{"maxPhotosPerGuest": n} }},
		"galleryLinkDays":    {"galleryLinkDays", func(n int) map[string]any { return map[string]any{"galleryLinkDays": n} }},
		"wallStyle.interval": {"wallStyle", func(n int) map[string]any { return map[string]any{"wallStyle": map[string]any{"interval": n}} }},
	}
	var keys []string
	for k := range m.Limits {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"accessCode", "challenges", "challenges.label", "description", "galleryLinkDays", "maxPhotosPerGuest", "name", "wallStyle.interval"}; !slices.Equal(keys, want) {
		t.Fatalf("limits name %v, want %v", keys, want)
	}
	for key, lim := range m.Limits {
		b := bodies[key]
		t.Run(key+" takes its ends", func(t *testing.T) {
			owner.do("PATCH", "/api/admin/events/"+id, b.body(lim.Min)).expect(t, 200, "")
			owner.do("PATCH", "/api/admin/events/"+id, b.body(lim.Max)).expect(t, 200, "")
		})
		t.Run(key+" refuses one past its ends", func(t *testing.T) {
			for _, n := range []int{lim.Min - 1, lim.Max + 1} {
				if n < 0 {
					continue // a length below 0 cannot be sent
				}
				r := owner.do("PATCH", "/api/admin/events/"+id, b.body(n)).expect(t, 400, "bad_request")
				if _, ok := r.details()[b.detail]; !ok {
					t.Errorf("%d: details %v do not name %s", n, r.details(), b.detail)
				}
			}
		})
	}
}

// TestEventValidationMessages pins the wording of the refusals built from
// the event model, which clients show next to the field.
func TestEventValidationMessages(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "Party"})["id"].(string)
	tests := []struct {
		name  string
		body  map[string]any
		field string
		want  string
	}{
		{"a long name", map[string]any{"name": strings.Repeat("a", 101)}, "name", "must be 1 to 100 characters"},
		{"a long description", map[string]any{"description": strings.Repeat("a", 2001)}, "description", "must be at most 2000 characters"},
		{"a short access code", map[string]any{"accessCode": "ab"}, "accessCode", "must be 3 to 64 characters (null removes the code)"},
		{"an unknown moderation", map[string]any{"moderation": "later"}, "moderation", "must be post or pre"},
		{"an unknown capture mode", map[string]any{"captureMode": "video"}, "captureMode", "must be camera, picker or both"},
		{"too many photos per guest", map[string]any{"maxPhotosPerGuest": 100001}, "maxPhotosPerGuest", "must be 0 (no limit) to 100000"},
		{"an unknown language", map[string]any{"defaultLocale": "de"}, "defaultLocale", "must be en, fr, it, es or null"},
		{"too many gallery days", map[string]any{"galleryLinkDays": 3651}, "galleryLinkDays", "must be an integer from 0 to 3650"},
		{"too many challenges", map[string]any{"challenges": slices.Repeat([]string{"Cake"}, 51)}, "challenges", "at most 50 challenges"},
		{"an empty challenge", map[string]any{"challenges": []string{" "}}, "challenges", "each label must be 1 to 80 characters"},
		{"a fast wall", map[string]any{"wallStyle": map[string]any{"interval": 2}}, "wallStyle", "interval must be 3 to 120 seconds"},
		{"an unknown wall layout", map[string]any{"wallStyle": map[string]any{"layout": "mosaic"}}, "wallStyle", "layout must be single or grid"},
		{"an unknown frame", map[string]any{"frame": "gold"}, "frame", "must be none, print, border or stamp"},
		{"an unknown filter", map[string]any{"captureFilters": map[string]any{"enabled": []string{"glitter"}}}, "captureFilters", "enabled may only name bw, sepia, vintage, warm, cool, vivid"},
		{"unknown QR dots", map[string]any{"qrStyle": map[string]any{"dots": "hearts"}}, "qrStyle", "dots must be square or round"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("PATCH", "/api/admin/events/"+id, tt.body).expect(t, 400, "bad_request")
			if got := r.details()[tt.field]; got != tt.want {
				t.Errorf("details[%s] = %q, want %q", tt.field, got, tt.want)
			}
		})
	}
	t.Run("a duplicate's long name", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/events/"+id+"/duplicate", map[string]any{"name": strings.Repeat("a", 101)}).expect(t, 400, "bad_request")
		if got := r.details()["name"]; got != "must be 1 to 100 characters" {
			t.Errorf("details[name] = %q", got)
		}
	})
}

// TestEveryCaptureFilterHasARecipe: the guest page draws each filter the
// model allows (assets/web/js/filters.js) and offers no other, and each
// default language has its locale file.
func TestEveryCaptureFilterHasARecipe(t *testing.T) {
	h := newHarness(t)
	m := getEventModel(t, h.owner())
	src, err := os.ReadFile("../../assets/web/js/filters.js")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)export const FILTERS = \{(.*?)\n\};`).FindSubmatch(src)
	if block == nil {
		t.Fatal("no FILTERS table in filters.js")
	}
	var recipes []string
	for _, k := range regexp.MustCompile(`(?m)^\s*(\w+):`).FindAllSubmatch(block[1], -1) {
		recipes = append(recipes, string(k[1]))
	}
	if !slices.Equal(recipes, m.Values["captureFilters"]) {
		t.Errorf("filters.js draws %v, the event model allows %v", recipes, m.Values["captureFilters"])
	}
	for _, l := range m.Values["defaultLocale"] {
		if _, err := os.Stat(filepath.Join("../../assets/web/locales", l+".json")); err != nil {
			t.Errorf("language %s has no locale file: %v", l, err)
		}
	}
}
