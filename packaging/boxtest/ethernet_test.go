package boxtest

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ethernetPhones is how many phones come through the venue's access point;
// the rig has as many radios for them, and one for the access point,
// beyond the crowd's (cardOptions.Radios).
const ethernetPhones = 20

// ethernetReport mirrors boxagent's EthernetReport.
type ethernetReport struct {
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Phones  []struct {
		N       int       `json:"n"`
		NS      string    `json:"ns"`
		Arrived time.Time `json:"arrived"`
		Joined  time.Time `json:"joined"`
		Leased  time.Time `json:"leased"`
		Lease   *struct {
			IP     net.IP `json:"ip"`
			Router net.IP `json:"router"`
			DNS    net.IP `json:"dns"`
		} `json:"lease"`
		Captive string `json:"captive"`
		Probe   string `json:"probe"`
		Uploads []struct {
			File   string `json:"file"`
			Status int    `json:"status"`
			ID     string `json:"id"`
		} `json:"uploads"`
		DNSRetries int    `json:"dnsRetries"`
		Error      string `json:"error"`
	} `json:"phones"`
}

// portCard mirrors the Network screen's "Radios and ports" card.
type portCard struct {
	GuestPort string `json:"guestPort"`
	List      []struct {
		Device string `json:"device"`
		Kind   string `json:"kind"`
		State  string `json:"state"`
		Use    string `json:"use"`
		Phones *int   `json:"phones"`
	} `json:"list"`
	Shared []json.RawMessage `json:"shared"`
}

