package netsetup

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// GuestPortPrefix starts the NetworkManager connection id of an Ethernet
// port set to "guests' access points": GuestPortPrefix + the device name.
const GuestPortPrefix = "eventbox-guests-"

// GuestPortAddress is the box's address on a port for guests' access
// points, with its network: a /22, room for far more than the 300 phones
// of a large party, and outside the hotspot's 10.42.0.0/24.
const GuestPortAddress = "10.43.0.1/22"

// BoxAddressConnection is the NetworkManager connection that keeps the
// hotspot's address (DefaultAddress, as a /32) on a dummy device of its own
// (BoxAddressDevice) while a port serves guests' access points: the DNS
// drop-in answers every name with that address, and the phones behind the
// access points reach it through the box, their gateway, whether the
// hotspot is up or not. (NetworkManager keeps only the first address of a
// shared connection: the /32 cannot ride on the port's own connection.)
const BoxAddressConnection = "eventbox-box-address"

// BoxAddressDevice is the dummy device of BoxAddressConnection.
const BoxAddressDevice = "eventbox0"

// GuestPortDHCPRange is the DHCP pool on a port for guests' access points:
// the whole /22 but the first addresses, 1013 phones. NetworkManager's
// dnsmasq left to itself takes a pool only from the /24 the box's address
// lies in (10.43.0.10–10.43.0.254 of a /22, 245 phones): the connection
// names its range (ipv4.shared-dhcp-range, NetworkManager 1.42 and later).
const GuestPortDHCPRange = "10.43.0.10,10.43.3.254"

// Port is one network device of the box: a Wi-Fi radio or an Ethernet
// port, as NetworkManager lists it.
type Port struct {
	// Device is its name: wlan0, wlan1, eth0, eth1, a veth.
	Device string
	// Kind is "wifi" or "ethernet".
	Kind string
	// State is NetworkManager's word ("connected", "unavailable", …).
	State string
	// Connection is the connection on it, "" when none.
	Connection string
	// USB is true for a device on USB (sysfs: its device's subsystem is
	// usb), such as a Wi-Fi adapter plugged in.
	USB bool
	// Guests is true when the port serves guests' access points: its
	// connection is its GuestPortConnection.
	Guests bool
	// Hotspot is true when the radio carries the hotspot: the hotspot's
	// own connection or a second one (ExtraHotspotConnection).
	Hotspot bool
}

// GuestPortConnection is the connection id of device set to guests'
// access points.
func GuestPortConnection(device string) string { return GuestPortPrefix + device }

// Ports lists the box's Wi-Fi radios and Ethernet ports (a veth counts as
// an Ethernet port), in NetworkManager's order, each with whether it sits
// on USB (read under w.Root's /sys).
func (w WiFi) Ports(ctx context.Context) ([]Port, error) {
	rows, err := w.terseLines(ctx, "-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device", "status")
	if err != nil {
		return nil, fmt.Errorf("listing the network devices: %w", err)
	}
	var out []Port
	for _, f := range rows {
		if len(f) != 4 {
			continue
		}
		kind := f[1]
		switch kind {
		case "wifi", "ethernet":
		case "veth":
			kind = "ethernet"
		default:
			continue
		}
		p := Port{Device: f[0], Kind: kind, State: f[2], Connection: strings.TrimPrefix(f[3], "--")}
		p.Guests = p.Connection == GuestPortConnection(p.Device)
		p.Hotspot = kind == "wifi" && (p.Connection == or(w.Hotspot, DefaultConnection) || p.Connection == ExtraHotspotConnection(p.Device))
		p.USB = onUSB(w.Root, p.Device)
		out = append(out, p)
	}
	return out, nil
}

// onUSB reports whether the network device sits on USB: the subsystem of
// /sys/class/net/<device>/device is usb.
func onUSB(root, device string) bool {
	link, err := os.Readlink(filepath.Join(root, "/sys/class/net", device, "device", "subsystem"))
	return err == nil && filepath.Base(link) == "usb"
}

