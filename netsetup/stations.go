package netsetup

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Station is one phone associated with the hotspot, as nl80211's station
// dump gives it. Its address stays in the daemon's memory: it is never
// stored nor shown.
type Station struct {
	// MAC is the phone's hardware address, lower case.
	MAC string
	// Connected is how long it has been associated, in whole seconds as
	// the radio says it; ConnectedKnown says whether it did (a phone that
	// joined in the last second has Connected 0 and ConnectedKnown).
	Connected      time.Duration
	ConnectedKnown bool
	// Inactive is how long since the radio last heard it.
	Inactive time.Duration
}

// StationList lists the phones associated with the hotspot's interface
// (`iw dev <if> station dump`, which needs no privilege).
func (w WiFi) StationList(ctx context.Context) ([]Station, error) {
	out, err := w.Runner.Run(ctx, "iw", "dev", w.iface(), "station", "dump")
	if err != nil {
		return nil, fmt.Errorf("listing the phones on %s: %w: %s", w.iface(), err, strings.TrimSpace(string(out)))
	}
	return ParseStationDump(string(out)), nil
}

// ParseStationDump reads `iw dev <if> station dump`: one Station per
// "Station <mac> (on <if>)" line, with its "connected time" (seconds) and
// "inactive time" (ms) when given. A station the dump says is not
// associated ("associated: no") is left out: it is a phone between its
// authentication and its association, which the access point adds to the
// radio's list for a moment whether it then takes a slot or is refused.
func ParseStationDump(out string) []Station {
	var list []Station
	unassociated := map[int]bool{}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "Station "); ok {
			mac, _, _ := strings.Cut(rest, " ")
			list = append(list, Station{MAC: strings.ToLower(mac)})
			continue
		}
		if len(list) == 0 {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		if strings.TrimSpace(k) == "associated" && strings.TrimSpace(v) == "no" {
			unassociated[len(list)-1] = true
			continue
		}
		num, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "connected time":
			list[len(list)-1].Connected = time.Duration(n) * time.Second
			list[len(list)-1].ConnectedKnown = true
		case "inactive time":
			list[len(list)-1].Inactive = time.Duration(n) * time.Millisecond
		}
	}
	if len(unassociated) == 0 {
		return list
	}
	kept := list[:0]
	for i, st := range list {
		if !unassociated[i] {
			kept = append(kept, st)
		}
	}
	return kept
}

// Neighbours maps each hardware address on the hotspot's interface to the
// IP addresses (IPv4 and IPv6) the kernel's neighbour table holds for it
// (`ip neigh show dev <if>`, which needs no privilege): how the daemon,
// which knows a phone by the address of its requests, finds its radio.
func (w WiFi) Neighbours(ctx context.Context) (map[string][]netip.Addr, error) {
	out, err := w.Runner.Run(ctx, "ip", "neigh", "show", "dev", w.iface())
	if err != nil {
		return nil, fmt.Errorf("reading the neighbours on %s: %w: %s", w.iface(), err, strings.TrimSpace(string(out)))
	}
	return ParseNeighbours(string(out)), nil
}

// ParseNeighbours reads `ip neigh show dev <if>`: lines such as
// "10.42.0.23 lladdr 02:00:00:00:00:17 REACHABLE". Entries without a
// hardware address (INCOMPLETE, FAILED) are left out.
func ParseNeighbours(out string) map[string][]netip.Addr {
	m := map[string][]netip.Addr{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		ip, err := netip.ParseAddr(f[0])
		if err != nil {
			continue
		}
		for i := 1; i+1 < len(f); i++ {
			if f[i] == "lladdr" {
				mac := strings.ToLower(f[i+1])
				m[mac] = append(m[mac], ip.Unmap())
				break
			}
		}
	}
	return m
}

// LetGoUnit is the systemd template unit that lets one phone go from the
// hotspot as root (`eventbox netsetup let-go %i`, %i being LetGoInstance's
// interface and address); polkit lets the eventbox user start its
// instances (packaging/eventbox-network.rules), so the daemon needs no
// CAP_NET_ADMIN of its own.
const LetGoUnit = "eventbox-let-go@"

