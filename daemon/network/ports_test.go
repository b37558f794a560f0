package network_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"eventbox/daemon/network"
	"eventbox/internal/testclock"
	"eventbox/netsetup"
	"eventbox/netsetup/nmtest"
)

// TestPortsRoute: the "Radios and ports" card lists every radio and port,
// the default leaves every Ethernet port to the home internet, and PUT
// /api/admin/network/ports sets one port (eth0, a second port, a veth) to
// guests' access points, moves that role from one port to another without
// ever two, gives it back, and puts the hotspot on a USB radio too; the
// choice is kept in the settings. Unknown ports and radios are refused.
func TestPortsRoute(t *testing.T) {
	nm := nmtest.New()
	nm.Ethernet = "connected"
	nm.Devices = []nmtest.Device{{Name: "eth1", Type: "ethernet"}, {Name: "veth-ap", Type: "veth"}, {Name: "wlan1", Type: "wifi"}}
	b := newBox(t, nm)
	res, body := b.do("GET", "/api/admin/network", nil)
	if res.Code != http.StatusOK {
		t.Fatalf("GET: %d %s", res.Code, res.Body)
	}
	if got := at(body, "ports.guestPort"); got != "" {
		t.Errorf("guestPort by default = %v, want none", got)
	}
	list, _ := at(body, "ports.list").([]any)
	uses := map[string]any{}
	for _, p := range list {
		uses[at(p, "device").(string)] = at(p, "use")
	}
	want := map[string]any{"wlan0": "hotspot", "eth0": "home", "eth1": "none", "veth-ap": "none", "wlan1": "none"}
	for d, u := range want {
		if uses[d] != u {
			t.Errorf("%s's use = %v, want %v (all: %v)", d, uses[d], u, uses)
		}
	}

	guests := func() []string {
		var out []string
		for dev := range nm.Guests {
			if nm.IsActive(netsetup.GuestPortConnection(dev)) {
				out = append(out, dev)
			}
		}
		return out
	}
	steps := []struct {
		name   string
		body   map[string]any
		status int
		guests []string // the ports whose guests' connection is up after
		radios []string
	}{
		{"the second port for guests", map[string]any{"guestPort": "eth1"}, 200, []string{"eth1"}, []string{"wlan0"}},
		{"a veth instead: eth1 given back first", map[string]any{"guestPort": "veth-ap"}, 200, []string{"veth-ap"}, []string{"wlan0"}},
		{"the USB radio carries a second hotspot", map[string]any{"hotspotRadios": []string{"wlan0", "wlan1"}}, 200, []string{"veth-ap"}, []string{"wlan0", "wlan1"}},
		{"eth0 for guests", map[string]any{"guestPort": "eth0", "hotspotRadios": []string{"wlan0"}}, 200, []string{"eth0"}, []string{"wlan0"}},
		{"not a port of the box", map[string]any{"guestPort": "eth9"}, 400, []string{"eth0"}, []string{"wlan0"}},
		{"a radio is not a port", map[string]any{"guestPort": "wlan1"}, 400, []string{"eth0"}, []string{"wlan0"}},
		{"a port is not a radio", map[string]any{"hotspotRadios": []string{"eth1"}}, 400, []string{"eth0"}, []string{"wlan0"}},
		{"no radio", map[string]any{"hotspotRadios": []string{}}, 400, []string{"eth0"}, []string{"wlan0"}},
		{"nothing asked", map[string]any{}, 400, []string{"eth0"}, []string{"wlan0"}},
		{"every port back to the home internet", map[string]any{"guestPort": ""}, 200, nil, []string{"wlan0"}},
	}
	for _, s := range steps {
		res, body := b.do("PUT", "/api/admin/network/ports", s.body)
		if res.Code != s.status {
			t.Fatalf("%s: %d %s", s.name, res.Code, res.Body)
		}
		if g := guests(); len(g) != len(s.guests) || len(g) == 1 && g[0] != s.guests[0] {
			t.Errorf("%s: guests' ports %v, want %v", s.name, g, s.guests)
		}
		if s.status != 200 {
			continue
		}
		wantPort := ""
		if len(s.guests) == 1 {
			wantPort = s.guests[0]
		}
		if got := at(body, "ports.guestPort"); got != wantPort {
			t.Errorf("%s: answered guestPort %v, want %q", s.name, got, wantPort)
		}
		radios, _ := at(body, "ports.hotspotRadios").([]any)
		if len(radios) != len(s.radios) {
			t.Errorf("%s: hotspot radios %v, want %v", s.name, radios, s.radios)
		}
	}
	ns, err := b.st.Network().Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ns.GuestPort != "" || len(ns.HotspotRadios) != 1 || ns.HotspotRadios[0] != "wlan0" {
		t.Errorf("settings kept %q %v, want none and [wlan0]", ns.GuestPort, ns.HotspotRadios)
	}
}

