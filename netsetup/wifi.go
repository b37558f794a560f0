package netsetup

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// DefaultHomeConnection is the NetworkManager connection the box joins a
// home Wi-Fi with; one at a time, each join replacing it.
const DefaultHomeConnection = "eventbox-home"

// Network is one Wi-Fi network in range.
type Network struct {
	// SSID is the network's name.
	SSID string
	// Signal is the strength, 0–100, of its strongest access point.
	Signal int
	// Security is nmcli's word for it ("WPA2", "WPA1 WPA2", "WPA3", "" when
	// open).
	Security string
	// InUse is true when the box is connected to it.
	InUse bool
}

// Open reports whether the network needs no password.
func (n Network) Open() bool { return n.Security == "" || n.Security == "--" }

// WiFi is the box's Wi-Fi as a client, through nmcli. Its methods are what
// the Network screen and `eventbox netsetup wifi` call.
type WiFi struct {
	// Runner runs nmcli and iw. Must not be nil.
	Runner Runner
	// Root prefixes the keyfile written by Join and the sysfs file Radio
	// reads ("" for "/").
	Root string
	// Interface is the Wi-Fi device (DefaultInterface when empty).
	Interface string
	// Hotspot is the hotspot's connection (DefaultConnection when empty).
	Hotspot string
	// Home is the home Wi-Fi's connection (DefaultHomeConnection when empty).
	Home string
	// Logger receives a line per change. Must not be nil.
	Logger *slog.Logger
}

func (w WiFi) iface() string   { return or(w.Interface, DefaultInterface) }
func (w WiFi) hotspot() string { return or(w.Hotspot, DefaultConnection) }
func (w WiFi) home() string    { return or(w.Home, DefaultHomeConnection) }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// splitTerse splits one line of nmcli's terse output (-t) into its fields:
// ':' separates them, and a ':' or '\' inside a value is escaped with '\'.
func splitTerse(line string) []string {
	var fields []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line):
			i++
			b.WriteByte(line[i])
		case c == ':':
			fields = append(fields, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(fields, b.String())
}

// terseLines runs nmcli with args and splits its terse output.
func (w WiFi) terseLines(ctx context.Context, args ...string) ([][]string, error) {
	out, err := w.Runner.Run(ctx, "nmcli", args...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	var rows [][]string
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimRight(line, "\r"); line != "" {
			rows = append(rows, splitTerse(line))
		}
	}
	return rows, nil
}

// Scan lists the Wi-Fi networks in range, one entry per name (hidden
// networks left out), strongest first. It asks for a fresh scan, and lists
// what NetworkManager last saw when the radio refuses one (as it may while
// it is the hotspot).
func (w WiFi) Scan(ctx context.Context) ([]Network, error) {
	args := []string{"-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY", "device", "wifi", "list", "ifname", w.iface(), "--rescan"}
	rows, err := w.terseLines(ctx, append(args, "yes")...)
	if err != nil {
		w.Logger.InfoContext(ctx, "wifi scan refused, listing the last one", "error", err)
		if rows, err = w.terseLines(ctx, append(args, "no")...); err != nil {
			return nil, fmt.Errorf("listing Wi-Fi networks: %w", err)
		}
	}
	return parseScan(rows), nil
}

// parseScan turns nmcli's IN-USE,SSID,SIGNAL,SECURITY rows into networks,
// deduplicated by name (the strongest access point's signal and security,
// in use if any is), strongest first, then by name.
func parseScan(rows [][]string) []Network {
	byName := map[string]*Network{}
	var names []string
	for _, f := range rows {
		if len(f) != 4 || f[1] == "" {
			continue
		}
		signal, err := strconv.Atoi(f[2])
		if err != nil {
			continue
		}
		sec := f[3]
		if sec == "--" {
			sec = ""
		}
		n := Network{SSID: f[1], Signal: signal, Security: sec, InUse: f[0] == "*"}
		prev, seen := byName[n.SSID]
		if !seen {
			byName[n.SSID] = &n
			names = append(names, n.SSID)
			continue
		}
		inUse := prev.InUse || n.InUse
		if n.Signal > prev.Signal {
			*prev = n
		}
		prev.InUse = inUse
	}
	out := make([]Network, 0, len(names))
	for _, name := range names {
		out = append(out, *byName[name])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Signal != out[j].Signal {
			return out[i].Signal > out[j].Signal
		}
		return out[i].SSID < out[j].SSID
	})
	return out
}

