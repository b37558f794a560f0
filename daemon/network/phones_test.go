package network_test

import (
	"net/http"
	"strings"
	"testing"

	"eventbox/daemon"
	"eventbox/netsetup/nmtest"
)

// radioBox is a box on its hotspot whose radio is uevent's under a fake
// sysfs, ethtool printing ethtool ("": missing), with n phones on it.
func radioBox(t *testing.T, uevent, ethtool string, n int, opts ...func(*daemon.Config)) (*box, *nmtest.NM) {
	t.Helper()
	nm := nmtest.New()
	nm.Ethtool, nm.Stations = ethtool, n
	sys := t.TempDir()
	if err := nmtest.WriteUevent(sys, uevent); err != nil {
		t.Fatal(err)
	}
	return newBox(t, nm, append([]func(*daemon.Config){func(c *daemon.Config) { c.SysRoot = sys }}, opts...)...), nm
}

// phones reads the Network screen's phones.
func (b *box) phones() map[string]any {
	b.t.Helper()
	res, out := b.do("GET", "/api/admin/network", nil)
	if res.Code != http.StatusOK {
		b.t.Fatalf("GET /api/admin/network answered %d: %s", res.Code, res.Body)
	}
	p, ok := out["phones"].(map[string]any)
	if !ok {
		b.t.Fatalf("no phones in %s", res.Body)
	}
	return p
}

// TestNetworkPhones: the Network screen says how many phones are on the
// hotspot and about how many its radio holds, from the published figures
// for the Pi's own radio, the owner's figure, or the configuration's;
// unknown (null, with the reason) for a radio without a figure.
func TestNetworkPhones(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 7, 8} {
		b, _ := radioBox(t, nmtest.Uevent43455, nmtest.Ethtool43455Standard, n)
		p := b.phones()
		if p["connected"] != float64(n) || p["capacity"] != float64(8) || p["capacitySource"] != "firmware table" ||
			p["chip"] != "43455" || p["firmware"] != "7.45.234" || p["firmwareBuild"] != "standard" || p["driver"] != "brcmfmac" {
			t.Errorf("%d phones on a standard 43455: %v", n, p)
		}
		if full := p["nearlyFull"] == true; full != (n >= 7) {
			t.Errorf("%d phones of 8: nearlyFull %v", n, p["nearlyFull"])
		}
	}

	t.Run("minimal firmware", func(t *testing.T) {
		b, _ := radioBox(t, nmtest.Uevent43455, nmtest.Ethtool43455Minimal, 8)
		if p := b.phones(); p["capacity"] != float64(19) || p["firmwareBuild"] != "minimal" || p["nearlyFull"] != false {
			t.Errorf("8 phones on the minimal firmware: %v", p)
		}
	})

	t.Run("iw fails", func(t *testing.T) {
		b, nm := radioBox(t, nmtest.Uevent43455, nmtest.Ethtool43455Standard, 3)
		nm.Lock(func(nm *nmtest.NM) { nm.Fail["iw dev wlan0 station dump"] = "command failed: No such device (-19)" })
		if p := b.phones(); p["connected"] != nil || p["capacity"] != float64(8) || p["nearlyFull"] != false {
			t.Errorf("phones when iw fails: %v", p)
		}
	})

	t.Run("unknown radio", func(t *testing.T) {
		b, _ := radioBox(t, nmtest.UeventUSB, nmtest.EthtoolUSB, 25)
		p := b.phones()
		if p["connected"] != float64(25) || p["capacity"] != nil || p["capacitySource"] != "unknown" || p["chip"] != "" ||
			p["driver"] != "mt76x2u" || !strings.Contains(p["capacityReason"].(string), "mt76x2u") || p["nearlyFull"] != false {
			t.Errorf("a USB adapter: %v", p)
		}
	})

	t.Run("hotspot down", func(t *testing.T) {
		b, nm := radioBox(t, nmtest.Uevent43455, nmtest.Ethtool43455Standard, 1)
		nm.Lock(func(nm *nmtest.NM) { delete(nm.Active, "eventbox-hotspot") })
		if p := b.phones(); p["connected"] != float64(0) {
			t.Errorf("with the hotspot down (the one station is the home router): %v", p)
		}
	})

	t.Run("the owner's figure, then the configuration's", func(t *testing.T) {
		b, _ := radioBox(t, nmtest.UeventUSB, nmtest.EthtoolUSB, 29, func(c *daemon.Config) { c.PhoneCapacity = 40 })
		if p := b.phones(); p["capacity"] != float64(40) || p["capacitySource"] != "setting" || p["setting"] != nil {
			t.Errorf("WIFI_PHONE_CAPACITY=40: %v", p)
		}
		res, out := b.do("PUT", "/api/admin/network/phones", map[string]any{"capacity": 30})
		if res.Code != http.StatusOK || at(out, "phones.capacity") != float64(30) || at(out, "phones.setting") != float64(30) {
			t.Fatalf("PUT capacity 30 answered %d: %s", res.Code, res.Body)
		}
		if p := b.phones(); p["capacity"] != float64(30) || p["capacitySource"] != "setting" || p["nearlyFull"] != true {
			t.Errorf("after the owner's 30: %v", p)
		}
		for _, bad := range []any{0, -3, 1001, "many"} {
			if res, out := b.do("PUT", "/api/admin/network/phones", map[string]any{"capacity": bad}); res.Code != http.StatusBadRequest || at(out, "details.capacity") == nil {
				t.Errorf("PUT capacity %v answered %d: %s", bad, res.Code, res.Body)
			}
		}
		if res, _ := b.do("PUT", "/api/admin/network/phones", map[string]any{"capacity": nil}); res.Code != http.StatusOK {
			t.Fatalf("PUT capacity null answered %d: %s", res.Code, res.Body)
		}
		if p := b.phones(); p["capacity"] != float64(40) || p["setting"] != nil {
			t.Errorf("the owner's figure forgotten: %v", p)
		}
	})

	t.Run("no NetworkManager", func(t *testing.T) {
		b := newBox(t, nil)
		res, out := b.do("GET", "/api/admin/network", nil)
		if res.Code != http.StatusOK || out["phones"] != nil {
			t.Errorf("without NetworkManager: %d %s", res.Code, res.Body)
		}
	})
}
