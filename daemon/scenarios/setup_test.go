package scenarios_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/daemon/setup"
)

// setupNetwork is the stand-in for what applies the setup page's Wi-Fi,
// country and time zone.
type setupNetwork struct {
	mu  sync.Mutex
	got []setup.Choice
}

func (n *setupNetwork) Apply(_ context.Context, c setup.Choice) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, c)
	return nil
}

func (n *setupNetwork) choices() []setup.Choice {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]setup.Choice(nil), n.got...)
}

// unsetBox is a harness of a box nobody set up: a generated owner, no
// hotspot of the host's, the stand-ins for the network and the clock.
func unsetBox(t *testing.T, opts ...func(*daemon.Config)) (*harness, *setupNetwork, *[]time.Time) {
	t.Helper()
	net := &setupNetwork{}
	var mu sync.Mutex
	clockSet := &[]time.Time{}
	base := func(c *daemon.Config) {
		c.AdminPassword = ""
		c.SetupNetwork = net
		// The box's clock is unsure, as on a Pi at a venue: the setup
		// page sets it from the phone's (daemon/clock).
		c.Clock.Synced = func() (bool, error) { return false, nil }
		c.Clock.SetTime = func(t time.Time) error {
			mu.Lock()
			defer mu.Unlock()
			*clockSet = append(*clockSet, t)
			return nil
		}
		c.HotspotWiFi = func(context.Context) (string, string, bool) { return "eventbox-setup-C0E9", "", true }
	}
	return newHarness(t, append([]func(*daemon.Config){base}, opts...)...), net, clockSet
}

func setupRequest(h *harness) map[string]any {
	return map[string]any{"ownerName": "anna", "ownerPassword": "confetti and cake",
		"wifiName": "Anna & Marc", "wifiPassword": "", "country": "fr", "timeZone": "Europe/Paris",
		"time": h.clock.Now().Add(72 * time.Hour).UnixMilli()}
}

