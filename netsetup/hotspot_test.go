package netsetup_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"eventbox/internal/testtool"
	"eventbox/netsetup"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// hotspotCases are the plans checked against golden files. nmcliArgs are
// the `nmcli connection add` settings that mean the same connection.
var hotspotCases = []struct {
	name      string
	opts      netsetup.HotspotOptions
	facts     netsetup.Facts
	nmcliArgs []string
}{
	{
		name:  "wpa2-raspberry-pi-os",
		opts:  netsetup.HotspotOptions{SSID: "Our Wedding", Password: "correct horse", Country: "fr"},
		facts: netsetup.Facts{RaspiConfig: true, IW: true, RFKill: true},
		nmcliArgs: []string{"ifname", "wlan0", "con-name", "eventbox-hotspot", "ssid", "Our Wedding",
			"connection.autoconnect-priority", "100", "802-11-wireless.mode", "ap", "802-11-wireless.band", "bg",
			"802-11-wireless.channel", "6", "ipv4.method", "shared", "ipv4.addresses", "10.42.0.1/24",
			"ipv6.method", "disabled", "wifi-sec.key-mgmt", "wpa-psk", "wifi-sec.psk", "correct horse",
			"wifi-sec.proto", "rsn", "wifi-sec.pairwise", "ccmp", "wifi-sec.group", "ccmp"},
	},
	{
		name: "open-network-debian-with-iw",
		opts: netsetup.HotspotOptions{SSID: "Party", Country: "IT", Interface: "wlp2s0",
			Address: netip.MustParsePrefix("192.168.50.1/24"), Channel: 11, Connection: "party-ap"},
		facts: netsetup.Facts{IW: true},
		nmcliArgs: []string{"ifname", "wlp2s0", "con-name", "party-ap", "ssid", "Party",
			"connection.autoconnect-priority", "100", "802-11-wireless.mode", "ap", "802-11-wireless.band", "bg",
			"802-11-wireless.channel", "11", "ipv4.method", "shared", "ipv4.addresses", "192.168.50.1/24",
			"ipv6.method", "disabled"},
	},
	{
		name:  "unusual-ssid-and-password-no-country-tools",
		opts:  netsetup.HotspotOptions{SSID: "Café; Fête \\o/", Password: ` back\slash; `, Country: "es"},
		facts: netsetup.Facts{},
		nmcliArgs: []string{"ifname", "wlan0", "con-name", "eventbox-hotspot", "ssid", "Café; Fête \\o/",
			"connection.autoconnect-priority", "100", "802-11-wireless.mode", "ap", "802-11-wireless.band", "bg",
			"802-11-wireless.channel", "6", "ipv4.method", "shared", "ipv4.addresses", "10.42.0.1/24",
			"ipv6.method", "disabled", "wifi-sec.key-mgmt", "wpa-psk", "wifi-sec.psk", ` back\slash; `,
			"wifi-sec.proto", "rsn", "wifi-sec.pairwise", "ccmp", "wifi-sec.group", "ccmp"},
	},
}

func TestPlanHotspotMatchesTheGoldenFiles(t *testing.T) {
	for _, tc := range hotspotCases {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := netsetup.PlanHotspot(tc.opts, tc.facts)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := plan.Print(&out); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".plan.golden", out.String())
			golden(t, tc.name+".nmconnection.golden", writtenFile(t, plan, netsetup.ConnectionDir))
			golden(t, tc.name+".dnsmasq.golden", writtenFile(t, plan, netsetup.DropInPath))
		})
	}
}

