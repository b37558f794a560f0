package netsetup_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"eventbox/netsetup"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newWiFi(t *testing.T) (netsetup.WiFi, *fakeNM) {
	t.Helper()
	root := t.TempDir()
	nm := newFakeNM(root)
	return netsetup.WiFi{Runner: nm, Root: root, Logger: quietLogger()}, nm
}

func TestScanListsEachNetworkOnceStrongestFirst(t *testing.T) {
	tests := []struct {
		name     string
		inRange  []fakeAP
		noRescan bool
		want     []netsetup.Network
	}{
		{
			name: "duplicates folded to their strongest access point, hidden ones left out",
			inRange: []fakeAP{
				{ssid: "Home", signal: 40, security: "WPA2"},
				{ssid: "Neighbours", signal: 70, security: "WPA1 WPA2"},
				{ssid: "", signal: 90, security: "WPA2"},
				{ssid: "Home", signal: 82, security: "WPA2 WPA3"},
				{ssid: "Café", signal: 70},
			},
			want: []netsetup.Network{
				{SSID: "Home", Signal: 82, Security: "WPA2 WPA3"},
				{SSID: "Café", Signal: 70},
				{SSID: "Neighbours", Signal: 70, Security: "WPA1 WPA2"},
			},
		},
		{
			name:    "colons and backslashes in names come back whole",
			inRange: []fakeAP{{ssid: `a:b\c`, signal: 50, security: "WPA2"}},
			want:    []netsetup.Network{{SSID: `a:b\c`, Signal: 50, Security: "WPA2"}},
		},
		{
			name:     "a radio that refuses a fresh scan lists the last one",
			inRange:  []fakeAP{{ssid: "Home", signal: 60, security: "WPA2"}},
			noRescan: true,
			want:     []netsetup.Network{{SSID: "Home", Signal: 60, Security: "WPA2"}},
		},
		{name: "nothing in range", want: []netsetup.Network{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, nm := newWiFi(t)
			nm.inRange, nm.noRescan = tc.inRange, tc.noRescan
			got, err := w.Scan(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Scan = %+v\nwant   %+v", got, tc.want)
			}
		})
	}
}

func TestScanFailsWhenNetworkManagerDoesNotAnswer(t *testing.T) {
	w, nm := newWiFi(t)
	for _, rescan := range []string{"yes", "no"} {
		nm.fail["nmcli -t -f IN-USE,SSID,SIGNAL,SECURITY device wifi list ifname wlan0 --rescan "+rescan] = "Error: NetworkManager is not running."
	}
	if _, err := w.Scan(context.Background()); err == nil || !strings.Contains(err.Error(), "NetworkManager is not running") {
		t.Errorf("Scan error = %v, want NetworkManager's words", err)
	}
}

func TestJoinConnectsWithTheRightPasswordOnly(t *testing.T) {
	tests := []struct {
		name       string
		ssid, pass string
		wantErr    string
		wantHome   bool
		wantKeyMgt string
	}{
		{name: "the right WPA2 password", ssid: "Home", pass: "letmein123", wantHome: true, wantKeyMgt: "key-mgmt=wpa-psk"},
		{name: "a WPA3-only network", ssid: "Modern", pass: "sae-secret-1", wantHome: true, wantKeyMgt: "key-mgmt=sae"},
		{name: "an open network", ssid: "Café", wantHome: true},
		{name: "a wrong password", ssid: "Home", pass: "wrongpass1", wantErr: "Secrets were required"},
		{name: "a network out of range", ssid: "Elsewhere", pass: "whatever12", wantErr: "No network with SSID"},
		{name: "a password too short for WPA", ssid: "Home", pass: "short", wantErr: "password"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, nm := newWiFi(t)
			nm.inRange = []fakeAP{
				{ssid: "Home", signal: 80, security: "WPA2", password: "letmein123"},
				{ssid: "Modern", signal: 60, security: "WPA3", password: "sae-secret-1"},
				{ssid: "Café", signal: 50},
			}
			nm.active[netsetup.DefaultConnection] = "activated"
			err := w.Join(context.Background(), tc.ssid, tc.pass)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("Join: %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("Join error = %v, want one saying %q", err, tc.wantErr)
			}
			if got, _ := w.HomeConnected(context.Background()); got != tc.wantHome {
				t.Errorf("HomeConnected = %v, want %v", got, tc.wantHome)
			}
			for _, c := range nm.ran() {
				if tc.pass != "" && strings.Contains(c, tc.pass) {
					t.Errorf("the password is on a command line: %q", c)
				}
			}
			if tc.wantKeyMgt == "" {
				return
			}
			path := filepath.Join(w.Root, netsetup.ConnectionDir, netsetup.DefaultHomeConnection+".nmconnection")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.wantKeyMgt+"\n") || !strings.Contains(string(data), "autoconnect-priority=0\n") {
				t.Errorf("keyfile lacks %q or the low priority:\n%s", tc.wantKeyMgt, data)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("keyfile mode %v, want 0600", fi.Mode().Perm())
			}
		})
	}
}