// PlanGuestPortNM computes the nmcli steps that set the Ethernet port
// device to serve guests' access points (on) or give it back to the home
// internet (off).
//
// On, the port gets a connection of its own (GuestPortConnection) in
// NetworkManager's shared mode, as the hotspot's: the box at
// GuestPortAddress, a DHCP server with one address per phone from the
// whole network (GuestPortDHCPRange), and the same
// dnsmasq that answers every name with the box (DropInPath is read by every
// shared connection's dnsmasq). The drop-in answers with the hotspot's
// address (DefaultAddress), so the box keeps that address on a dummy device
// too (BoxAddressConnection): the phones behind the access points reach it
// through the box, their gateway, whether the hotspot is up or not. The
// port's connection carries only GuestPortAddress: NetworkManager keeps
// only the first address of a shared connection. The connection comes up by
// itself and before any other on the port (priority 100), so the port is
// never the home internet's DHCP client at the same time.
//
// Off, the connection is taken down and deleted, and the dummy device's
// with it: NetworkManager then brings the port's ordinary connection back
// (the home internet by DHCP).
func PlanGuestPortNM(device string, on bool) (Plan, error) {
	if !interfacePattern.MatchString(device) {
		return Plan{}, fmt.Errorf("interface %q: not a network interface name", device)
	}
	id := GuestPortConnection(device)
	if !on {
		return Plan{Title: "port " + device + " back to the home internet", Steps: []Step{
			{Kind: StepRun, Why: "take the guests' connection down", Argv: []string{"nmcli", "connection", "down", id}, IgnoreFailure: true},
			{Kind: StepRun, Why: "remove it, so the port's own connection comes back", Argv: []string{"nmcli", "connection", "delete", id}, IgnoreFailure: true},
			{Kind: StepRun, Why: "remove the box's address kept for the guests' port", Argv: []string{"nmcli", "connection", "delete", BoxAddressConnection}, IgnoreFailure: true},
		}}, nil
	}
	box := netip.MustParsePrefix(DefaultAddress).Addr()
	return Plan{Title: "port " + device + " for guests' access points", Steps: []Step{
		{Kind: StepRun, Why: "forget an earlier guests' connection on the port", Argv: []string{"nmcli", "connection", "delete", id}, IgnoreFailure: true},
		{Kind: StepRun, Why: "forget an earlier connection of the box's address", Argv: []string{"nmcli", "connection", "delete", BoxAddressConnection}, IgnoreFailure: true},
		{Kind: StepRun, Why: "keep the box's address " + box.String() + " (the DNS answer) on a dummy device, hotspot up or not",
			Argv: []string{"nmcli", "connection", "add", "type", "dummy", "con-name", BoxAddressConnection, "ifname", BoxAddressDevice,
				"connection.autoconnect", "yes", "ipv4.method", "manual", "ipv4.addresses", box.String() + "/32", "ipv6.method", "disabled"}},
		{Kind: StepRun, Why: "bring it up", Argv: []string{"nmcli", "connection", "up", BoxAddressConnection}},
		{Kind: StepRun, Why: "add the guests' connection " + id, Argv: []string{"nmcli", "connection", "add", "type", "ethernet",
			"con-name", id, "ifname", device, "connection.autoconnect", "yes", "connection.autoconnect-priority", "100",
			"ipv4.method", "shared", "ipv4.addresses", GuestPortAddress,
			"ipv4.shared-dhcp-range", GuestPortDHCPRange, "ipv6.method", "disabled"}},
		{Kind: StepRun, Why: "bring it up (the port leaves the home internet)", Argv: []string{"nmcli", "connection", "up", id}},
	}}, nil
}

// SetGuestPort sets the Ethernet port device to guests' access points or
// back (PlanGuestPortNM), through NetworkManager.
func (w WiFi) SetGuestPort(ctx context.Context, device string, on bool) error {
	plan, err := PlanGuestPortNM(device, on)
	if err != nil {
		return err
	}
	if err := (Applier{Runner: w.Runner, Logger: w.Logger}).Apply(ctx, plan); err != nil {
		return fmt.Errorf("setting port %s for guests=%v: %w", device, on, err)
	}
	return nil
}

