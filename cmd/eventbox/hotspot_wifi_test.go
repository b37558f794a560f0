package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"eventbox/netsetup/nmtest"
)

// TestSignsReadTheHotspotThroughNetworkManager is the daemon's wiring of
// the signs' Wi-Fi: NetworkManager's answer through nmcli, as the daemon's
// user gets it on a box whose connection file it may not read; and with
// the password kept from it, no Wi-Fi on the sign rather than an open one,
// and a warning saying why.
func TestSignsReadTheHotspotThroughNetworkManager(t *testing.T) {
	nm := nmtest.New()
	var logs bytes.Buffer
	wifi := hotspotWiFi(nm, slog.New(slog.NewTextHandler(&logs, nil)))
	if ssid, password, ok := wifi(context.Background()); ssid != "Party" || password != "letmein123" || !ok {
		t.Errorf("signs' Wi-Fi = %q, %q, %v; want NetworkManager's Party, letmein123", ssid, password, ok)
	}
	nm.Lock(func(nm *nmtest.NM) { nm.HideSecrets = true })
	if ssid, password, ok := wifi(context.Background()); ok || ssid != "" || password != "" {
		t.Errorf("signs' Wi-Fi with the password hidden = %q, %q, %v; want none", ssid, password, ok)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "polkit") {
		t.Errorf("no warning about the hidden password:\n%s", logs.String())
	}
}
