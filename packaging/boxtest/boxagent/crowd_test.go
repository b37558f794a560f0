package main

import "testing"

// The box lets a phone go with the access point's deauthentication
// (reason 2); anything else after joining is the radio dropping it, and
// the phone joins again by itself.
func TestOnlyTheBoxsDeauthenticationLetsAPhoneGo(t *testing.T) {
	for _, c := range []struct {
		ev     string
		reason string
		letGo  bool
	}{
		{"<3>CTRL-EVENT-DISCONNECTED bssid=02:00:00:00:00:00 reason=2", "reason=2", true},
		{"<3>CTRL-EVENT-DISCONNECTED bssid=02:00:00:00:00:00 reason=15", "reason=15", false},
		{"<3>CTRL-EVENT-DISCONNECTED bssid=02:00:00:00:00:00 reason=2 locally_generated=1", "reason=2", false},
		{"<3>CTRL-EVENT-DISCONNECTED bssid=02:00:00:00:00:00 reason=3 locally_generated=1", "reason=3", false},
		{"<3>CTRL-EVENT-DISCONNECTED bssid=02:00:00:00:00:00", "", false},
	} {
		if got := reasonOf(c.ev); got != c.reason {
			t.Errorf("reasonOf(%q) = %q, want %q", c.ev, got, c.reason)
		}
		if got := letGoByTheBox(c.ev); got != c.letGo {
			t.Errorf("letGoByTheBox(%q) = %v, want %v", c.ev, got, c.letGo)
		}
	}
}
