package netsetup_test

import (
	"context"
	"testing"

	"eventbox/netsetup"
	"eventbox/netsetup/nmtest"
)

// TestHotspotWiFiForTheSigns is what the printed signs get as the hotspot's
// Wi-Fi on a box whose connection file is root's (0600), which the daemon's
// user cannot read: NetworkManager's answer through nmcli, and the keyfile
// only when nmcli is missing or fails. Tests run as root, so "unreadable"
// is a keyfile that is not there: a case that passes with no keyfile and
// nmcli answering is one the daemon passes on a real box.
func TestHotspotWiFiForTheSigns(t *testing.T) {
	tests := []struct {
		name    string
		nm      func(nm *nmtest.NM) // nil: no nmcli on the machine
		keyfile [2]string           // the root-only keyfile's name and passphrase; "" none
		want    [2]string
		wantOK  bool
	}{
		{name: "nmcli answers, the keyfile unreadable: NetworkManager's name and passphrase",
			nm: func(*nmtest.NM) {}, want: [2]string{"Party", "letmein123"}, wantOK: true},
		{name: "nmcli answers an open hotspot", nm: func(nm *nmtest.NM) { nm.Hotspot.Password = "" },
			want: [2]string{"Party", ""}, wantOK: true},
		{name: "nmcli is believed over a keyfile it does not load",
			nm: func(*nmtest.NM) {}, keyfile: [2]string{"Old name", "oldpassword"}, want: [2]string{"Party", "letmein123"}, wantOK: true},
		{name: "no hotspot in NetworkManager: none", nm: func(nm *nmtest.NM) { nm.Hotspot = nil }},
		{name: "nmcli fails: the keyfile, when it can be read", nm: func(nm *nmtest.NM) { nm.Stopped = true },
			keyfile: [2]string{"Garden", "correct horse"}, want: [2]string{"Garden", "correct horse"}, wantOK: true},
		{name: "nmcli fails and the keyfile cannot be read: none", nm: func(nm *nmtest.NM) { nm.Stopped = true }},
		{name: "no nmcli: the keyfile", keyfile: [2]string{"Garden", "correct horse"}, want: [2]string{"Garden", "correct horse"}, wantOK: true},
		{name: "the passphrase hidden (no polkit rule): the keyfile",
			nm: func(nm *nmtest.NM) { nm.HideSecrets = true }, keyfile: [2]string{"Party", "letmein123"},
			want: [2]string{"Party", "letmein123"}, wantOK: true},
		{name: "the passphrase hidden and a keyfile of an open network: none",
			nm: func(nm *nmtest.NM) { nm.HideSecrets = true }, keyfile: [2]string{"Party", ""}},
		{name: "the passphrase hidden and no keyfile: none, never an open network on the sign",
			nm: func(nm *nmtest.NM) { nm.HideSecrets = true }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.keyfile[0] != "" {
				plan, err := netsetup.PlanHotspot(netsetup.HotspotOptions{SSID: tc.keyfile[0], Password: tc.keyfile[1]}, netsetup.Facts{})
				if err != nil {
					t.Fatal(err)
				}
				if err := (netsetup.Applier{Runner: &fakeRunner{}, Root: root, Logger: discard()}).Apply(context.Background(), plan); err != nil {
					t.Fatal(err)
				}
			}
			var runner netsetup.Runner
			if tc.nm != nil {
				nm := nmtest.New()
				tc.nm(nm)
				runner = nm
			}
			ssid, password, ok := netsetup.HotspotWiFi(context.Background(), runner, root, "", discard())
			if ssid != tc.want[0] || password != tc.want[1] || ok != tc.wantOK {
				t.Errorf("HotspotWiFi = %q, %q, %v; want %q, %q, %v", ssid, password, ok, tc.want[0], tc.want[1], tc.wantOK)
			}
		})
	}
}