// TestPortsRouteWithoutNetworkManager: 503 unavailable, and no card.
func TestPortsRouteWithoutNetworkManager(t *testing.T) {
	b := newBox(t, nil)
	if res, _ := b.do("PUT", "/api/admin/network/ports", map[string]any{"guestPort": "eth0"}); res.Code != http.StatusServiceUnavailable {
		t.Errorf("PUT without NetworkManager: %d, want 503", res.Code)
	}
	if _, body := b.do("GET", "/api/admin/network", nil); at(body, "ports") != nil {
		t.Errorf("ports without NetworkManager = %v, want null", at(body, "ports"))
	}
}

// TestNATWatchTellsAnAccessPointInRouterMode: four or more browsers from
// one address in ten minutes make it shared; one phone's browser asking
// many pages does not, nor do three; the watch forgets after ten minutes.
func TestNATWatchTellsAnAccessPointInRouterMode(t *testing.T) {
	c := testclock.New(time.Date(2026, 6, 20, 21, 0, 0, 0, time.UTC))
	w := network.NewNATWatch(c.Now)
	seen := func(addr, ua string) {
		r := httptest.NewRequest("GET", "http://eventbox.local/e/party", nil)
		r.RemoteAddr = addr + ":50000"
		r.Header.Set("User-Agent", ua)
		w.Observe(r)
	}
	uas := []string{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/125.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Linux; Android 13; SM-A536B) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 16_7 like Mac OS X) AppleWebKit/605.1.15 Version/16.6 Mobile/15E148 Safari/604.1",
	}
	for range 50 {
		seen("10.42.0.17", uas[0]) // one phone, many pages
	}
	for _, ua := range uas[:3] {
		seen("10.42.0.18", ua) // three: a family sharing a phone's hotspot, say
	}
	for _, ua := range uas {
		seen("10.43.0.57", ua) // an access point in router mode
	}
	seen("127.0.0.1", uas[1])
	seen("127.0.0.1", uas[2])
	steps := []struct {
		name  string
		after time.Duration
		want  []string
	}{
		{"at once", 0, []string{"10.43.0.57"}},
		{"nine minutes later", 9 * time.Minute, []string{"10.43.0.57"}},
		{"ten minutes later", time.Minute, nil},
	}
	for _, s := range steps {
		c.Advance(s.after)
		got := w.Shared()
		if len(got) != len(s.want) || len(got) == 1 && (got[0].Address != s.want[0] || got[0].Devices != 4) {
			t.Errorf("%s: Shared = %+v, want %v with 4 devices", s.name, got, s.want)
		}
	}
	var none *network.NATWatch
	none.Observe(httptest.NewRequest("GET", "/", nil)) // a nil watch watches nothing
	if got := none.Shared(); len(got) != 0 {
		t.Errorf("a nil watch's Shared = %v", got)
	}
}

// TestNetworkScreenSaysWhenAnAddressIsShared: through the real daemon,
// four browsers asking the box's pages from one address show on the
// Network screen as a shared address; the captive sheet's requests are
// not counted.
func TestNetworkScreenSaysWhenAnAddressIsShared(t *testing.T) {
	b := newBox(t, nmtest.New())
	get := func(ua string) {
		r := httptest.NewRequest("GET", "http://localhost/", nil)
		r.RemoteAddr = "10.43.0.57:41000"
		r.Header.Set("User-Agent", ua)
		b.h.ServeHTTP(httptest.NewRecorder(), r)
	}
	for i := range 3 {
		get("Mozilla/5.0 (Linux; Android 14; Phone " + string(rune('A'+i)) + ") AppleWebKit/537.36 Chrome/125.0 Mobile Safari/537.36")
	}
	get("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148") // the sheet
	if _, body := b.do("GET", "/api/admin/network", nil); len(at(body, "ports.shared").([]any)) != 0 {
		t.Fatalf("shared with three browsers and a sheet: %v", at(body, "ports.shared"))
	}
	get("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1")
	_, body := b.do("GET", "/api/admin/network", nil)
	shared, _ := at(body, "ports.shared").([]any)
	if len(shared) != 1 || at(shared[0], "address") != "10.43.0.57" || at(shared[0], "devices") != float64(4) {
		t.Errorf("shared = %v, want 10.43.0.57 with 4 browsers", shared)
	}
}
