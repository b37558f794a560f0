// Package nmtest is a NetworkManager stand-in for tests: NM answers the
// nmcli and iw commands that netsetup runs for the daemon (ReadHotspot,
// PlanHotspotNM, WiFi.JoinNM, Scan, Ethernet, Connectivity, Capability,
// HomeConnected, HotspotUp) with the terse output nmcli prints, from a
// small model of a box with one radio.
package nmtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"eventbox/netsetup"
)

// AP is one access point in range.
type AP struct {
	SSID, Security, Password string
	Signal                   int
}

// Device is a network device NM lists: its name, type ("wifi",
// "ethernet", "veth") and state ("disconnected" when empty).
type Device struct {
	Name, Type, State string
}

// Phone is a phone on the hotspot: its radio's MAC, its IP address (""
// for none in the neighbour table) and how long it has been associated.
type Phone struct {
	MAC, IP   string
	Connected time.Duration
}

// Hotspot is the hotspot connection as NM holds it.
type Hotspot struct {
	// Interface is its radio ("" for wlan0).
	Interface      string
	SSID, Password string
	Channel        int
	Autoconnect    bool
}

// NM is the stand-in. Set its fields before use, or under Lock.
type NM struct {
	mu sync.Mutex
	// Stopped makes every nmcli command fail as with NetworkManager not
	// running.
	Stopped bool
	// HideSecrets makes NetworkManager keep the connections' passwords
	// from the caller, as for a user without the polkit rule: nmcli -s
	// then prints the passphrase empty.
	HideSecrets bool
	// InRange lists the access points.
	InRange []AP
	// Hotspot is the hotspot connection; nil when there is none.
	Hotspot *Hotspot
	// Active maps a connection id to "activated".
	Active map[string]string
	// home is the SSID, key management and password of the home connection.
	homeSSID, homePSK string
	hasHome           bool
	// Ethernet is eth0's state; "" for no Ethernet device.
	Ethernet string
	// Devices are the devices besides wlan0 and eth0 (a USB Wi-Fi
	// adapter's wlan1, a second port eth1, a veth), listed after them.
	Devices []Device
	// Guests maps a port to the addresses of its guests' connection
	// (netsetup.GuestPortConnection) as NetworkManager keeps them: only
	// the first of those `connection add` gave, as for every shared
	// connection.
	Guests map[string]string
	// BoxAddress is the address of the dummy device's connection
	// netsetup.BoxAddressConnection, "" when there is none.
	BoxAddress string
	// Extra maps a radio to its second hotspot
	// (netsetup.ExtraHotspotConnection).
	Extra map[string]Hotspot
	// Connectivity answers the connectivity check ("none" when empty).
	Connectivity string
	// Country answers `iw reg get` ("00" when empty).
	Country string
	// IWPhy is the output of `iw phy phy0 info`.
	IWPhy string
	// Stations is how many phones `iw dev wlan0 station dump` lists.
	Stations int
	// Phones, when not empty, are the phones on the hotspot instead of
	// Stations' made-up ones: the station dump lists them, `ip neigh show
	// dev wlan0` their addresses, and starting the let-go unit's instance
	// (`systemctl start eventbox-let-go@wlan0-<mac>.service`, whose root
	// command is `iw dev wlan0 station del`) lets one go (LetGone then
	// lists it).
	Phones []Phone
	// LetGone lists the MACs the let-go unit let go.
	LetGone []string
	// Ethtool is the output of `ethtool -i wlan0` (Ethtool43455Standard
	// and the like); "" fails as without ethtool.
	Ethtool string
	// Fail maps a command line (or its prefix ending in "*") to the error
	// text it answers.
	Fail  map[string]string
	calls []string
}

// New returns a box on its hotspot "Party" (password "letmein123",
// channel 6), up.
func New() *NM {
	nm := &NM{}
	nm.reset()
	return nm
}

// Reset puts the model back as New made it, and forgets the calls.
func (nm *NM) Reset() {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	nm.reset()
}

func (nm *NM) reset() {
	nm.HideSecrets = false
	nm.Stopped, nm.InRange, nm.Ethernet, nm.Connectivity, nm.Country, nm.IWPhy = false, nil, "", "", "", ""
	nm.Stations, nm.Ethtool = 0, ""
	nm.Devices, nm.Guests, nm.Extra, nm.BoxAddress = nil, map[string]string{}, map[string]Hotspot{}, ""
	nm.Hotspot = &Hotspot{SSID: "Party", Password: "letmein123", Channel: 6, Autoconnect: true}
	nm.Active = map[string]string{netsetup.DefaultConnection: "activated"}
	nm.Fail = map[string]string{}
	nm.homeSSID, nm.homePSK, nm.hasHome = "", "", false
	nm.calls = nil
	nm.Phones, nm.LetGone = nil, nil
}

