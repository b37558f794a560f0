package boxtest

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

var ssidOf = regexp.MustCompile(`(?m)^\s*ssid (.+)$`)

// boxSSID is the network the box's radio serves now, "" when none.
func (m *machine) boxSSID() string {
	r, _ := m.try([]string{"iw", "dev", "wlan0", "info"}, "")
	if !strings.Contains(r.Stdout, "type AP") {
		return ""
	}
	if s := ssidOf.FindStringSubmatch(r.Stdout); s != nil {
		return strings.TrimSpace(s[1])
	}
	return ""
}

// runPhone runs the phone with args and reads its report.
func (m *machine) runPhone(args ...string) phoneReport {
	m.t.Helper()
	out := m.sh("phone", append([]string{"/usr/local/lib/boxtest/boxagent", "phone", "-i", "wlan1"}, args...)...)
	var rep phoneReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		m.t.Fatalf("the phone's report: %v\n%s", err, out)
	}
	return rep
}

// TestFromFirstStartToHome is a box's life in one boot of a blank card, a
// subtest with its own time for each step: the first start on the setup
// hotspot (firstStartOnTheSetupHotspot), then the box brought home after
// the party (homeWiFi). One boot serves both: a boot under full emulation
// costs more than either step.
func TestFromFirstStartToHome(t *testing.T) {
	t.Parallel()
	image := cardImage(t)
	start, cpu := time.Now(), cpuNow(nil)
	c := newCard(t, image, t.TempDir(), "")
	m := bootMachine(t, c, "")
	t.Logf("time: the blank box booted in %s (%s)", time.Since(start).Round(time.Second), cpu.since(m))
	for _, p := range []struct {
		name string
		f    func(t *testing.T, m *machine)
	}{
		{"first start", firstStartOnTheSetupHotspot},
		{"home Wi-Fi", func(t *testing.T, m *machine) { homeWiFi(t, m, "marc") }},
	} {
		t0, cpu := time.Now(), cpuNow(m)
		ok := t.Run(p.name, func(t *testing.T) { p.f(t, m.in(t)) })
		t.Logf("time: %s took %s (%s); the box's busiest processes since it booted:\n%s", p.name, time.Since(t0).Round(time.Second), cpu.since(m), m.busiest())
		if !ok {
			break
		}
	}
	t.Logf("time: the box's life took %s in all", time.Since(start).Round(time.Second))
}

// firstStartOnTheSetupHotspot is a blank card as a host who wrote the
// image and powered on: the box opens its open setup Wi-Fi, a phone that
// joins it is sent to the setup page, and the host's choices (owner marc,
// the guests' Wi-Fi) make the box the party's: its hotspot comes up under
// the chosen name and password, a phone joins it, and the owner signs in
// with the chosen password.
func firstStartOnTheSetupHotspot(t *testing.T, m *machine) {
	var setupSSID string
	m.waitFor("the setup Wi-Fi", 3*time.Minute, func() bool {
		setupSSID = m.boxSSID()
		return strings.HasPrefix(setupSSID, "eventbox-setup-")
	})
	t.Logf("a blank box opened the setup Wi-Fi %q", setupSSID)

	choice := `{"ownerName":"marc","ownerPassword":"a-long-party-password","wifiName":"Marc & Anna","wifiPassword":"lanterns2026","country":"FR","timeZone":"Europe/Paris","time":` +
		jsonInt(time.Now().UnixMilli()) + `}`
	rep := m.runPhone("-ssid", setupSSID, "-setup", choice)
	t.Logf("the phone joined %q in %s, got %s; the box's front page answered %q; the setup answered %q", rep.Joined, rep.JoinTook, rep.Lease.IP, rep.Home, rep.Setup)
	if !strings.Contains(rep.Home, "/setup") {
		t.Errorf("the front page of a blank box answered %q, want a redirect to /setup", rep.Home)
	}
	if !strings.HasPrefix(rep.Setup, "200") {
		t.Fatalf("the setup answered %q", rep.Setup)
	}
	took := m.waitFor("the party's hotspot under the chosen name", 5*time.Minute, func() bool { return m.boxSSID() == "Marc & Anna" })
	t.Logf("the box serves %q %s after the setup", "Marc & Anna", took.Round(time.Second))
	rep = m.runPhone("-ssid", "Marc & Anna", "-psk", "lanterns2026")
	t.Logf("a guest's phone joined %q with the chosen password and got %s; eventbox.local is %s", rep.Joined, rep.Lease.IP, rep.MDNS)
	if rep.MDNS != rep.Lease.Router.String() {
		t.Errorf("eventbox.local is %q on the party's hotspot, want the box %s", rep.MDNS, rep.Lease.Router)
	}
	// The daemon starts again to apply the setup (its service's first
	// step): sign in once it answers.
	h := m.signInless()
	m.waitFor("the owner signing in after the setup", 5*time.Minute, func() bool {
		body := strings.NewReader(`{"username":"marc","password":"a-long-party-password"}`)
		req, _ := http.NewRequest(http.MethodPost, h.base+"/api/admin/login", body)
		req.Header.Set("Origin", h.base)
		req.Header.Set("Content-Type", "application/json")
		resp, err := h.c.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	h.json("GET", "/api/admin/me", nil, http.StatusOK)
	t.Log("the owner signs in with the name and password chosen on the setup page")
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