// noRedirects is a client that shows the redirects it gets.
func noRedirects(h *harness) *client {
	c := h.client()
	c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// TestSetupPageSetsUpTheBoxOnce: on a box nobody set up, the captive
// portal and the front page send to /setup; the first visitor's choices
// make the owner (who signs in with them), set the clock from the phone's
// and hand the Wi-Fi, country and time zone over; then every later visitor
// is refused, and the portal goes back to the events.
func TestSetupPageSetsUpTheBoxOnce(t *testing.T) {
	t.Parallel()
	h, net, clockSet := unsetBox(t)
	c := noRedirects(h)
	if st := c.do("GET", "/api/setup", nil).expect(t, 200, ""); st.JSON["state"] != "open" || st.JSON["closesAt"] != float64(h.clock.Now().Add(30*time.Minute).UnixMilli()) {
		t.Fatalf("setup state = %s, want open for 30 minutes", st.Body)
	} else if zones, countries := fmt.Sprint(st.JSON["timeZones"]), fmt.Sprint(st.JSON["countries"]); !strings.Contains(zones, "Europe/Paris") || !strings.Contains(countries, "code:FR name:France") {
		t.Fatalf("the open page's lists lack Europe/Paris or France: %.300s … %.300s", zones, countries)
	}
	for _, path := range []string{"/generate_204", "/"} {
		if r := c.do("GET", path, nil); r.Status != http.StatusFound || !strings.HasSuffix(r.Header.Get("Location"), "/setup") {
			t.Errorf("GET %s = %d to %q, want a redirect to /setup", path, r.Status, r.Header.Get("Location"))
		}
	}
	if r := c.do("GET", "/setup", nil); r.Status != 200 || !strings.Contains(string(r.Body), "/js/setup.js") {
		t.Errorf("GET /setup = %d %.200s", r.Status, r.Body)
	}
	done := c.do("POST", "/api/setup", setupRequest(h)).expect(t, 200, "")
	if done.JSON["wifiName"] != "Anna & Marc" || done.JSON["open"] != true || done.JSON["clockSet"] != true {
		t.Errorf("setup answer = %s", done.Body)
	}
	if got := net.choices(); len(got) != 1 || got[0] != (setup.Choice{OwnerName: "anna", OwnerPassword: "confetti and cake",
		WiFiName: "Anna & Marc", Country: "FR", TimeZone: "Europe/Paris"}) {
		t.Errorf("network applied %+v", got)
	}
	if len(*clockSet) != 1 || !(*clockSet)[0].Equal(time.UnixMilli(setupRequest(h)["time"].(int64))) {
		t.Errorf("clock set to %v, want the phone's time", *clockSet)
	}
	for _, f := range []string{"initial-password"} {
		if _, err := os.Stat(filepath.Join(h.cfg.DataDir, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there (%v)", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(h.cfg.DataDir, setup.DoneFile)); err != nil {
		t.Errorf("the box is not marked set up for the next start: %v", err)
	}
	owner := h.client()
	owner.do("POST", "/api/admin/login", map[string]any{"username": "anna", "password": "confetti and cake"}).expect(t, 200, "")
	if me := owner.do("GET", "/api/admin/me", nil).expect(t, 200, ""); me.JSON["account"].(map[string]any)["mustChangePassword"] != false {
		t.Errorf("me = %s", me.Body)
	}
	// A second visitor cannot take the box.
	second := noRedirects(h)
	again := setupRequest(h)
	again["ownerName"], again["ownerPassword"] = "mallory", "mallory's own password"
	r := second.do("POST", "/api/setup", again).expect(t, 403, "forbidden")
	if r.JSON["details"].(map[string]any)["setup"] != "set" {
		t.Errorf("second visitor's answer = %s", r.Body)
	}
	second.do("POST", "/api/admin/login", map[string]any{"username": "mallory", "password": "mallory's own password"}).expect(t, 401, "unauthorized")
	if st := second.do("GET", "/api/setup", nil).expect(t, 200, ""); st.JSON["state"] != "closed" || st.JSON["reason"] != "set" {
		t.Errorf("setup state after = %s", st.Body)
	}
	if r := second.do("GET", "/generate_204", nil); strings.HasSuffix(r.Header.Get("Location"), "/setup") {
		t.Error("the portal still sends to /setup after the setup")
	}
	if len(net.choices()) != 1 {
		t.Errorf("the second visitor's network was applied: %+v", net.choices())
	}
}

// TestSetupTwoVisitorsAtOnce: of two submissions at the same time, one
// sets the box up and the other is refused.
func TestSetupTwoVisitorsAtOnce(t *testing.T) {
	t.Parallel()
	h, net, _ := unsetBox(t)
	codes := make(chan int, 2)
	var wg sync.WaitGroup
	for _, name := range []string{"anna", "mallory"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := setupRequest(h)
			req["ownerName"] = name
			codes <- h.client().do("POST", "/api/setup", req).Status
		}()
	}
	wg.Wait()
	close(codes)
	got := map[int]int{}
	for c := range codes {
		got[c]++
	}
	if got[200] != 1 || got[403] != 1 {
		t.Errorf("answers %v, want one 200 and one 403", got)
	}
	if len(net.choices()) != 1 {
		t.Errorf("network applied %d times", len(net.choices()))
	}
}

// TestSetupWindowCloses: the page of an unset box takes a submission for
// 30 minutes after the start, then refuses it (expired) and the portal
// goes back to the events.
func TestSetupWindowCloses(t *testing.T) {
	t.Parallel()
	h, net, _ := unsetBox(t)
	c := noRedirects(h)
	h.clock.Advance(29 * time.Minute)
	c.do("GET", "/api/setup", nil).expect(t, 200, "")
	if !strings.HasSuffix(c.do("GET", "/generate_204", nil).Header.Get("Location"), "/setup") {
		t.Error("the portal does not send to /setup within the window")
	}
	h.clock.Advance(time.Minute)
	if st := c.do("GET", "/api/setup", nil).expect(t, 200, ""); st.JSON["state"] != "closed" || st.JSON["reason"] != "expired" {
		t.Errorf("setup state after 30 minutes = %s", st.Body)
	}
	r := c.do("POST", "/api/setup", setupRequest(h)).expect(t, 403, "forbidden")
	if r.JSON["details"].(map[string]any)["setup"] != "expired" {
		t.Errorf("answer = %s", r.Body)
	}
	if loc := c.do("GET", "/generate_204", nil).Header.Get("Location"); strings.HasSuffix(loc, "/setup") {
		t.Error("the portal still sends to /setup after the window")
	}
	if len(net.choices()) != 0 {
		t.Errorf("network applied after the window: %+v", net.choices())
	}
	if _, err := os.Stat(filepath.Join(h.cfg.DataDir, "initial-password")); err != nil {
		t.Errorf("the generated owner is gone: %v", err)
	}
}

// TestSetupClosedOnABoxSetUp: a box set up another way never opens the
// page: an owner's password of the host's (ADMIN_PASSWORD or the settings
// file), a hotspot of the host's, an owner who signed in, or no way to
// change the network.
func TestSetupClosedOnABoxSetUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		opt    func(*daemon.Config)
		signIn bool
		want   string
	}{
		{name: "a password of the host's", opt: func(c *daemon.Config) { c.AdminPassword = ownerPassword }, want: "set"},
		{name: "a hotspot of the host's", opt: func(c *daemon.Config) {
			c.HotspotWiFi = func(context.Context) (string, string, bool) { return "Party", "confetti2025", true }
		}, want: "set"},
		{name: "an owner who signed in", signIn: true, want: "set"},
		{name: "no way to change the network", opt: func(c *daemon.Config) { c.SetupNetwork = nil }, want: "off"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opt := tc.opt
			if opt == nil {
				opt = func(*daemon.Config) {}
			}
			h, _, _ := unsetBox(t, opt)
			if tc.signIn {
				raw, err := os.ReadFile(filepath.Join(h.cfg.DataDir, "initial-password"))
				if err != nil {
					t.Fatal(err)
				}
				h.client().do("POST", "/api/admin/login", map[string]any{"password": strings.TrimSpace(string(raw))}).expect(t, 200, "")
			}
			c := noRedirects(h)
			if st := c.do("GET", "/api/setup", nil).expect(t, 200, ""); st.JSON["state"] != "closed" || st.JSON["reason"] != tc.want {
				t.Errorf("setup state = %s, want closed %s", st.Body, tc.want)
			}
			c.do("POST", "/api/setup", setupRequest(h)).expect(t, 403, "forbidden")
			if loc := c.do("GET", "/generate_204", nil).Header.Get("Location"); strings.HasSuffix(loc, "/setup") {
				t.Error("the portal sends to /setup")
			}
		})
	}
}