func TestHotspotUpGivesTheHomeWiFiUp(t *testing.T) {
	w, nm := newWiFi(t)
	nm.inRange = []fakeAP{{ssid: "Home", signal: 80, security: "WPA2", password: "letmein123"}}
	if err := w.Join(context.Background(), "Home", "letmein123"); err != nil {
		t.Fatal(err)
	}
	if err := w.HotspotUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if nm.isActive(netsetup.DefaultHomeConnection) || !nm.isActive(netsetup.DefaultConnection) {
		t.Errorf("active = %v, want the hotspot alone", nm.active)
	}
	nm.fail["nmcli connection up eventbox-hotspot"] = "Error: no device"
	if err := w.HotspotUp(context.Background()); err == nil || !strings.Contains(err.Error(), "no device") {
		t.Errorf("HotspotUp error = %v, want NetworkManager's words", err)
	}
}

func TestEthernetAndConnectivity(t *testing.T) {
	tests := []struct {
		name, ethernet, connectivity string
		want                         netsetup.Link
		wantConnected                bool
		wantConn                     netsetup.Connectivity
	}{
		{"a cable to a router with internet", "connected", "full",
			netsetup.Link{Device: "eth0", State: "connected", Connection: "Wired connection 1"}, true, netsetup.ConnectivityFull},
		{"no cable", "unavailable", "none", netsetup.Link{Device: "eth0", State: "unavailable"}, false, netsetup.ConnectivityNone},
		{"a network behind a sign-in page", "connected", "portal",
			netsetup.Link{Device: "eth0", State: "connected", Connection: "Wired connection 1"}, true, netsetup.ConnectivityPortal},
		{"no Ethernet port, check switched off", "", "unknown", netsetup.Link{}, false, netsetup.ConnectivityUnknown},
		{"an answer nmcli may add later", "", "sideways", netsetup.Link{}, false, netsetup.ConnectivityUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, nm := newWiFi(t)
			nm.ethernet, nm.connectivity = tc.ethernet, tc.connectivity
			link, err := w.Ethernet(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if link != tc.want || link.Connected() != tc.wantConnected {
				t.Errorf("Ethernet = %+v (connected %v), want %+v", link, link.Connected(), tc.want)
			}
			c, err := w.Connectivity(context.Background())
			if err != nil || c != tc.wantConn {
				t.Errorf("Connectivity = %q, %v; want %q", c, err, tc.wantConn)
			}
		})
	}
}

