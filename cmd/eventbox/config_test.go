package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestServeSettingsTheCommandKeeps: LISTEN_ADDR, MDNS_NAME and the booth's
// GPIO lines are read from the environment and flags (flags win) into the
// command's own settings, not daemon.Config, with the defaults README.md
// lists.
func TestServeSettingsTheCommandKeeps(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		env                    map[string]string
		args                   []string
		listen, mdns, btn, led string
	}{
		{"defaults", nil, nil, ":8080", "eventbox", "", ""},
		{"environment",
			map[string]string{"LISTEN_ADDR": ":80", "MDNS_NAME": "partybox", "BOOTH_BUTTON_PIN": "GPIO17", "BOOTH_LED_PIN": "GPIO27"},
			nil, ":80", "partybox", "GPIO17", "GPIO27"},
		{"flags override the environment",
			map[string]string{"LISTEN_ADDR": ":80", "MDNS_NAME": "partybox", "BOOTH_BUTTON_PIN": "GPIO17"},
			[]string{"-listen-addr", "127.0.0.1:9000", "-mdns-name", "off", "-booth-button-pin", "GPIO5", "-booth-led-pin", "GPIO6"},
			"127.0.0.1:9000", "off", "GPIO5", "GPIO6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFlagSet("serve", io.Discard)
			cf := newConfigFlags(fs, func(k string) string { return tc.env[k] })
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if cf.listenAddr != tc.listen || cf.mdnsName != tc.mdns || cf.boothButtonPin != tc.btn || cf.boothLEDPin != tc.led {
				t.Errorf("listen %q mdns %q button %q led %q, want %q %q %q %q",
					cf.listenAddr, cf.mdnsName, cf.boothButtonPin, cf.boothLEDPin, tc.listen, tc.mdns, tc.btn, tc.led)
			}
		})
	}
}

// TestServeRefusesEmptyListenAddrAndMDNSName: the command validates the
// settings it keeps, together with the daemon's, and says which variable
// is wrong before it opens anything.
func TestServeRefusesEmptyListenAddrAndMDNSName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-listen-addr", ""}, []string{"LISTEN_ADDR must not be empty"}},
		{[]string{"-mdns-name", ""}, []string{"MDNS_NAME must not be empty (use off to disable)"}},
		{[]string{"-listen-addr", "", "-mdns-name", "", "-max-upload-mb", "0"},
			[]string{"LISTEN_ADDR must not be empty", "MDNS_NAME must not be empty", "MAX_UPLOAD_MB must be a whole number"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			dir := t.TempDir()
			getenv := func(k string) string {
				if k == "DATA_DIR" {
					return dir
				}
				return ""
			}
			if code := runServe(context.Background(), tc.args, getenv, io.Discard, &stderr); code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}