// ExtraHotspotPrefix starts the connection id of a second hotspot on
// another radio (a USB adapter): ExtraHotspotPrefix + the device name.
const ExtraHotspotPrefix = "eventbox-hotspot-"

// ExtraHotspotConnection is the connection id of the second hotspot on
// device.
func ExtraHotspotConnection(device string) string { return ExtraHotspotPrefix + device }

// extraChannels are the channels a second hotspot takes, the first that
// is not the main hotspot's: 1, 6 and 11 do not overlap.
var extraChannels = [...]int{11, 1, 6}

// PlanHotspotRadiosNM computes the nmcli steps that put the hotspot main
// (its name, password and channel, as ReadHotspot gives them) on the
// radios devices: the hotspot's own connection moves to devices[0], and
// each further radio carries a second hotspot of the same name and
// password (ExtraHotspotConnection) on a channel that does not overlap
// the first's, so that phones join either. A second hotspot has its own
// network, 10.44.<its index>.1/24, and the hotspot's address as a /32 for
// the DNS drop-in's answer (see PlanGuestPortNM). The second hotspots of
// the radios in known that are not in devices are removed.
func PlanHotspotRadiosNM(main HotspotState, devices, known []string) (Plan, error) {
	if len(devices) == 0 {
		return Plan{}, fmt.Errorf("no radio for the hotspot")
	}
	if len(devices) > 4 {
		return Plan{}, fmt.Errorf("%d radios: at most 4 carry the hotspot", len(devices))
	}
	seen := map[string]bool{}
	for _, d := range append(append([]string(nil), devices...), known...) {
		if !interfacePattern.MatchString(d) {
			return Plan{}, fmt.Errorf("interface %q: not a network interface name", d)
		}
	}
	for _, d := range devices {
		if seen[d] {
			return Plan{}, fmt.Errorf("radio %s named twice", d)
		}
		seen[d] = true
	}
	if !main.Exists || main.SSID == "" {
		return Plan{}, fmt.Errorf("no hotspot to put on the radios: set its name first")
	}
	p := Plan{Title: "hotspot on " + strings.Join(devices, ", ")}
	p.Steps = append(p.Steps,
		Step{Kind: StepRun, Why: "put the hotspot on " + devices[0],
			Argv: []string{"nmcli", "connection", "modify", DefaultConnection, "connection.interface-name", devices[0]}},
		Step{Kind: StepRun, Why: "take it down, so the change applies", Argv: []string{"nmcli", "connection", "down", DefaultConnection}, IgnoreFailure: true},
	)
	if main.On {
		p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "bring the hotspot up", Argv: []string{"nmcli", "connection", "up", DefaultConnection}})
	}
	for _, d := range known {
		if !seen[d] || d == devices[0] {
			p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "remove the second hotspot on " + d,
				Argv: []string{"nmcli", "connection", "delete", ExtraHotspotConnection(d)}, IgnoreFailure: true})
		}
	}
	box := netip.MustParsePrefix(DefaultAddress).Addr()
	var channels []int
	for _, c := range extraChannels {
		if c != main.Channel {
			channels = append(channels, c)
		}
	}
	for i, d := range devices[1:] {
		ch := channels[i%len(channels)]
		id := ExtraHotspotConnection(d)
		argv := []string{"nmcli", "connection", "add", "type", "wifi", "con-name", id, "ifname", d,
			"connection.autoconnect", "yes", "ipv4.method", "shared",
			"ipv4.addresses", fmt.Sprintf("10.44.%d.1/24,%s/32", i+1, box), "ipv6.method", "disabled",
			"802-11-wireless.ssid", main.SSID, "802-11-wireless.mode", "ap", "802-11-wireless.band", "bg",
			"802-11-wireless.channel", fmt.Sprint(ch)}
		if main.Password != "" {
			argv = append(argv, "802-11-wireless-security.key-mgmt", "wpa-psk", "802-11-wireless-security.proto", "rsn",
				"802-11-wireless-security.pairwise", "ccmp", "802-11-wireless-security.group", "ccmp",
				"802-11-wireless-security.psk", main.Password)
		}
		p.Steps = append(p.Steps,
			Step{Kind: StepRun, Why: "forget an earlier second hotspot on " + d, Argv: []string{"nmcli", "connection", "delete", id}, IgnoreFailure: true},
			Step{Kind: StepRun, Why: "add the second hotspot on " + d, Argv: argv},
			Step{Kind: StepRun, Why: "bring it up", Argv: []string{"nmcli", "connection", "up", id}},
		)
	}
	return p, nil
}