var _ netsetup.Runner = (*NM)(nil)

// Lock runs f with the model locked, to change it while it is in use.
func (nm *NM) Lock(f func(nm *NM)) {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	f(nm)
}

// IsActive reports whether connection id is up.
func (nm *NM) IsActive(id string) bool {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	return nm.Active[id] == "activated"
}

// Calls reports the commands run so far.
func (nm *NM) Calls() []string {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	return append([]string(nil), nm.calls...)
}

// Home reports the SSID and password NM keeps for the home connection.
func (nm *NM) Home() (ssid, password string, ok bool) {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	return nm.homeSSID, nm.homePSK, nm.hasHome
}

func escape(s string) string { return strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(s) }

func fail(msg string) ([]byte, error) { return []byte(msg + "\n"), errors.New("exit status 1") }

// Run implements netsetup.Runner.
func (nm *NM) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	cmd := strings.Join(append([]string{name}, args...), " ")
	nm.calls = append(nm.calls, cmd)
	for k, msg := range nm.Fail {
		if k == cmd || strings.HasSuffix(k, "*") && strings.HasPrefix(cmd, strings.TrimSuffix(k, "*")) {
			return fail(msg)
		}
	}
	if name == "nmcli" && nm.Stopped {
		return []byte("Error: NetworkManager is not running.\n"), errors.New("exit status 8")
	}
	switch {
	case cmd == "nmcli -t -f RUNNING general":
		return []byte("running\n"), nil
	case strings.HasPrefix(cmd, "nmcli -t -f IN-USE,SSID,SIGNAL,SECURITY device wifi list"):
		var b strings.Builder
		for _, ap := range nm.InRange {
			inUse := " "
			if nm.Active[netsetup.DefaultHomeConnection] == "activated" && nm.homeSSID == ap.SSID {
				inUse = "*"
			}
			fmt.Fprintf(&b, "%s:%s:%d:%s\n", inUse, escape(ap.SSID), ap.Signal, or(ap.Security, "--"))
		}
		return []byte(b.String()), nil
	case strings.HasPrefix(cmd, "nmcli -t -f SSID,SECURITY device wifi list"):
		var b strings.Builder
		for _, ap := range nm.InRange {
			fmt.Fprintf(&b, "%s:%s\n", escape(ap.SSID), ap.Security)
		}
		return []byte(b.String()), nil
	case cmd == "nmcli -t -f NAME,STATE connection show --active":
		var names []string
		for n := range nm.Active {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "%s:%s\n", escape(n), nm.Active[n])
		}
		return []byte(b.String()), nil
	case cmd == "nmcli -t -f DEVICE,TYPE,STATE,CONNECTION device status":
		var b strings.Builder
		if nm.Hotspot == nil || or(nm.Hotspot.Interface, "wlan0") == "wlan0" {
			b.WriteString("wlan0:wifi:connected:eventbox-hotspot\n")
		} else if id := netsetup.ExtraHotspotConnection("wlan0"); nm.Active[id] == "activated" {
			b.WriteString("wlan0:wifi:connected:" + id + "\n")
		} else {
			b.WriteString("wlan0:wifi:disconnected:--\n")
		}
		if nm.Ethernet != "" {
			conn := "--"
			if nm.Ethernet == "connected" {
				conn = "Wired connection 1"
			}
			if nm.Active[netsetup.GuestPortConnection("eth0")] == "activated" {
				conn = netsetup.GuestPortConnection("eth0")
			}
			fmt.Fprintf(&b, "eth0:ethernet:%s:%s\n", nm.Ethernet, conn)
		}
		for _, d := range nm.Devices {
			state, conn := or(d.State, "disconnected"), "--"
			if id := netsetup.GuestPortConnection(d.Name); nm.Active[id] == "activated" {
				state, conn = "connected", id
			}
			if id := netsetup.ExtraHotspotConnection(d.Name); nm.Active[id] == "activated" {
				state, conn = "connected", id
			}
			if nm.Hotspot != nil && nm.Hotspot.Interface == d.Name && nm.Active[netsetup.DefaultConnection] == "activated" {
				state, conn = "connected", netsetup.DefaultConnection
			}
			fmt.Fprintf(&b, "%s:%s:%s:%s\n", d.Name, d.Type, state, escape(conn))
		}
		return []byte(b.String()), nil
	case len(args) > 3 && args[0] == "connection" && args[1] == "add" && strings.HasPrefix(value(args, "con-name"), netsetup.GuestPortPrefix):
		dev := value(args, "ifname")
		if value(args, "con-name") != netsetup.GuestPortConnection(dev) || value(args, "ipv4.method") != "shared" {
			return fail("nmtest: a guests' connection not named after its port, or not shared")
		}
		first, _, _ := strings.Cut(value(args, "ipv4.addresses"), ",")
		nm.Guests[dev] = strings.TrimSpace(first)
		return nil, nil
	case len(args) > 3 && args[0] == "connection" && args[1] == "add" && value(args, "con-name") == netsetup.BoxAddressConnection:
		if value(args, "type") != "dummy" || value(args, "ipv4.method") != "manual" || value(args, "ipv4.addresses") == "" {
			return fail("nmtest: the box's address not on a dummy device with a manual address")
		}
		nm.BoxAddress = value(args, "ipv4.addresses")
		return nil, nil
	case cmd == "nmcli connection delete "+netsetup.BoxAddressConnection:
		if nm.BoxAddress == "" {
			return fail("Error: unknown connection '" + netsetup.BoxAddressConnection + "'.")
		}
		nm.BoxAddress = ""
		delete(nm.Active, netsetup.BoxAddressConnection)
		return nil, nil
	case len(args) > 3 && args[0] == "connection" && args[1] == "add" && strings.HasPrefix(value(args, "con-name"), netsetup.ExtraHotspotPrefix):
		dev := value(args, "ifname")
		if value(args, "con-name") != netsetup.ExtraHotspotConnection(dev) || value(args, "ipv4.method") != "shared" {
			return fail("nmtest: a second hotspot not named after its radio, or not shared")
		}
		h := Hotspot{Interface: dev, SSID: value(args, "802-11-wireless.ssid"), Password: value(args, "802-11-wireless-security.psk"), Autoconnect: true}
		fmt.Sscan(value(args, "802-11-wireless.channel"), &h.Channel)
		nm.Extra[dev] = h
		return nil, nil
	case strings.HasPrefix(cmd, "nmcli connection delete "+netsetup.ExtraHotspotPrefix):
		return deleteByDevice(nm.Extra, nm.Active, strings.TrimPrefix(cmd, "nmcli connection delete "), netsetup.ExtraHotspotPrefix)
	case strings.HasPrefix(cmd, "nmcli connection delete "+netsetup.GuestPortPrefix):
		return deleteByDevice(nm.Guests, nm.Active, strings.TrimPrefix(cmd, "nmcli connection delete "), netsetup.GuestPortPrefix)
	case cmd == "nmcli networking connectivity check":
		return []byte(or(nm.Connectivity, "none") + "\n"), nil
	case strings.HasPrefix(cmd, "nmcli -s -t -f ") && strings.HasSuffix(cmd, " connection show "+netsetup.DefaultConnection):
		if nm.Hotspot == nil {
			return []byte("Error: " + netsetup.DefaultConnection + " - no such connection profile.\n"), errors.New("exit status 10")
		}
		h := nm.Hotspot
		auto := "no"
		if h.Autoconnect {
			auto = "yes"
		}
		out := fmt.Sprintf("connection.autoconnect:%s\n802-11-wireless.ssid:%s\n802-11-wireless.channel:%d\n", auto, escape(h.SSID), h.Channel)
		if h.Password != "" {
			// An open hotspot has no security setting: nmcli prints
			// none of its fields.
			psk := escape(h.Password)
			if nm.HideSecrets {
				psk = ""
			}
			out += "802-11-wireless-security.key-mgmt:wpa-psk\n802-11-wireless-security.psk:" + psk + "\n"
		}
		if nm.Active[netsetup.DefaultConnection] == "activated" {
			out += "GENERAL.STATE:activated\n"
		}
		return []byte(out), nil
	case strings.HasPrefix(cmd, "nmcli connection modify "+netsetup.DefaultConnection+" remove 802-11-wireless-security"):
		if nm.Hotspot != nil {
			nm.Hotspot.Password = ""
		}
		return nil, nil
	case len(args) > 3 && args[0] == "connection" && (args[1] == "modify" && args[2] == netsetup.DefaultConnection ||
		args[1] == "add" && hasPair(args, "con-name", netsetup.DefaultConnection)):
		if args[1] == "add" {
			nm.Hotspot = &Hotspot{}
		} else if nm.Hotspot == nil {
			return fail("Error: unknown connection '" + netsetup.DefaultConnection + "'.")
		}
		h := nm.Hotspot
		for i := 2; i+1 < len(args); i++ {
			switch v := args[i+1]; args[i] {
			case "802-11-wireless.ssid":
				h.SSID = v
			case "802-11-wireless.channel":
				fmt.Sscan(v, &h.Channel)
			case "802-11-wireless-security.psk":
				h.Password = v
			case "connection.autoconnect":
				h.Autoconnect = v == "yes"
			case "connection.interface-name":
				h.Interface = v
			}
		}
		return nil, nil
	case cmd == "nmcli connection delete "+netsetup.DefaultHomeConnection:
		if !nm.hasHome {
			return fail("Error: unknown connection '" + netsetup.DefaultHomeConnection + "'.")
		}
		nm.hasHome, nm.homeSSID, nm.homePSK = false, "", ""
		delete(nm.Active, netsetup.DefaultHomeConnection)
		return nil, nil
	case len(args) > 3 && args[0] == "connection" && args[1] == "add" && hasPair(args, "con-name", netsetup.DefaultHomeConnection):
		nm.hasHome, nm.homeSSID, nm.homePSK = true, value(args, "802-11-wireless.ssid"), ""
		return nil, nil
	case strings.HasPrefix(cmd, "nmcli --wait 60 connection up "+netsetup.DefaultHomeConnection):
		if !nm.hasHome {
			return fail("Error: unknown connection '" + netsetup.DefaultHomeConnection + "'.")
		}
		if f := value(args, "passwd-file"); f != "" {
			data, err := os.ReadFile(f)
			if err != nil {
				return fail("Error: failed to read passwd-file: " + err.Error())
			}
			nm.homePSK = strings.TrimSuffix(strings.TrimPrefix(string(data), "802-11-wireless-security.psk:"), "\n")
		}
		// One radio, one mode: the attempt takes it from the hotspot.
		delete(nm.Active, netsetup.DefaultConnection)
		for _, ap := range nm.InRange {
			if ap.SSID != nm.homeSSID {
				continue
			}
			if ap.Password != nm.homePSK {
				return []byte("Error: Connection activation failed: Secrets were required, but not provided.\n"), errors.New("exit status 4")
			}
			nm.Active[netsetup.DefaultHomeConnection] = "activated"
			return []byte("Connection successfully activated\n"), nil
		}
		return []byte("Error: Connection activation failed: No network with SSID '" + nm.homeSSID + "' found.\n"), errors.New("exit status 4")
	case strings.HasPrefix(cmd, "nmcli connection up "):
		id := strings.TrimPrefix(cmd, "nmcli connection up ")
		if id == netsetup.DefaultConnection {
			if nm.Hotspot == nil {
				return fail("Error: unknown connection '" + id + "'.")
			}
			delete(nm.Active, netsetup.DefaultHomeConnection)
		}
		if id == netsetup.BoxAddressConnection && nm.BoxAddress == "" {
			return fail("Error: unknown connection '" + id + "'.")
		}
		if dev, ok := strings.CutPrefix(id, netsetup.GuestPortPrefix); ok {
			if _, ok := nm.Guests[dev]; !ok {
				return fail("Error: unknown connection '" + id + "'.")
			}
		}
		nm.Active[id] = "activated"
		return nil, nil
	case strings.HasPrefix(cmd, "nmcli connection down "):
		id := strings.TrimPrefix(cmd, "nmcli connection down ")
		if _, ok := nm.Active[id]; !ok {
			return []byte("Error: '" + id + "' is not an active connection.\n"), errors.New("exit status 10")
		}
		delete(nm.Active, id)
		return nil, nil
	case strings.HasPrefix(cmd, "systemctl start "+netsetup.CountryUnit):
		nm.Country = strings.TrimSuffix(strings.TrimPrefix(cmd, "systemctl start "+netsetup.CountryUnit), ".service")
		return nil, nil
	case cmd == "iw reg get":
		return []byte("global\ncountry " + or(nm.Country, "00") + ": DFS-ETSI\n"), nil
	case cmd == "iw dev wlan0 info":
		return []byte("Interface wlan0\n\tifindex 3\n\ttype AP\n\twiphy 0\n"), nil
	case cmd == "iw phy phy0 info":
		return []byte(nm.IWPhy), nil
	case cmd == "iw dev wlan0 station dump" && len(nm.Phones) > 0:
		var b strings.Builder
		for _, p := range nm.Phones {
			fmt.Fprintf(&b, "Station %s (on wlan0)\n\tinactive time:\t800 ms\n\tconnected time:\t%d seconds\n", p.MAC, int(p.Connected.Seconds()))
		}
		return []byte(b.String()), nil
	case cmd == "ip neigh show dev wlan0":
		var b strings.Builder
		for _, p := range nm.Phones {
			if p.IP != "" {
				fmt.Fprintf(&b, "%s lladdr %s REACHABLE\n", p.IP, p.MAC)
			}
		}
		return []byte(b.String()), nil
	case strings.HasPrefix(cmd, "systemctl start "+netsetup.LetGoUnit):
		// The root unit's instance runs `iw dev <if> station del <mac>`.
		iface, mac, err := netsetup.ParseLetGoInstance(strings.TrimSuffix(strings.TrimPrefix(cmd, "systemctl start "+netsetup.LetGoUnit), ".service"))
		if err != nil || iface != "wlan0" {
			return fail("Job for " + cmd + " failed")
		}
		for i, p := range nm.Phones {
			if p.MAC == mac {
				nm.Phones = append(nm.Phones[:i:i], nm.Phones[i+1:]...)
				nm.LetGone = append(nm.LetGone, mac)
				return nil, nil
			}
		}
		return fail("command failed: No such file or directory (-2)")
	case cmd == "iw dev wlan0 station dump":
		var b strings.Builder
		for i := range nm.Stations {
			fmt.Fprintf(&b, "Station 02:00:00:00:%02x:%02x (on wlan0)\n\tinactive time:\t800 ms\n\tsignal:  \t-51 dBm\n\tassociated:\tyes\n", i/256, i%256)
		}
		return []byte(b.String()), nil
	case cmd == "ethtool -i wlan0" && nm.Ethtool != "":
		return []byte(nm.Ethtool), nil
	}
	return fail("nmtest: command not modelled: " + cmd)
}