// iw's "valid interface combinations" as printed for real radios.
const (
	iwPiBrcmfmac = `Wiphy phy0
	max # scan SSIDs: 10
	Supported interface modes:
		 * IBSS
		 * managed
		 * AP
		 * P2P-client
		 * P2P-GO
		 * P2P-device
	valid interface combinations:
		 * #{ managed } <= 1, #{ P2P-device } <= 1, #{ P2P-client, P2P-GO } <= 1,
		   total <= 3, #channels <= 2
		 * #{ managed } <= 1, #{ AP } <= 1, #{ P2P-client } <= 1, #{ P2P-device } <= 1,
		   total <= 4, #channels <= 1
	Device supports scan flush.
`
	iwIntel = `Wiphy phy0
	valid interface combinations:
		 * #{ managed } <= 1, #{ AP, P2P-client, P2P-GO } <= 1, #{ P2P-device } <= 1,
		   total <= 3, #channels <= 2
	HT Capability overrides:
`
	iwOneAtATime = `Wiphy phy0
	valid interface combinations:
		 * #{ managed, AP } <= 1, #{ P2P-device } <= 1,
		   total <= 2, #channels <= 1
`
	iwSharedGroup = `Wiphy phy0
	valid interface combinations:
		 * #{ managed, AP, mesh point } <= 2,
		   total <= 2, #channels <= 1
`
)

func TestParseCombinationsSaysWhetherTheHotspotStaysOnline(t *testing.T) {
	tests := []struct {
		name string
		info string
		want netsetup.Capability
	}{
		{"Raspberry Pi 3/4/5 (brcmfmac): both, on one channel", iwPiBrcmfmac, netsetup.Capability{Known: true, APAndClient: true, SameChannel: true}},
		{"an Intel card: both, on two channels", iwIntel, netsetup.Capability{Known: true, APAndClient: true}},
		{"a radio that is one or the other", iwOneAtATime, netsetup.Capability{Known: true}},
		{"two of managed or AP in one group", iwSharedGroup, netsetup.Capability{Known: true, APAndClient: true, SameChannel: true}},
		{"no combinations listed", "Wiphy phy0\n\tSupported interface modes:\n\t\t * managed\n", netsetup.Capability{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := netsetup.ParseCombinations(tc.info); got != tc.want {
				t.Errorf("ParseCombinations = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestCapabilityReadsTheRadioOfTheInterface(t *testing.T) {
	w, nm := newWiFi(t)
	nm.iwPhy = iwPiBrcmfmac
	got, err := w.Capability(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := (netsetup.Capability{Known: true, APAndClient: true, SameChannel: true}); got != want {
		t.Errorf("Capability = %+v, want %+v", got, want)
	}
	nm.fail["iw dev wlan0 info"] = "command failed: No such device (-19)"
	if _, err := w.Capability(context.Background()); err == nil {
		t.Error("Capability without a radio: no error")
	}
}

func TestSetupSSIDTellsBoxesApart(t *testing.T) {
	name := regexp.MustCompile(`^eventbox-setup-[0-9A-F]{4}$`)
	a := netsetup.SetupSSID([]byte("0123456789abcdef0123456789abcdef"))
	b := netsetup.SetupSSID([]byte("fedcba9876543210fedcba9876543210"))
	if !name.MatchString(a) || !name.MatchString(b) || a == b {
		t.Errorf("SetupSSID = %q and %q, want two different eventbox-setup-XXXX", a, b)
	}
	if again := netsetup.SetupSSID([]byte("0123456789abcdef0123456789abcdef")); again != a {
		t.Errorf("SetupSSID changed for the same id: %q then %q", a, again)
	}

	tests := []struct {
		name    string
		files   map[string]string
		want    string
		wantErr bool
	}{
		{"from the machine id", map[string]string{"etc/machine-id": "0123456789abcdef0123456789abcdef\n", "sys/class/net/wlan0/address": "b8:27:eb:00:00:01\n"}, a, false},
		{"from the MAC when there is no machine id", map[string]string{"sys/class/net/wlan0/address": "b8:27:eb:00:00:01\n"}, netsetup.SetupSSID([]byte("b8:27:eb:00:00:01")), false},
		{"from neither", nil, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, content := range tc.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, p), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := netsetup.MachineSetupSSID(root, "")
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("MachineSetupSSID = %q, %v; want %q (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
