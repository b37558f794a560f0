package netsetup

import (
	"context"
	"fmt"
	"net/netip"
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
	// Connected is how long it has been associated (0 when not said).
	Connected time.Duration
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
// "inactive time" (ms) when given.
func ParseStationDump(out string) []Station {
	var list []Station
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
		num, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "connected time":
			list[len(list)-1].Connected = time.Duration(n) * time.Second
		case "inactive time":
			list[len(list)-1].Inactive = time.Duration(n) * time.Millisecond
		}
	}
	return list
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

// LetGo disconnects the phone mac from the hotspot (`iw dev <if> station
// del <mac>`: a deauthentication, which needs CAP_NET_ADMIN, which the
// daemon's service has). The phone may join again at once.
func (w WiFi) LetGo(ctx context.Context, mac string) error {
	if _, err := parseMAC(mac); err != nil {
		return err
	}
	out, err := w.Runner.Run(ctx, "iw", "dev", w.iface(), "station", "del", mac)
	if err != nil {
		return fmt.Errorf("letting %s go from %s: %w: %s", mac, w.iface(), err, strings.TrimSpace(string(out)))
	}
	return nil
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
