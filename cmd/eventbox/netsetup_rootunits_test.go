package main

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestNetsetupRootUnits: the two commands polkit lets the daemon start as
// root, each through its unit. `eventbox netsetup country CC`
// (eventbox-wifi-country@CC.service, for the Network screen) sets the
// country with the tools at hand and nothing else, and refuses anything
// but two letters before it runs a command; `eventbox netsetup let-go
// IFACE-MAC` (eventbox-let-go@IFACE-MAC.service, when the daemon lets an
// idle phone go) deauthenticates that one phone and refuses anything but
// an interface and twelve hex digits.
func TestNetsetupRootUnits(t *testing.T) {
	tests := []struct {
		name      string
		euid      int
		tools     []string
		args      []string
		wantCode  int
		wantCalls []string
		wantErr   string
	}{
		{name: "Raspberry Pi OS", tools: []string{"nmcli", "raspi-config", "rfkill"}, args: []string{"country", "it"},
			wantCalls: []string{"raspi-config nonint do_wifi_country IT", "rfkill unblock wifi", "nmcli radio wifi on"}},
		{name: "Debian with iw", tools: []string{"nmcli", "iw"}, args: []string{"country", "FR"},
			wantCalls: []string{"iw reg set FR", "nmcli radio wifi on"}},
		{name: "not a country", tools: []string{"nmcli", "iw"}, args: []string{"country", "FR;reboot"}, wantCode: 2, wantErr: "two-letter"},
		{name: "no country", tools: []string{"nmcli", "iw"}, args: []string{"country"}, wantCode: 2, wantErr: "two-letter"},
		{name: "not root", euid: 1000, tools: []string{"nmcli", "iw"}, args: []string{"country", "FR"}, wantCode: 1, wantErr: "needs root"},
		{name: "let-go: one phone", tools: []string{"nmcli", "iw"}, args: []string{"let-go", "wlan0-02000000001a"},
			wantCalls: []string{"iw dev wlan0 station del 02:00:00:00:00:1a"}},
		{name: "let-go: a USB radio", tools: []string{"iw"}, args: []string{"let-go", "wlx00c0ca123456-aabbccddeeff"},
			wantCalls: []string{"iw dev wlx00c0ca123456 station del aa:bb:cc:dd:ee:ff"}},
		{name: "let-go: every phone", tools: []string{"iw"}, args: []string{"let-go", "wlan0-all"}, wantCode: 2, wantErr: "not an interface"},
		{name: "let-go: a command", tools: []string{"iw"}, args: []string{"let-go", "wlan0;reboot-02000000001a"}, wantCode: 2, wantErr: "not an interface"},
		{name: "let-go: nothing", tools: []string{"iw"}, args: []string{"let-go"}, wantCode: 2, wantErr: "want one interface"},
		{name: "let-go: not root", euid: 1000, tools: []string{"iw"}, args: []string{"let-go", "wlan0-02000000001a"}, wantCode: 1, wantErr: "needs root"},
		{name: "let-go: no iw", tools: []string{"nmcli"}, args: []string{"let-go", "wlan0-02000000001a"}, wantCode: 1, wantErr: "iw not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd, runner, _, stderr := newNetsetupCommand(t, tc.euid, tc.tools...)
			if code := cmd.run(context.Background(), tc.args); code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.wantCode, stderr)
			}
			if !slices.Equal(runner.calls, tc.wantCalls) {
				t.Errorf("ran %q, want %q", runner.calls, tc.wantCalls)
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want it to mention %q", stderr, tc.wantErr)
			}
		})
	}
}
