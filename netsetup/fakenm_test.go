package netsetup_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"eventbox/netsetup"
)

// fakeNM stands in for NetworkManager (and iw, timedatectl, raspi-config):
// it answers the commands netsetup runs with the terse output nmcli prints,
// from a small model of the box: the networks in range with their
// passwords, which connections are up on the one radio, the cable, the
// internet. `connection up` of the home connection reads the keyfile that
// Join wrote under root and checks it against the network, as the real one
// would. Every command is recorded.
type fakeNM struct {
	mu   sync.Mutex
	root string
	// inRange lists the access points: SSID, signal, security, password.
	inRange []fakeAP
	// active maps a connection id to its state ("activated").
	active map[string]string
	// ethernet is eth0's state; "" means the box has no Ethernet device.
	ethernet string
	// connectivity is the answer of the connectivity check.
	connectivity string
	// noRescan makes `--rescan yes` fail, as a radio busy as an AP may.
	noRescan bool
	// iwPhy is the output of `iw phy phy0 info`.
	iwPhy string
	// stations is how many phones `iw dev wlan0 station dump` lists.
	stations int
	// ethtool is the output of `ethtool -i wlan0` ("": ethtool missing).
	ethtool string
	// fail maps a command line to an error it answers.
	fail  map[string]string
	calls []string
}

type fakeAP struct {
	ssid, security, password string
	signal                   int
}

func newFakeNM(root string) *fakeNM {
	return &fakeNM{root: root, active: map[string]string{}, connectivity: "none", fail: map[string]string{}}
}

var _ netsetup.Runner = (*fakeNM)(nil)

// escapeTerse escapes a value as nmcli -t does.
func escapeTerse(s string) string {
	return strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(s)
}

func (nm *fakeNM) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	cmd := strings.Join(append([]string{name}, args...), " ")
	nm.calls = append(nm.calls, cmd)
	if msg, ok := nm.fail[cmd]; ok {
		return []byte(msg), errors.New("exit status 1")
	}
	switch {
	case strings.HasPrefix(cmd, "nmcli -t -f IN-USE,SSID,SIGNAL,SECURITY device wifi list"):
		if nm.noRescan && strings.HasSuffix(cmd, "--rescan yes") {
			return []byte("Error: Scanning not allowed while in AP mode.\n"), errors.New("exit status 1")
		}
		var b strings.Builder
		for _, ap := range nm.inRange {
			inUse := " "
			if nm.active[netsetup.DefaultHomeConnection] == "activated" && nm.homeSSID() == ap.ssid {
				inUse = "*"
			}
			sec := ap.security
			if sec == "" {
				sec = "--"
			}
			fmt.Fprintf(&b, "%s:%s:%d:%s\n", inUse, escapeTerse(ap.ssid), ap.signal, sec)
		}
		return []byte(b.String()), nil
	case strings.HasPrefix(cmd, "nmcli -t -f SSID,SECURITY device wifi list"):
		var b strings.Builder
		for _, ap := range nm.inRange {
			fmt.Fprintf(&b, "%s:%s\n", escapeTerse(ap.ssid), ap.security)
		}
		return []byte(b.String()), nil
	case cmd == "nmcli -t -f NAME,STATE connection show --active":
		var b strings.Builder
		var names []string
		for n := range nm.active {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "%s:%s\n", escapeTerse(n), nm.active[n])
		}
		return []byte(b.String()), nil
	case cmd == "nmcli -t -f DEVICE,TYPE,STATE,CONNECTION device status":
		var b strings.Builder
		b.WriteString("wlan0:wifi:connected:eventbox-hotspot\n")
		if nm.ethernet != "" {
			conn := "--"
			if nm.ethernet == "connected" {
				conn = "Wired connection 1"
			}
			fmt.Fprintf(&b, "eth0:ethernet:%s:%s\n", nm.ethernet, conn)
		}
		b.WriteString("lo:loopback:connected (externally):lo\n")
		return []byte(b.String()), nil
	case cmd == "nmcli networking connectivity check":
		return []byte(nm.connectivity + "\n"), nil
	case strings.HasPrefix(cmd, "nmcli --wait 60 connection up "+netsetup.DefaultHomeConnection):
		// One radio, one mode in this model: the attempt takes it from the
		// hotspot, whether it succeeds or not.
		delete(nm.active, netsetup.DefaultConnection)
		if ok, why := nm.homeJoins(); !ok {
			return []byte("Error: Connection activation failed: " + why + "\n"), errors.New("exit status 4")
		}
		nm.active[netsetup.DefaultHomeConnection] = "activated"
		return []byte("Connection successfully activated\n"), nil
	case strings.HasPrefix(cmd, "nmcli connection up "):
		id := strings.TrimPrefix(cmd, "nmcli connection up ")
		if id == netsetup.DefaultConnection {
			delete(nm.active, netsetup.DefaultHomeConnection)
		}
		nm.active[id] = "activated"
		return nil, nil
	case strings.HasPrefix(cmd, "nmcli connection down "):
		id := strings.TrimPrefix(cmd, "nmcli connection down ")
		if _, ok := nm.active[id]; !ok {
			return []byte("Error: '" + id + "' is not an active connection.\n"), errors.New("exit status 10")
		}
		delete(nm.active, id)
		return nil, nil
	case cmd == "iw dev wlan0 info":
		return []byte("Interface wlan0\n\tifindex 3\n\twdev 0x1\n\taddr b8:27:eb:00:00:01\n\ttype AP\n\twiphy 0\n"), nil
	case cmd == "iw phy phy0 info":
		return []byte(nm.iwPhy), nil
	case cmd == "iw dev wlan0 station dump":
		return []byte(stationDump(nm.stations)), nil
	case cmd == "ethtool -i wlan0":
		if nm.ethtool == "" {
			return []byte("exec: \"ethtool\": executable file not found in $PATH"), errors.New("exec: not found")
		}
		return []byte(nm.ethtool), nil
	}
	return nil, nil
}