// PlanJoin computes the steps that join the Wi-Fi network ssid with
// password (empty for an open network) on opts' interface, as the
// connection home: a keyfile (the password never on a command line), a
// reload, and the connection brought up, which takes the radio from the
// hotspot when it cannot do both. sae picks WPA3's key management. The
// hotspot keeps the higher autoconnect priority, so a box restarted
// anywhere comes back as the hotspot.
func PlanJoin(iface, home, ssid, password string, sae bool) (Plan, error) {
	var errs []error
	if err := validateSSID(ssid); err != nil {
		errs = append(errs, err)
	}
	if err := validatePassword(password); err != nil {
		errs = append(errs, err)
	}
	if !interfacePattern.MatchString(iface) {
		errs = append(errs, fmt.Errorf("interface %q: not a network interface name", iface))
	}
	if !connectionIDPattern.MatchString(home) {
		errs = append(errs, fmt.Errorf("connection %q: use letters, digits, '.', '_' and '-'", home))
	}
	if err := errors.Join(errs...); err != nil {
		return Plan{}, fmt.Errorf("invalid Wi-Fi to join: %w", err)
	}
	var b strings.Builder
	w := func(s string) { b.WriteString(s); b.WriteByte('\n') }
	w("[connection]")
	w("id=" + home)
	w("uuid=" + nameUUID(home))
	w("type=wifi")
	w("autoconnect-priority=0")
	w("interface-name=" + iface)
	w("")
	w("[wifi]")
	w("mode=infrastructure")
	w("ssid=" + keyfileSSID(ssid))
	w("")
	if password != "" {
		w("[wifi-security]")
		if sae {
			w("key-mgmt=sae")
		} else {
			w("key-mgmt=wpa-psk")
		}
		w("psk=" + keyfileString(password))
		w("")
	}
	w("[ipv4]")
	w("method=auto")
	w("")
	w("[ipv6]")
	w("addr-gen-mode=default")
	w("method=auto")
	return Plan{Title: "join Wi-Fi " + strconv.Quote(ssid) + " on " + iface, Steps: []Step{
		{Kind: StepWrite, Why: "add the NetworkManager connection " + home, Path: keyfilePath(home), Mode: 0o600, Content: b.String()},
		{Kind: StepRun, Why: "make NetworkManager read it", Argv: []string{"nmcli", "connection", "reload"}},
		{Kind: StepRun, Why: "join the network (the hotspot stops if the radio cannot do both)",
			Argv: []string{"nmcli", "--wait", "60", "connection", "up", home}},
	}}, nil
}

// Join joins the Wi-Fi network ssid (password empty for an open one) as the
// home connection and waits up to a minute for NetworkManager to say it is
// up. A wrong password or a network out of range is an error; the caller
// arms a Fallback before calling, so that the hotspot comes back either way.
func (w WiFi) Join(ctx context.Context, ssid, password string) error {
	sae := false
	if rows, err := w.terseLines(ctx, "-t", "-f", "SSID,SECURITY", "device", "wifi", "list", "ifname", w.iface(), "--rescan", "no"); err == nil {
		for _, f := range rows {
			if len(f) == 2 && f[0] == ssid {
				sae = strings.Contains(f[1], "WPA3") && !strings.Contains(f[1], "WPA2")
			}
		}
	}
	plan, err := PlanJoin(w.iface(), w.home(), ssid, password, sae)
	if err != nil {
		return err
	}
	w.Logger.InfoContext(ctx, "joining Wi-Fi", "ssid", ssid, "wpa3", sae)
	if err := (Applier{Runner: w.Runner, Root: w.Root, Logger: w.Logger}).Apply(ctx, plan); err != nil {
		return fmt.Errorf("joining %q: %w", ssid, err)
	}
	return nil
}

// HomeConnected reports whether the home connection is up (activated).
func (w WiFi) HomeConnected(ctx context.Context) (bool, error) {
	return w.activated(ctx, w.home())
}