// TestSetupRefusesBadValues: every value is checked with netsetup's rules
// and named in the details; nothing changes, and the page stays open.
func TestSetupRefusesBadValues(t *testing.T) {
	t.Parallel()
	h, net, _ := unsetBox(t)
	c := h.client()
	bad := map[string]any{"ownerName": " ", "ownerPassword": "short", "wifiName": strings.Repeat("x", 33),
		"wifiPassword": "1234567", "country": "France", "timeZone": "Mars/Olympus", "time": int64(1000)}
	r := c.do("POST", "/api/setup", bad).expect(t, 400, "bad_request")
	details := r.JSON["details"].(map[string]any)
	for _, f := range []string{"ownerName", "ownerPassword", "wifiName", "wifiPassword", "country", "timeZone", "time"} {
		if details[f] == nil {
			t.Errorf("details lack %s: %s", f, r.Body)
		}
	}
	setupName := setupRequest(h)
	setupName["wifiName"] = "eventbox-setup-C0E9"
	c.do("POST", "/api/setup", setupName).expect(t, 400, "bad_request")
	c.do("POST", "/api/setup", `{"ownerName":"anna","extra":1}`).expect(t, 400, "bad_request")
	if st := c.do("GET", "/api/setup", nil).expect(t, 200, ""); st.JSON["state"] != "open" || len(net.choices()) != 0 {
		t.Errorf("after bad values: %s, network %+v", st.Body, net.choices())
	}
}