// LetGo disconnects the phone mac from the hotspot: it starts LetGoUnit's
// instance for the hotspot's interface and mac, which deauthenticates the
// phone as root (Deauthenticate) and returns once it has. The phone may
// join again at once.
func (w WiFi) LetGo(ctx context.Context, mac string) error {
	inst, err := LetGoInstance(w.iface(), mac)
	if err != nil {
		return err
	}
	out, err := w.Runner.Run(ctx, "systemctl", "start", LetGoUnit+inst+".service")
	if err != nil {
		return fmt.Errorf("letting %s go from %s: %w: %s", mac, w.iface(), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// LetGoInstance is the instance of LetGoUnit for a phone on a Wi-Fi
// interface: the interface, a dash, and the address's twelve hex digits
// ("wlan0-02000000001a"), which a unit name may hold and the polkit rule
// can check with one pattern.
func LetGoInstance(iface, mac string) (string, error) {
	m, err := parseMAC(mac)
	if err != nil {
		return "", err
	}
	if !ifacePattern.MatchString(iface) {
		return "", fmt.Errorf("letting a phone go: %q is not a Wi-Fi interface's name", iface)
	}
	return iface + "-" + strings.ReplaceAll(m, ":", ""), nil
}

// ParseLetGoInstance reads LetGoInstance's form back into the interface
// and the address, refusing anything else: it is what the root unit is
// given.
func ParseLetGoInstance(inst string) (iface, mac string, err error) {
	i := strings.LastIndexByte(inst, '-')
	hex := inst[i+1:]
	if i <= 0 || len(hex) != 12 || !ifacePattern.MatchString(inst[:i]) {
		return "", "", fmt.Errorf("%q is not an interface and a hardware address (such as wlan0-02000000001a)", inst)
	}
	var b strings.Builder
	for j := 0; j < 12; j += 2 {
		if j > 0 {
			b.WriteByte(':')
		}
		b.WriteString(hex[j : j+2])
	}
	m, err := parseMAC(b.String())
	if err != nil {
		return "", "", err
	}
	return inst[:i], m, nil
}

// ifacePattern is a network interface's name as the box's radios have
// them (wlan0, wlx00c0ca123456): lower-case letters and digits, at most
// 15 characters, the kernel's limit.
var ifacePattern = regexp.MustCompile(`^[a-z][a-z0-9]{0,14}$`)

// DefaultCtrlDir is where wpa_supplicant, which runs the hotspot's access
// point for NetworkManager, keeps a control socket per interface (Debian's
// wpa_supplicant.service: -O DIR=/run/wpa_supplicant).
const DefaultCtrlDir = "/run/wpa_supplicant"

// Deauthenticate disconnects the phone mac from iface's access point, as
// root (only the unit LetGoUnit runs it). It asks the access point itself,
// wpa_supplicant, over its control socket in ctrlDir (DEAUTHENTICATE
// <mac>): the access point sends the phone a deauthentication and forgets
// it, so its slot is free for the next phone. Deleting the station in the
// kernel alone (`iw dev <if> station del`, CAP_NET_ADMIN) is the fall-back
// when there is no control socket: on a radio whose access point runs in
// wpa_supplicant (mac80211 drivers, most USB adapters) it leaves the
// access point counting the phone, so the slot stays taken.
func Deauthenticate(ctx context.Context, runner Runner, ctrlDir, iface, mac string) error {
	m, err := parseMAC(mac)
	if err != nil {
		return err
	}
	if !ifacePattern.MatchString(iface) {
		return fmt.Errorf("letting a phone go: %q is not a Wi-Fi interface's name", iface)
	}
	sock := filepath.Join(ctrlDir, iface)
	if _, err := os.Stat(sock); err == nil {
		reply, err := ctrlRequest(ctx, sock, "DEAUTHENTICATE "+m)
		if err != nil {
			return fmt.Errorf("letting %s go from %s: %w", m, iface, err)
		}
		if strings.TrimSpace(reply) != "OK" {
			return fmt.Errorf("letting %s go from %s: the access point answered %q", m, iface, strings.TrimSpace(reply))
		}
		return nil
	}
	out, err := runner.Run(ctx, "iw", "dev", iface, "station", "del", m)
	if err != nil {
		return fmt.Errorf("letting %s go from %s: %w: %s", m, iface, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// ctrlRequest sends one command to a wpa_supplicant (or hostapd) control
// socket and reads its answer. The client's own socket has an abstract
// address: wpa_supplicant answers to the address it was sent from, which
// an abstract one keeps valid across the unit's private /tmp and
// read-only file system.
func ctrlRequest(ctx context.Context, sock, cmd string) (string, error) {
	local := &net.UnixAddr{Name: fmt.Sprintf("@eventbox-ctrl-%d-%d", os.Getpid(), time.Now().UnixNano()), Net: "unixgram"}
	c, err := net.DialUnix("unixgram", local, &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		return "", fmt.Errorf("reaching the access point's control socket %s: %w", sock, err)
	}
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.SetDeadline(deadline)
	if _, err := c.Write([]byte(cmd)); err != nil {
		return "", fmt.Errorf("sending %s to %s: %w", cmd, sock, err)
	}
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return "", fmt.Errorf("reading the answer to %s from %s: %w", cmd, sock, err)
		}
		// Unsolicited event lines start with "<level>"; they are not the
		// answer.
		if n > 0 && buf[0] == '<' {
			continue
		}
		return string(buf[:n]), nil
	}
}

// parseMAC checks a hardware address of six hex bytes.
func parseMAC(mac string) (string, error) {
	p := strings.Split(mac, ":")
	ok := len(p) == 6
	for _, b := range p {
		if _, err := strconv.ParseUint(b, 16, 8); err != nil || len(b) != 2 {
			ok = false
		}
	}
	if !ok {
		return "", fmt.Errorf("letting a phone go: %q is not a hardware address", mac)
	}
	return strings.ToLower(mac), nil
}