// SetHotspotRadios puts the hotspot on the radios devices
// (PlanHotspotRadiosNM), removing the second hotspots of the other
// radios the box has.
func (w WiFi) SetHotspotRadios(ctx context.Context, devices []string) error {
	main, err := ReadHotspot(ctx, w.Runner, w.Hotspot)
	if err != nil {
		return err
	}
	ports, err := w.Ports(ctx)
	if err != nil {
		return err
	}
	var known []string
	for _, p := range ports {
		if p.Kind == "wifi" {
			known = append(known, p.Device)
		}
	}
	plan, err := PlanHotspotRadiosNM(main, devices, known)
	if err != nil {
		return err
	}
	if err := (Applier{Runner: w.Runner, Logger: w.Logger}).Apply(ctx, plan); err != nil {
		return fmt.Errorf("putting the hotspot on %s: %w", strings.Join(devices, ", "), err)
	}
	return nil
}

// LeasesDir holds the DHCP leases of NetworkManager's dnsmasq, one file
// per shared device: dnsmasq-<device>.leases.
const LeasesDir = "/var/lib/NetworkManager"

// PortPhones counts the phones on p: a radio's associated phones (`iw dev
// <device> station dump`), or the DHCP leases NetworkManager's dnsmasq
// holds on an Ethernet port (under w.Root), one per phone behind the
// access points, kept while the phone renews it (an hour); when the leases
// cannot be read (the service is not root), the phones on the port's
// network in the neighbour table.
func (w WiFi) PortPhones(ctx context.Context, p Port) (int, error) {
	if !interfacePattern.MatchString(p.Device) {
		return 0, fmt.Errorf("interface %q: not a network interface name", p.Device)
	}
	if p.Kind == "wifi" {
		out, err := w.Runner.Run(ctx, "iw", "dev", p.Device, "station", "dump")
		if err != nil {
			return 0, fmt.Errorf("listing the phones on %s: %w: %s", p.Device, err, strings.TrimSpace(string(out)))
		}
		n := 0
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "Station ") {
				n++
			}
		}
		return n, nil
	}
	data, err := os.ReadFile(filepath.Join(w.Root, LeasesDir, "dnsmasq-"+p.Device+".leases"))
	if err != nil {
		// NetworkManager keeps its state directory, the leases with it, for
		// root alone (on the card a tmpfs of mode 700): the service then
		// counts the phones behind the port it has heard from lately, in
		// the neighbour table anyone may read.
		n, nerr := portNeighbours(w.Root, p.Device)
		if nerr != nil {
			return 0, fmt.Errorf("counting the phones on %s: the leases: %w; the neighbour table: %w", p.Device, err, nerr)
		}
		return n, nil
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if len(strings.Fields(line)) >= 3 {
			n++
		}
	}
	return n, nil
}

// ArpTable is the kernel's IPv4 neighbour table as any user reads it.
const ArpTable = "/proc/net/arp"

// portNeighbours counts the complete entries of the neighbour table
// (ArpTable under root) on device whose address lies in the guests' port's
// network (GuestPortAddress): one per phone the box has heard from lately.
func portNeighbours(root, device string) (int, error) {
	data, err := os.ReadFile(filepath.Join(root, ArpTable))
	if err != nil {
		return 0, err
	}
	network := netip.MustParsePrefix(GuestPortAddress).Masked()
	n := 0
	// IP address, HW type, Flags, HW address, Mask, Device.
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[5] != device {
			continue
		}
		ip, err := netip.ParseAddr(f[0])
		flags, ferr := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 32)
		if err != nil || ferr != nil || flags&0x2 == 0 || !network.Contains(ip) { // 0x2: ATF_COM, complete
			continue
		}
		n++
	}
	return n, nil
}