// Lose takes the home Wi-Fi down, as a router switched off would.
func (nm *NM) Lose() {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	delete(nm.Active, netsetup.DefaultHomeConnection)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func hasPair(args []string, k, v string) bool { return value(args, k) == v }

func value(args []string, k string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == k {
			return args[i+1]
		}
	}
	return ""
}

// APAndClient is `iw phy` output of a radio that can be the hotspot and a
// client at once on one channel (a Raspberry Pi's).
const APAndClient = `Wiphy phy0
	valid interface combinations:
		 * #{ managed } <= 1, #{ AP } <= 1, #{ P2P-device } <= 1,
		   total <= 3, #channels <= 1
`

// The radios of a Raspberry Pi, for SysRoot's
// sys/class/net/wlan0/device/uevent (Uevent…) and NM.Ethtool (Ethtool…):
// the CYW43455 on Cypress's standard firmware and on Raspberry Pi's
// minimal one, and a USB adapter.
const (
	Uevent43455          = "DRIVER=brcmfmac\nSDIO_CLASS=00\nSDIO_ID=02D0:4345\nMODALIAS=sdio:c00v02D0d4345\n"
	Ethtool43455Standard = "driver: brcmfmac\nversion: 7.45.234\nfirmware-version: 01-996384e2\nbus-info: mmc1:0001:1\n"
	Ethtool43455Minimal  = "driver: brcmfmac\nversion: 7.45.241\nfirmware-version: 01-703fd60\nbus-info: mmc1:0001:1\n"
	UeventUSB            = "DEVTYPE=usb_interface\nDRIVER=mt76x2u\nPRODUCT=e8d/7612/100\n"
	EthtoolUSB           = "driver: mt76x2u\nversion: 6.12.47\nfirmware-version: N/A\nbus-info: 1-1.3:1.0\n"
)

// WriteUevent writes uevent as wlan0's device's under sysRoot, as sysfs
// shows it.
func WriteUevent(sysRoot, uevent string) error {
	dir := filepath.Join(sysRoot, "sys/class/net/wlan0/device")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("making the fake sysfs: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "uevent"), []byte(uevent), 0o644); err != nil {
		return fmt.Errorf("writing the fake uevent: %w", err)
	}
	return nil
}

// deleteByDevice removes the connection id, named prefix + its device,
// from conns (by device) and from the active ones, as `nmcli connection
// delete id` does; an unknown id fails as nmcli's.
func deleteByDevice[V any](conns map[string]V, active map[string]string, id, prefix string) ([]byte, error) {
	dev := strings.TrimPrefix(id, prefix)
	if _, ok := conns[dev]; !ok {
		return fail("Error: unknown connection '" + id + "'.")
	}
	delete(conns, dev)
	delete(active, id)
	return nil, nil
}