// networkPorts reads the Network screen's card of radios and ports.
func networkPorts(h *host) *portCard {
	h.t.Helper()
	st, b := h.do("GET", "/api/admin/network", nil, "")
	if st != http.StatusOK {
		h.t.Fatalf("GET /api/admin/network = %d %s", st, b)
	}
	var v struct {
		Ports *portCard `json:"ports"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Ports == nil {
		h.t.Fatalf("the Network screen has no radios and ports (%v): %s", err, b)
	}
	return v.Ports
}

// phonesThroughAnEthernetAccessPoint plugs a venue's access point into a
// second Ethernet port of the box: a veth pair, eth1 for the box's
// NetworkManager, its other end bridged, in a namespace of its own, with a
// virtual radio running an open access point on channel 11 (the hotspot is
// on 6). The hosts set eth1 as the guests' port on the Network screen;
// then 20 phones, each on its own radio and namespace, join the access
// point over a minute, get their address from the box by DHCP, ask the
// box's DNS for Android's probe host and get the captive portal's
// redirect, and send one photo each, which the console lists, and stay on
// until all have sent. The Network screen lists the port with its phones,
// all 20 at the most. One more phone does it all again
// with the hotspot down: the box's DNS answer, the hotspot's address, stays
// on the box (netsetup.BoxAddressConnection).
func phonesThroughAnEthernetAccessPoint(t *testing.T, m *machine) {
	const port, ssid = "eth1", "Venue guests"
	agent := "/usr/local/lib/boxtest/boxagent"
	t.Logf("%s", strings.TrimSpace(m.sh("", agent, "ethernet", "ap", "-port", port, "-ssid", ssid, "-freq", "2462")))
	state := func() string {
		r, _ := m.try([]string{"nmcli", "-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device"}, "")
		for _, line := range strings.Split(r.Stdout, "\n") {
			if strings.HasPrefix(line, port+":") {
				return line
			}
		}
		return ""
	}
	m.waitFor("NetworkManager to see "+port, 2*time.Minute, func() bool { return state() != "" })
	t.Logf("NetworkManager sees the access point's port: %s", state())

	h := m.signIn("anna", "a-long-party-password")
	start := time.Now()
	h.json("PUT", "/api/admin/network/ports", map[string]any{"guestPort": port}, http.StatusOK)
	t.Logf("the console set %s as the guests' port in %s: %s", port, time.Since(start).Round(100*time.Millisecond), state())
	addrs := m.sh("", "nmcli", "-g", "IP4.ADDRESS", "device", "show", port)
	t.Logf("%s's addresses: %s", port, strings.TrimSpace(addrs))
	if r, err := m.try([]string{"sh", "-c", "for p in $(pidof dnsmasq); do tr '\\0' ' ' </proc/$p/cmdline; echo; done"}, ""); err == nil {
		t.Logf("the box's dnsmasqs:\n%s", strings.TrimSpace(r.Stdout))
	}

	ev := h.json("POST", "/api/admin/events", map[string]any{"name": "At the venue"}, http.StatusCreated)["event"].(map[string]any)
	slug, id := ev["slug"].(string), ev["id"].(string)
	m.put(repoFile("imaging", "testdata", "phone-gps.jpg"), "/run/boxtest/venue.jpg")
	_, _ = m.try([]string{"rm", "-f", "/run/boxtest/ethernet.json"}, "")
	if r, err := m.tryBackground("ethernet", "", agent, "ethernet", "phones", "-n", strconv.Itoa(ethernetPhones),
		"-ssid", ssid, "-slug", slug, "-photo", "/run/boxtest/venue.jpg", "-spread", "1m", "-for", "8m", "-linger", "30s",
		"-out", "/run/boxtest/ethernet.json"); err != nil || r.Code != 0 {
		t.Fatalf("starting the phones: %v %+v", err, r)
	}
	// The Network screen's phones on the port while they come, send and
	// stay (30 s after the last has sent).
	var rep ethernetReport
	var seen []int
	most := -1
	m.waitFor("the phones behind the access point", 10*time.Minute, func() bool {
		for _, p := range networkPorts(h).List {
			if p.Device == port && p.Phones != nil {
				seen = append(seen, *p.Phones)
				most = max(most, *p.Phones)
			}
		}
		r, err := m.try([]string{"cat", "/run/boxtest/ethernet.json"}, "")
		return err == nil && r.Code == 0 && json.Unmarshal([]byte(r.Stdout), &rep) == nil
	})
	t.Logf("the Network screen's phones on %s while they came, sent and stayed: %v (most %d)", port, seen, most)
	if most != ethernetPhones {
		t.Errorf("the Network screen counted at most %d phones on %s, want %d", most, port, ethernetPhones)
	}
	t.Logf("the phones' log:\n%s", m.sh("", "cat", "/run/boxtest/ethernet.log"))

	_, guests, _ := net.ParseCIDR("10.43.0.0/22")
	var toAddress, toJoin []time.Duration
	acked := map[string]bool{}
	captive, probes, retries := 0, 0, 0
	for _, p := range rep.Phones {
		retries += p.DNSRetries
		if p.Error != "" {
			t.Errorf("phone %d (%s): %s", p.N, p.NS, p.Error)
		}
		if !p.Joined.IsZero() {
			toJoin = append(toJoin, p.Joined.Sub(p.Arrived))
		}
		if p.Lease == nil {
			continue
		}
		if !guests.Contains(p.Lease.IP) {
			t.Errorf("phone %d got %s from the box, want one of the guests' port's 10.43.0.0/22", p.N, p.Lease.IP)
		}
		toAddress = append(toAddress, p.Leased.Sub(p.Joined))
		if p.Captive == "10.42.0.1" || p.Captive == p.Lease.Router.String() {
			captive++
		} else {
			t.Errorf("phone %d: the box's DNS answered %q for Android's probe host, want the box", p.N, p.Captive)
		}
		if strings.HasPrefix(p.Probe, "302 ") && len(p.Probe) > 4 {
			probes++
		} else {
			t.Errorf("phone %d: Android's probe got %q, want the portal's 302", p.N, p.Probe)
		}
		for _, u := range p.Uploads {
			if u.Status == http.StatusCreated && u.ID != "" {
				acked[u.ID] = true
			} else {
				t.Errorf("phone %d: %s answered %d", p.N, u.File, u.Status)
			}
		}
	}
	t.Logf("phones with an address from the box: %d of %d (joining the access point took p50 %s, p95 %s)",
		len(toAddress), ethernetPhones, quantile(toJoin, 0.5), quantile(toJoin, 0.95))
	t.Logf("the time to get an address once on the access point: p50 %s, p95 %s, max %s",
		quantile(toAddress, 0.5), quantile(toAddress, 0.95), quantile(toAddress, 1))
	t.Logf("the captive portal: the box's DNS answered with the box for %d phones, Android's probe got the portal's 302 on %d (DNS questions asked again after 5 s without an answer: %d in all)",
		captive, probes, retries)
	if len(toAddress) != ethernetPhones {
		t.Errorf("%d of %d phones got an address from the box", len(toAddress), ethernetPhones)
	}

	listed, missing := h.listedPhotos(id, acked)
	t.Logf("photos: %d of %d acknowledged, the console lists %d (%d acknowledged ones missing)", len(acked), ethernetPhones, len(listed), missing)
	if len(acked) != ethernetPhones || missing != 0 || len(listed) != len(acked) {
		t.Errorf("photos: %d of %d acknowledged, %d listed, %d missing", len(acked), ethernetPhones, len(listed), missing)
	}

	// The Network screen: the port, what it does and its phones.
	card := networkPorts(h)
	found := false
	for _, p := range card.List {
		phones := "unknown"
		if p.Phones != nil {
			phones = strconv.Itoa(*p.Phones)
		}
		t.Logf("the Network screen lists %s (%s, %s): %s, phones %s", p.Device, p.Kind, p.State, p.Use, phones)
		if p.Device != port {
			continue
		}
		found = true
		// The phones have left: the count is of those the box heard from
		// lately (or of the leases, an hour, where the service may read them).
		if p.Use != "guests" || p.Phones == nil {
			t.Errorf("the Network screen shows %s as %q with %s phones, want guests with a count", port, p.Use, phones)
		}
	}
	t.Logf("the Network screen's guests' port is %q; addresses shared by several devices (an access point in router mode): %d", card.GuestPort, len(card.Shared))
	if !found || card.GuestPort != port {
		t.Errorf("the Network screen's guests' port is %q (listed: %v), want %s", card.GuestPort, found, port)
	}
	if len(card.Shared) != 0 {
		t.Errorf("the Network screen takes the bridged access point for one in router mode: %s", card.Shared)
	}

	// The box's DNS answers with the hotspot's address: a phone behind the
	// access point reaches it with the hotspot down too (the last phone's
	// radio again).
	m.sh("", "nmcli", "-w", "120", "connection", "down", "eventbox-hotspot")
	r, err := m.try([]string{agent, "ethernet", "phones", "-n", "1", "-ssid", ssid, "-slug", slug, "-photo", "/run/boxtest/venue.jpg",
		"-for", "3m", "-out", "/run/boxtest/ethernet-no-hotspot.json"}, "")
	m.sh("", "nmcli", "-w", "300", "connection", "up", "eventbox-hotspot")
	if err != nil || r.Code != 0 {
		t.Fatalf("a phone with the hotspot down: %v %+v", err, r)
	}
	t.Logf("with the hotspot down, %s", strings.TrimSpace(r.Stdout))
	var one ethernetReport
	if err := json.Unmarshal([]byte(m.sh("", "cat", "/run/boxtest/ethernet-no-hotspot.json")), &one); err != nil || len(one.Phones) != 1 {
		t.Fatalf("the report of a phone with the hotspot down: %v", err)
	}
	if p := one.Phones[0]; p.Error != "" || !strings.HasPrefix(p.Probe, "302 ") || len(p.Uploads) != 1 || p.Uploads[0].Status != http.StatusCreated {
		t.Errorf("with the hotspot down a phone behind the access point got probe %q, uploads %+v, error %q", p.Probe, p.Uploads, p.Error)
	}
}
