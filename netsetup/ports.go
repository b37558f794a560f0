package netsetup

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

// GuestPortPrefix starts the NetworkManager connection id of an Ethernet
// port set to "guests' access points": GuestPortPrefix + the device name.
const GuestPortPrefix = "eventbox-guests-"

// GuestPortAddress is the box's address on a port for guests' access
// points, with its network: a /22, so that the DHCP pool NetworkManager's
// dnsmasq derives from it holds far more than the 300 phones of a large
// party, and outside the hotspot's 10.42.0.0/24.
const GuestPortAddress = "10.43.0.1/22"

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
// GuestPortAddress, a DHCP server with one address per phone, and the same
// dnsmasq that answers every name with the box (DropInPath is read by every
// shared connection's dnsmasq). The drop-in answers with the hotspot's
// address (DefaultAddress), so the port carries that address too, as a
// /32: the phones behind the access points reach it through the box, their
// gateway, whether the hotspot is up or not. The connection comes up by
// itself and before any other on the port (priority 100), so the port is
// never the home internet's DHCP client at the same time.
//
// Off, the connection is taken down and deleted: NetworkManager then brings
// the port's ordinary connection back (the home internet by DHCP).
func PlanGuestPortNM(device string, on bool) (Plan, error) {
	if !interfacePattern.MatchString(device) {
		return Plan{}, fmt.Errorf("interface %q: not a network interface name", device)
	}
	id := GuestPortConnection(device)
	if !on {
		return Plan{Title: "port " + device + " back to the home internet", Steps: []Step{
			{Kind: StepRun, Why: "take the guests' connection down", Argv: []string{"nmcli", "connection", "down", id}, IgnoreFailure: true},
			{Kind: StepRun, Why: "remove it, so the port's own connection comes back", Argv: []string{"nmcli", "connection", "delete", id}, IgnoreFailure: true},
		}}, nil
	}
	box := netip.MustParsePrefix(DefaultAddress).Addr()
	return Plan{Title: "port " + device + " for guests' access points", Steps: []Step{
		{Kind: StepRun, Why: "forget an earlier guests' connection on the port", Argv: []string{"nmcli", "connection", "delete", id}, IgnoreFailure: true},
		{Kind: StepRun, Why: "add the guests' connection " + id, Argv: []string{"nmcli", "connection", "add", "type", "ethernet",
			"con-name", id, "ifname", device, "connection.autoconnect", "yes", "connection.autoconnect-priority", "100",
			"ipv4.method", "shared", "ipv4.addresses", GuestPortAddress + "," + box.String() + "/32",
			"ipv6.method", "disabled"}},
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
