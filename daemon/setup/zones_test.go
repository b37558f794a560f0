package setup

import (
	"regexp"
	"testing"

	"eventbox/netsetup"
)

// TestListsHoldWhatTheBoxTakes: every time zone of the page's list is one
// the box takes (a name this machine's time package loads), and every
// country a two-letter code.
func TestListsHoldWhatTheBoxTakes(t *testing.T) {
	if len(timeZones) < 300 || len(countries) < 240 {
		t.Fatalf("%d time zones and %d countries: the lists were not generated whole", len(timeZones), len(countries))
	}
	for _, z := range timeZones {
		if msg := netsetup.TimeZoneProblem(z); msg != "" {
			t.Errorf("time zone %s: %s", z, msg)
		}
	}
	code := regexp.MustCompile(`^[A-Z]{2}$`)
	for _, c := range countries {
		if _, err := netsetup.PlanCountry(c[0], netsetup.Facts{}); err != nil || !code.MatchString(c[0]) || c[1] == "" {
			t.Errorf("country %q: %v", c, err)
		}
	}
}