func TestPlanPrintNeverShowsThePassword(t *testing.T) {
	plan, err := netsetup.PlanHotspot(netsetup.HotspotOptions{SSID: "x", Password: "hunter2hunter2"}, netsetup.Facts{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := plan.Print(&out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "hunter2") {
		t.Errorf("the printed plan shows the password:\n%s", out.String())
	}
}

func TestPlanOffMatchesTheGoldenFile(t *testing.T) {
	plan, err := netsetup.PlanOff("")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := plan.Print(&out); err != nil {
		t.Fatal(err)
	}
	golden(t, "off.plan.golden", out.String())
}

func TestPlanHotspotRejectsInvalidOptions(t *testing.T) {
	tests := []struct {
		name string
		opts netsetup.HotspotOptions
		want string
	}{
		{"an empty ssid", netsetup.HotspotOptions{}, "ssid"},
		{"an ssid over 32 bytes", netsetup.HotspotOptions{SSID: strings.Repeat("é", 17)}, "ssid"},
		{"an ssid with a newline", netsetup.HotspotOptions{SSID: "a\nb"}, "control character"},
		{"a short password", netsetup.HotspotOptions{SSID: "x", Password: "1234567"}, "password"},
		{"a password over 63 characters", netsetup.HotspotOptions{SSID: "x", Password: strings.Repeat("z", 64)}, "password"},
		{"a password with a non-ASCII letter", netsetup.HotspotOptions{SSID: "x", Password: "mötörhead!"}, "printable ASCII"},
		{"a three-letter country", netsetup.HotspotOptions{SSID: "x", Country: "FRA"}, "country"},
		{"a channel out of the 2.4 GHz band", netsetup.HotspotOptions{SSID: "x", Channel: 36}, "channel"},
		{"an IPv6 address", netsetup.HotspotOptions{SSID: "x", Address: netip.MustParsePrefix("fd00::1/64")}, "IPv4"},
		{"the network address", netsetup.HotspotOptions{SSID: "x", Address: netip.MustParsePrefix("10.42.0.0/24")}, "network address"},
		{"the broadcast address", netsetup.HotspotOptions{SSID: "x", Address: netip.MustParsePrefix("10.42.0.255/24")}, "broadcast"},
		{"a connection id with a slash", netsetup.HotspotOptions{SSID: "x", Connection: "../x"}, "connection"},
		{"an interface with a space", netsetup.HotspotOptions{SSID: "x", Interface: "wlan 0"}, "interface"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := netsetup.PlanHotspot(tc.opts, netsetup.Facts{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := netsetup.PlanHotspot(netsetup.HotspotOptions{SSID: "x", Password: strings.Repeat("aB", 32)}, netsetup.Facts{}); err != nil {
		t.Errorf("a 64-digit hex key is a valid password, got %v", err)
	}
}

func TestDetectFactsLooksUpEachTool(t *testing.T) {
	present := map[string]bool{"iw": true, "rfkill": true}
	got := netsetup.DetectFacts(func(name string) (string, error) {
		if present[name] {
			return "/usr/sbin/" + name, nil
		}
		return "", exec.ErrNotFound
	})
	if want := (netsetup.Facts{IW: true, RFKill: true}); got != want {
		t.Errorf("facts = %+v, want %+v", got, want)
	}
}

// fakeRunner records commands and fails those named in fail.
type fakeRunner struct {
	calls []string
	fail  map[string]bool
	out   map[string]string
}

func (f *fakeRunner) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	cmd := strings.Join(append([]string{name}, args...), " ")
	f.calls = append(f.calls, cmd)
	if f.fail[cmd] {
		return []byte("Error: no such thing"), errors.New("exit status 10")
	}
	return []byte(f.out[cmd]), nil
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestApplyRunsTheHotspotPlanInOrderAndWritesItsFiles(t *testing.T) {
	root := t.TempDir()
	plan, err := netsetup.PlanHotspot(netsetup.HotspotOptions{SSID: "Our Wedding", Password: "correct horse", Country: "FR"},
		netsetup.Facts{RaspiConfig: true, RFKill: true})
	if err != nil {
		t.Fatal(err)
	}
	// Taking a connection down that is not up fails, and may.
	runner := &fakeRunner{fail: map[string]bool{"nmcli connection down eventbox-hotspot": true}}
	if err := (netsetup.Applier{Runner: runner, Root: root, Logger: discard()}).Apply(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{
		"raspi-config nonint do_wifi_country FR",
		"rfkill unblock wifi",
		"nmcli radio wifi on",
		"nmcli connection reload",
		"nmcli connection down eventbox-hotspot",
		"nmcli connection up eventbox-hotspot",
	}
	if !reflect.DeepEqual(runner.calls, wantCalls) {
		t.Errorf("commands =\n%q\nwant\n%q", runner.calls, wantCalls)
	}
	keyfile := filepath.Join(root, netsetup.ConnectionDir, "eventbox-hotspot.nmconnection")
	fi, err := os.Stat(keyfile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("keyfile mode = %o, want 600 (NetworkManager ignores readable keyfiles)", fi.Mode().Perm())
	}
	dropIn, err := os.ReadFile(filepath.Join(root, netsetup.DropInPath))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dropIn), "\naddress=/#/10.42.0.1\n") {
		t.Errorf("drop-in = %q, want address=/#/10.42.0.1", dropIn)
	}

	runner.out = map[string]string{
		"nmcli -t -f NAME,DEVICE connection show --active": "Wired connection 1:eth0\neventbox-hotspot:wlan0\n",
		"nmcli radio wifi": "enabled\n",
	}
	st := netsetup.ReadStatus(context.Background(), runner, root, "")
	want := netsetup.Status{Connection: "eventbox-hotspot", Profile: "installed", SSID: "Our Wedding",
		Address: "10.42.0.1/24", DropIn: "10.42.0.1", Active: true, Device: "wlan0", Radio: "enabled"}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("status = %+v\nwant %+v", st, want)
	}

	off, err := netsetup.PlanOff("")
	if err != nil {
		t.Fatal(err)
	}
	if err := (netsetup.Applier{Runner: runner, Root: root, Logger: discard()}).Apply(context.Background(), off); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{keyfile, filepath.Join(root, netsetup.DropInPath)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists after off (%v)", p, err)
		}
	}
	runner.out = nil
	if st := netsetup.ReadStatus(context.Background(), runner, root, ""); st.Profile != "absent" || st.DropIn != "" || st.Active {
		t.Errorf("status after off = %+v, want an absent profile, no drop-in, down", st)
	}
}

func TestApplyStopsAtTheFirstFailingStep(t *testing.T) {
	plan, err := netsetup.PlanHotspot(netsetup.HotspotOptions{SSID: "x"}, netsetup.Facts{})
	if err != nil {
		t.Fatal(err)
	}
	runner := &fakeRunner{fail: map[string]bool{"nmcli connection reload": true}}
	err = (netsetup.Applier{Runner: runner, Root: t.TempDir(), Logger: discard()}).Apply(context.Background(), plan)
	if err == nil || !strings.Contains(err.Error(), "no such thing") {
		t.Fatalf("error = %v, want the failing command's output", err)
	}
	if last := runner.calls[len(runner.calls)-1]; last != "nmcli connection reload" {
		t.Errorf("last command = %q, want the plan to stop at the reload", last)
	}
}

// TestKeyfileMeansWhatNmcliWouldCreate gives each golden keyfile to
// NetworkManager's own parser (nmcli --offline, NM ≥ 1.42) and compares the
// connection it reads with the one `nmcli connection add` makes from the
// same settings.
func TestKeyfileMeansWhatNmcliWouldCreate(t *testing.T) {
	testtool.Need(t, "network-manager", "nmcli")
	if err := exec.Command("nmcli", "--offline", "connection", "add", "type", "wifi", "con-name", "probe", "ssid", "probe").Run(); err != nil {
		testtool.Missing(t, fmt.Sprintf("nmcli has no --offline mode (needs NetworkManager 1.42 or later): %v", err))
	}
	for _, tc := range hotspotCases {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := netsetup.PlanHotspot(tc.opts, tc.facts)
			if err != nil {
				t.Fatal(err)
			}
			ours := exec.Command("nmcli", "--offline", "connection", "modify", "connection.autoconnect", "yes")
			ours.Stdin = strings.NewReader(writtenFile(t, plan, netsetup.ConnectionDir))
			parsed, err := ours.CombinedOutput()
			if err != nil {
				t.Fatalf("nmcli rejects the keyfile: %v\n%s", err, parsed)
			}
			theirs, err := exec.Command("nmcli", append([]string{"--offline", "connection", "add", "type", "wifi"}, tc.nmcliArgs...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("nmcli connection add: %v\n%s", err, theirs)
			}
			if got, want := dropUUID(string(parsed)), dropUUID(string(theirs)); got != want {
				t.Errorf("NetworkManager reads a different connection:\n--- ours\n%s\n--- nmcli add\n%s", got, want)
			}
		})
	}
}

func dropUUID(keyfile string) string {
	var keep []string
	for _, line := range strings.Split(keyfile, "\n") {
		if !strings.HasPrefix(line, "uuid=") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// writtenFile returns the content of the plan's write step whose path starts
// with prefix.
func writtenFile(t *testing.T, plan netsetup.Plan, prefix string) string {
	t.Helper()
	for _, s := range plan.Steps {
		if s.Kind == netsetup.StepWrite && strings.HasPrefix(s.Path, prefix) {
			return s.Content
		}
	}
	t.Fatalf("the plan writes nothing under %s", prefix)
	return ""
}

func TestReadHotspotWiFiReadsBackWhatThePlanWrote(t *testing.T) {
	tests := []struct {
		name, ssid, password string
	}{
		{"a plain name and passphrase", "Our Wedding", "correct horse"},
		{"a name with a semicolon and a passphrase with a backslash and a leading space", "Anna;Marco ", ` back\slash`},
		{"an open network", "Garden", ""},
		{"a name beyond ASCII", "Fête d'été", "motdepasse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			plan, err := netsetup.PlanHotspot(netsetup.HotspotOptions{SSID: tt.ssid, Password: tt.password}, netsetup.Facts{})
			if err != nil {
				t.Fatal(err)
			}
			if err := (netsetup.Applier{Runner: &fakeRunner{}, Root: root, Logger: discard()}).Apply(context.Background(), plan); err != nil {
				t.Fatal(err)
			}
			ssid, pw, ok := netsetup.ReadHotspotWiFi(root, "")
			if !ok || ssid != tt.ssid || pw != tt.password {
				t.Fatalf("ReadHotspotWiFi = %q, %q, %v; want %q, %q, true", ssid, pw, ok, tt.ssid, tt.password)
			}
		})
	}
	if _, _, ok := netsetup.ReadHotspotWiFi(t.TempDir(), ""); ok {
		t.Error("a box without the hotspot profile reports one")
	}
}