// activated reports whether NetworkManager's connection name is up.
func (w WiFi) activated(ctx context.Context, name string) (bool, error) {
	rows, err := w.terseLines(ctx, "-t", "-f", "NAME,STATE", "connection", "show", "--active")
	if err != nil {
		return false, fmt.Errorf("reading the active connections: %w", err)
	}
	for _, f := range rows {
		if len(f) == 2 && f[0] == name && f[1] == "activated" {
			return true, nil
		}
	}
	return false, nil
}

// HotspotActive reports whether the hotspot connection is up (activated).
func (w WiFi) HotspotActive(ctx context.Context) (bool, error) {
	return w.activated(ctx, w.hotspot())
}

// HotspotUp gives up the home Wi-Fi and brings the hotspot back.
func (w WiFi) HotspotUp(ctx context.Context) error {
	if out, err := w.Runner.Run(ctx, "nmcli", "connection", "down", w.home()); err != nil {
		w.Logger.DebugContext(ctx, "home Wi-Fi was not up", "output", strings.TrimSpace(string(out)))
	}
	if out, err := w.Runner.Run(ctx, "nmcli", "connection", "up", w.hotspot()); err != nil {
		return fmt.Errorf("bringing the hotspot %s up: %w: %s", w.hotspot(), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Link is the state of one network device.
type Link struct {
	// Device is its name (eth0); "" when the box has none of the kind.
	Device string
	// State is NetworkManager's word: "connected", "disconnected",
	// "unavailable" (no cable), "connecting (getting IP configuration)", …
	State string
	// Connection is the connection on it, "" when none.
	Connection string
}

// Connected reports whether the device is connected.
func (l Link) Connected() bool { return l.State == "connected" }

// Ethernet reports the first Ethernet device's state.
func (w WiFi) Ethernet(ctx context.Context) (Link, error) {
	rows, err := w.terseLines(ctx, "-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device", "status")
	if err != nil {
		return Link{}, fmt.Errorf("reading the devices: %w", err)
	}
	for _, f := range rows {
		if len(f) == 4 && f[1] == "ethernet" {
			return Link{Device: f[0], State: f[2], Connection: strings.TrimPrefix(f[3], "--")}, nil
		}
	}
	return Link{}, nil
}

// Connectivity is NetworkManager's verdict on reaching the internet.
type Connectivity string

// NetworkManager's connectivity states.
const (
	ConnectivityFull    Connectivity = "full"    // the internet answers
	ConnectivityLimited Connectivity = "limited" // a network, no internet
	ConnectivityPortal  Connectivity = "portal"  // a sign-in page is in the way
	ConnectivityNone    Connectivity = "none"    // no network
	ConnectivityUnknown Connectivity = "unknown" // the check is off or failed
)

// Connectivity asks NetworkManager to check now whether the box reaches
// the internet (`nmcli networking connectivity check`; the check is off,
// "unknown", when its configuration has no URL to try).
func (w WiFi) Connectivity(ctx context.Context) (Connectivity, error) {
	out, err := w.Runner.Run(ctx, "nmcli", "networking", "connectivity", "check")
	if err != nil {
		return ConnectivityUnknown, fmt.Errorf("checking connectivity: %w: %s", err, strings.TrimSpace(string(out)))
	}
	switch c := Connectivity(strings.TrimSpace(string(out))); c {
	case ConnectivityFull, ConnectivityLimited, ConnectivityPortal, ConnectivityNone:
		return c, nil
	default:
		return ConnectivityUnknown, nil
	}
}

// Capability is what the Wi-Fi radio can do at once, from the "valid
// interface combinations" that `iw` lists for it (nmcli does not say).
type Capability struct {
	// Known is false when iw could not tell (missing, or no combinations
	// listed); the screen then says the hotspot may stop.
	Known bool
	// APAndClient is true when the radio can be the hotspot and a client of
	// another network at the same time.
	APAndClient bool
	// SameChannel is true when it can only do so on one channel: the
	// hotspot then follows the home network's channel.
	SameChannel bool
}

var (
	wiphyPattern = regexp.MustCompile(`(?m)^\s*wiphy (\d+)\s*$`)
	groupPattern = regexp.MustCompile(`#\{\s*([^}]*)\}\s*<=\s*(\d+)`)
	totalPattern = regexp.MustCompile(`total\s*<=\s*(\d+)`)
	chansPattern = regexp.MustCompile(`#channels\s*<=\s*(\d+)`)
)

// Capability reads the radio's interface combinations (`iw dev <if> info`
// for its phy, then `iw phy phyN info`).
func (w WiFi) Capability(ctx context.Context) (Capability, error) {
	out, err := w.Runner.Run(ctx, "iw", "dev", w.iface(), "info")
	if err != nil {
		return Capability{}, fmt.Errorf("reading %s's radio: %w", w.iface(), err)
	}
	m := wiphyPattern.FindSubmatch(out)
	if m == nil {
		return Capability{}, fmt.Errorf("reading %s's radio: iw names no wiphy", w.iface())
	}
	out, err = w.Runner.Run(ctx, "iw", "phy", "phy"+string(m[1]), "info")
	if err != nil {
		return Capability{}, fmt.Errorf("reading the combinations of phy%s: %w", m[1], err)
	}
	return ParseCombinations(string(out)), nil
}

// ParseCombinations reads the "valid interface combinations" of `iw phy
// … info` (or `iw list` for one radio): a combination allows the hotspot
// and a client at once when it counts at least one "managed" and one "AP"
// interface, in separate groups or in one group allowing two, within its
// total.
func ParseCombinations(info string) Capability {
	var c Capability
	_, rest, ok := strings.Cut(info, "valid interface combinations:")
	if !ok {
		return c
	}
	// Each combination starts with "*" and may wrap onto the next lines.
	var combos []string
	for _, line := range strings.Split(rest, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "*") {
			combos = append(combos, t)
		} else if len(combos) > 0 && (strings.HasPrefix(t, "total") || strings.HasPrefix(t, "#")) {
			combos[len(combos)-1] += " " + t
		} else if len(combos) > 0 && t != "" {
			break // the next section of the listing
		}
	}
	for _, combo := range combos {
		c.Known = true
		managed, ap, shared := 0, 0, 0
		for _, g := range groupPattern.FindAllStringSubmatch(combo, -1) {
			n, _ := strconv.Atoi(g[2])
			hasM, hasA := false, false
			for _, kind := range strings.Split(g[1], ",") {
				switch strings.TrimSpace(kind) {
				case "managed":
					hasM = true
				case "AP":
					hasA = true
				}
			}
			switch {
			case hasM && hasA:
				shared += n
			case hasM:
				managed += n
			case hasA:
				ap += n
			}
		}
		total := 1 << 30
		if t := totalPattern.FindStringSubmatch(combo); t != nil {
			total, _ = strconv.Atoi(t[1])
		}
		if !(managed+ap+shared >= 2 && managed+shared >= 1 && ap+shared >= 1 && total >= 2) {
			continue
		}
		chans := 1 << 30
		if m := chansPattern.FindStringSubmatch(combo); m != nil {
			chans, _ = strconv.Atoi(m[1])
		}
		if !c.APAndClient || chans > 1 {
			c.SameChannel = chans <= 1
		}
		c.APAndClient = true
	}
	return c
}

// SetupSSID is the setup hotspot's name for the machine whose id is given
// (the bytes of /etc/machine-id, or a MAC address): "eventbox-setup-" and
// four hex digits of a hash of it, so boxes side by side tell apart while
// the id itself is not broadcast.
func SetupSSID(id []byte) string {
	sum := sha256.Sum256(append([]byte("eventbox setup hotspot\x00"), id...))
	return fmt.Sprintf("eventbox-setup-%02X%02X", sum[0], sum[1])
}

// MachineSetupSSID reads the machine's id under root ("" for "/"):
// /etc/machine-id, else the Wi-Fi interface's MAC address, and returns its
// SetupSSID.
func MachineSetupSSID(root, iface string) (string, error) {
	if id, err := os.ReadFile(rooted(root, "/etc/machine-id")); err == nil && len(strings.TrimSpace(string(id))) > 0 {
		return SetupSSID([]byte(strings.TrimSpace(string(id)))), nil
	}
	mac, err := os.ReadFile(rooted(root, "/sys/class/net/"+or(iface, DefaultInterface)+"/address"))
	if err != nil {
		return "", fmt.Errorf("naming the setup hotspot: no machine id and no MAC address: %w", err)
	}
	return SetupSSID([]byte(strings.TrimSpace(string(mac)))), nil
}
