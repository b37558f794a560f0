package scenarios_test

import (
	"strings"
	"testing"

	"eventbox"
	"eventbox/daemon"
)

// TestAbout: any signed-in account reads the running version, eventbox's
// licence and the third-party notice; a browser that is not signed in
// gets a 401.
func TestAbout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *daemon.Config) { c.Version = "1.4.2" })
	ev := h.createEvent(h.owner(), map[string]any{"name": "Party"})
	tests := []struct {
		name   string
		client func() *client
		status int
		code   string
	}{
		{"an owner", h.owner, 200, ""},
		{"an organizer", func() *client { return h.organizer("ada", ev["id"].(string)) }, 200, ""},
		{"a browser that is not signed in", h.client, 401, "unauthorized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.client().do("GET", "/api/admin/about", nil).expect(t, tc.status, tc.code)
			if tc.status != 200 {
				return
			}
			if got := res.JSON["version"]; got != "1.4.2" {
				t.Errorf("version %v, want 1.4.2", got)
			}
			if got := res.JSON["license"]; got != "Apache-2.0" {
				t.Errorf("license %v, want Apache-2.0", got)
			}
			if got, _ := res.JSON["licenseText"].(string); got != eventbox.LicenseText() {
				t.Errorf("licenseText is not LICENSE (%d bytes)", len(got))
			}
			notice, _ := res.JSON["notice"].(string)
			if notice != eventbox.ThirdPartyNotices() {
				t.Errorf("notice is not THIRD_PARTY_NOTICES.md (%d bytes)", len(notice))
			}
			for _, want := range []string{"libheif", "libde265", "EventboxHangul.ttf", "go.etcd.io/bbolt"} {
				if !strings.Contains(notice, want) {
					t.Errorf("the notice does not name %s", want)
				}
			}
		})
	}
}