// homeSSID reads the SSID of the home keyfile Join wrote.
func (nm *fakeNM) homeSSID() string {
	ssid, _, _ := netsetup.ReadHotspotWiFi(nm.root, netsetup.DefaultHomeConnection)
	return ssid
}

// homeJoins checks the home keyfile against the networks in range.
func (nm *fakeNM) homeJoins() (bool, string) {
	ssid, psk, ok := netsetup.ReadHotspotWiFi(nm.root, netsetup.DefaultHomeConnection)
	if !ok {
		return false, "no connection"
	}
	for _, ap := range nm.inRange {
		if ap.ssid == ssid {
			if ap.password != psk {
				return false, "Secrets were required, but not provided."
			}
			return true, ""
		}
	}
	return false, "No network with SSID '" + ssid + "' found."
}

// setFail makes cmd fail with msg; an empty msg lets it succeed again.
func (nm *fakeNM) setFail(cmd, msg string) {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	if msg == "" {
		delete(nm.fail, cmd)
		return
	}
	nm.fail[cmd] = msg
}

// lose takes the home Wi-Fi down, as a router switched off would.
func (nm *fakeNM) lose() {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	delete(nm.active, netsetup.DefaultHomeConnection)
}

// isActive reports whether connection id is up.
func (nm *fakeNM) isActive(id string) bool {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	return nm.active[id] == "activated"
}

// ran reports the commands run so far.
func (nm *fakeNM) ran() []string {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	return append([]string(nil), nm.calls...)
}

// stationDump is what `iw dev wlan0 station dump` prints for n phones.
func stationDump(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Station 02:00:00:00:00:%02x (on wlan0)\n\tinactive time:\t1200 ms\n\trx bytes:\t52311\n\tsignal:  \t-48 dBm\n\tauthorized:\tyes\n\tassociated:\tyes\n", i)
	}
	return b.String()
}
