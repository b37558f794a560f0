package netsetup_test

import (
	"context"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"eventbox/netsetup"
	"eventbox/netsetup/nmtest"
)

// TestPortsListRadiosAndPortsWithUSB: the box's radios and ports as
// NetworkManager lists them, a veth counted as an Ethernet port, a Wi-Fi
// adapter on USB known by its sysfs subsystem, the loopback left out.
func TestPortsListRadiosAndPortsWithUSB(t *testing.T) {
	root := t.TempDir()
	usbDev := filepath.Join(root, "sys/devices/platform/usb1/1-1/1-1:1.0")
	if err := os.MkdirAll(filepath.Join(root, "sys/class/net/wlan1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(usbDev, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "sys/bus/usb"), filepath.Join(usbDev, "subsystem")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(usbDev, filepath.Join(root, "sys/class/net/wlan1/device")); err != nil {
		t.Fatal(err)
	}
	nm := nmtest.New()
	nm.Ethernet = "connected"
	nm.Devices = []nmtest.Device{{Name: "wlan1", Type: "wifi"}, {Name: "veth1", Type: "veth"}, {Name: "docker0", Type: "bridge"}}
	w := netsetup.WiFi{Runner: nm, Root: root, Logger: slog.New(slog.DiscardHandler)}
	got, err := w.Ports(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []netsetup.Port{
		{Device: "wlan0", Kind: "wifi", State: "connected", Connection: "eventbox-hotspot", Hotspot: true},
		{Device: "eth0", Kind: "ethernet", State: "connected", Connection: "Wired connection 1"},
		{Device: "wlan1", Kind: "wifi", State: "disconnected", USB: true},
		{Device: "veth1", Kind: "ethernet", State: "disconnected"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Ports =\n%+v\nwant\n%+v", got, want)
	}
}

// TestGuestPortTakesThePortFromTheHomeInternetAndGivesItBack: setting a
// port (eth0, or a second port eth1 or a veth) to guests' access points
// adds its shared connection with the box's address there and brings it
// up, and keeps the hotspot's address (the DNS answer) on a dummy device;
// setting it back removes both. A name that is no interface is refused
// before nmcli runs.
func TestGuestPortTakesThePortFromTheHomeInternetAndGivesItBack(t *testing.T) {
	ctx := context.Background()
	for _, dev := range []string{"eth0", "eth1", "veth-ap0"} {
		t.Run(dev, func(t *testing.T) {
			nm := nmtest.New()
			nm.Ethernet = "connected"
			nm.Devices = []nmtest.Device{{Name: "eth1", Type: "ethernet"}, {Name: "veth-ap0", Type: "veth"}}
			w := netsetup.WiFi{Runner: nm, Logger: slog.New(slog.DiscardHandler)}
			if err := w.SetGuestPort(ctx, dev, true); err != nil {
				t.Fatal(err)
			}
			if got := nm.Guests[dev]; got != "10.43.0.1/22" {
				t.Errorf("the guests' connection's addresses = %q", got)
			}
			if !nm.IsActive(netsetup.GuestPortConnection(dev)) {
				t.Fatal("the guests' connection is not up")
			}
			// The DNS drop-in's answer, the hotspot's address, stays on the
			// box when the hotspot is down: NetworkManager keeps only the
			// first address of a shared connection, so it has a dummy
			// device of its own.
			if nm.BoxAddress != "10.42.0.1/32" || !nm.IsActive(netsetup.BoxAddressConnection) {
				t.Errorf("the box's address on its dummy device = %q (up: %v), want 10.42.0.1/32 up", nm.BoxAddress, nm.IsActive(netsetup.BoxAddressConnection))
			}
			ports, err := w.Ports(ctx)
			if err != nil {
				t.Fatal(err)
			}
			guests := 0
			for _, p := range ports {
				if p.Guests {
					guests++
					if p.Device != dev {
						t.Errorf("port %s serves guests, want %s", p.Device, dev)
					}
				}
			}
			if guests != 1 {
				t.Errorf("%d ports serve guests, want 1: %+v", guests, ports)
			}
			// Again: the earlier connection is replaced, not doubled.
			if err := w.SetGuestPort(ctx, dev, true); err != nil {
				t.Fatal(err)
			}
			if err := w.SetGuestPort(ctx, dev, false); err != nil {
				t.Fatal(err)
			}
			if _, ok := nm.Guests[dev]; ok || nm.IsActive(netsetup.GuestPortConnection(dev)) {
				t.Error("the guests' connection is still there after going back to the home internet")
			}
			if nm.BoxAddress != "" || nm.IsActive(netsetup.BoxAddressConnection) {
				t.Error("the box's address on its dummy device is still there after going back to the home internet")
			}
			// Back again when it is already back: nothing fails.
			if err := w.SetGuestPort(ctx, dev, false); err != nil {
				t.Errorf("back twice: %v", err)
			}
		})
	}
	nm := nmtest.New()
	w := netsetup.WiFi{Runner: nm, Logger: slog.New(slog.DiscardHandler)}
	for _, bad := range []string{"", "eth0;reboot", "a-name-longer-than-15"} {
		if err := w.SetGuestPort(ctx, bad, true); err == nil {
			t.Errorf("SetGuestPort(%q) = nil, want an error", bad)
		}
	}
	if calls := nm.Calls(); len(calls) != 0 {
		t.Errorf("nmcli ran for invalid names: %q", calls)
	}
}

// TestHotspotOnAUSBRadio: the hotspot moves to a USB adapter (wlan1), or
// a second hotspot of the same name and password goes on it, on a channel
// that does not overlap the first's; going back to wlan0 alone removes the
// second hotspot. An empty choice, a radio named twice or an invalid name
// is refused.
func TestHotspotOnAUSBRadio(t *testing.T) {
	ctx := context.Background()
	type step struct {
		radios  []string
		iface   string // the hotspot's own radio afterwards
		extra   map[string]int
		wantErr bool
	}
	steps := []struct {
		name string
		step
	}{
		{"a second hotspot on wlan1", step{radios: []string{"wlan0", "wlan1"}, iface: "wlan0", extra: map[string]int{"wlan1": 11}}},
		{"the hotspot on wlan1 alone", step{radios: []string{"wlan1"}, iface: "wlan1", extra: map[string]int{}}},
		{"three radios", step{radios: []string{"wlan1", "wlan0", "wlan2"}, iface: "wlan1", extra: map[string]int{"wlan0": 11, "wlan2": 1}}},
		{"back to wlan0 alone", step{radios: []string{"wlan0"}, iface: "wlan0", extra: map[string]int{}}},
		{"none", step{radios: nil, wantErr: true}},
		{"twice", step{radios: []string{"wlan1", "wlan1"}, wantErr: true}},
		{"not a name", step{radios: []string{"wlan0", "wlan1;reboot"}, wantErr: true}},
	}
	nm := nmtest.New()
	nm.Devices = []nmtest.Device{{Name: "wlan1", Type: "wifi"}, {Name: "wlan2", Type: "wifi"}}
	w := netsetup.WiFi{Runner: nm, Logger: slog.New(slog.DiscardHandler)}
	for _, s := range steps {
		err := w.SetHotspotRadios(ctx, s.radios)
		if s.wantErr {
			if err == nil {
				t.Errorf("%s: no error", s.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := nm.Hotspot.Interface; got != s.iface {
			t.Errorf("%s: the hotspot is on %q, want %q", s.name, got, s.iface)
		}
		got := map[string]int{}
		for dev, h := range nm.Extra {
			got[dev] = h.Channel
			if h.SSID != "Party" || h.Password != "letmein123" {
				t.Errorf("%s: the second hotspot on %s is %q/%q, want the hotspot's name and password", s.name, dev, h.SSID, h.Password)
			}
		}
		if !reflect.DeepEqual(got, s.extra) {
			t.Errorf("%s: second hotspots %v, want %v", s.name, got, s.extra)
		}
		ports, err := w.Ports(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			want := false
			for _, r := range s.radios {
				want = want || r == p.Device
			}
			if p.Kind == "wifi" && p.Hotspot != want {
				t.Errorf("%s: %s carries the hotspot = %v, want %v", s.name, p.Device, p.Hotspot, want)
			}
		}
	}
}

// TestGuestPortPoolCoversItsNetwork: NetworkManager's dnsmasq, left to
// itself, hands out addresses only from the /24 the box's address lies in
// (245 phones on a /22); the guests' connection names its DHCP range, which
// lies in the port's network, leaves the box's addresses out and holds more
// than a thousand phones.
func TestGuestPortPoolCoversItsNetwork(t *testing.T) {
	network := netip.MustParsePrefix(netsetup.GuestPortAddress)
	box := netip.MustParsePrefix(netsetup.DefaultAddress).Addr()
	for _, dev := range []string{"eth0", "eth1"} {
		plan, err := netsetup.PlanGuestPortNM(dev, true)
		if err != nil {
			t.Fatal(err)
		}
		var add []string
		for _, s := range plan.Steps {
			if len(s.Argv) > 2 && s.Argv[1] == "connection" && s.Argv[2] == "add" {
				add = s.Argv
			}
		}
		rng := ""
		for i := 0; i+1 < len(add); i++ {
			if add[i] == "ipv4.shared-dhcp-range" {
				rng = add[i+1]
			}
		}
		first, last, ok := strings.Cut(rng, ",")
		if !ok {
			t.Fatalf("%s: the guests' connection names no DHCP range (ipv4.shared-dhcp-range): %q", dev, add)
		}
		a, errA := netip.ParseAddr(first)
		b, errB := netip.ParseAddr(last)
		if errA != nil || errB != nil || !network.Contains(a) || !network.Contains(b) || b.Less(a) {
			t.Fatalf("%s: the DHCP range %q is not a range of %s", dev, rng, network)
		}
		if own := network.Addr(); !own.Less(a) && !b.Less(own) {
			t.Errorf("%s: the DHCP range %q holds the box's own address %s", dev, rng, network.Addr())
		}
		if network.Contains(box) {
			t.Errorf("the hotspot's address %s lies in the guests' network %s", box, network)
		}
		a4, b4 := a.As4(), b.As4()
		size := int(b4[2])<<8 + int(b4[3]) - int(a4[2])<<8 - int(a4[3]) + 1
		if size < 1000 {
			t.Errorf("%s: the DHCP range %q holds %d phones, want more than 1000", dev, rng, size)
		}
	}
}

// TestGuestPortPhonesWithoutTheLeases: NetworkManager keeps the DHCP leases
// for root alone, and the service is not root: the phones on a guests'
// port are then the complete entries of the neighbour table on that port
// in its network (not those of another port or network, nor incomplete
// ones). When the leases can be read, they count.
func TestGuestPortPhonesWithoutTheLeases(t *testing.T) {
	ctx := context.Background()
	arp := `IP address       HW type     Flags       HW address            Mask     Device
10.43.0.57       0x1         0x2         02:00:00:00:17:00     *        eth1
10.43.1.12       0x1         0x2         02:00:00:00:18:00     *        eth1
10.43.0.99       0x1         0x0         00:00:00:00:00:00     *        eth1
10.42.0.23       0x1         0x2         02:00:00:00:03:00     *        wlan0
10.0.2.2         0x1         0x2         52:55:0a:00:02:02     *        eth0
192.168.1.9      0x1         0x2         02:00:00:00:19:00     *        eth1
`
	for _, tc := range []struct {
		name, leases string
		want         int
	}{
		{"no leases to read: the neighbour table", "", 2},
		{"the leases", "1795920000 02:00:00:00:17:00 10.43.0.57 phone *\n1795920000 02:00:00:00:18:00 10.43.1.12 phone *\n1795920000 02:00:00:00:19:00 10.43.0.60 phone *\n", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "proc/net"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, netsetup.ArpTable), []byte(arp), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.leases != "" {
				if err := os.MkdirAll(filepath.Join(root, netsetup.LeasesDir), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, netsetup.LeasesDir, "dnsmasq-eth1.leases"), []byte(tc.leases), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w := netsetup.WiFi{Runner: nmtest.New(), Root: root, Logger: slog.New(slog.DiscardHandler)}
			n, err := w.PortPhones(ctx, netsetup.Port{Device: "eth1", Kind: "ethernet", Guests: true})
			if err != nil || n != tc.want {
				t.Errorf("PortPhones(eth1) = %d, %v; want %d", n, err, tc.want)
			}
		})
	}
}
