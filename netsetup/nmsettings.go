package netsetup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// The daemon runs as the unprivileged eventbox user: it may not write
// NetworkManager's keyfiles (root's, under a read-only /etc), but it may
// ask NetworkManager over D-Bus to change its connections when polkit lets
// it (packaging/eventbox-network.rules). The functions below are the
// daemon's way to the same hotspot and home Wi-Fi as PlanHotspot and
// PlanJoin: nmcli commands only, carried out by an Applier whose Root is
// never used.

// HotspotState is the hotspot as NetworkManager holds it.
type HotspotState struct {
	// Exists is false when NetworkManager has no such connection.
	Exists bool
	// SSID is the network's name; Password its WPA passphrase ("" when
	// open, or when the caller may not read it: see Secured).
	SSID, Password string
	// Secured is true when the network has a password (a WPA key
	// management), whether or not Password could be read.
	Secured bool
	// Channel is its 2.4 GHz channel (0 when NetworkManager picks one).
	Channel int
	// On is true when the connection comes up by itself (autoconnect).
	On bool
	// Active is true when it is up now.
	Active bool
}

// ReadHotspot reads the hotspot connection (DefaultConnection when empty)
// through nmcli, its passphrase included (NetworkManager shows a system
// connection's secrets only to who may modify it).
func ReadHotspot(ctx context.Context, runner Runner, connection string) (HotspotState, error) {
	connection = or(connection, DefaultConnection)
	out, err := runner.Run(ctx, "nmcli", "-s", "-t", "-f",
		"connection.autoconnect,802-11-wireless.ssid,802-11-wireless.channel,802-11-wireless-security.key-mgmt,802-11-wireless-security.psk,GENERAL.STATE",
		"connection", "show", connection)
	if err != nil {
		if strings.Contains(string(out), "no such connection") {
			return HotspotState{}, nil
		}
		return HotspotState{}, fmt.Errorf("reading the hotspot %s: %w: %s", connection, err, strings.TrimSpace(string(out)))
	}
	st := HotspotState{Exists: true}
	for _, line := range strings.Split(string(out), "\n") {
		f := splitTerse(strings.TrimRight(line, "\r"))
		if len(f) < 2 {
			continue
		}
		v := strings.Join(f[1:], ":")
		switch f[0] {
		case "connection.autoconnect":
			st.On = v == "yes"
		case "802-11-wireless.ssid":
			st.SSID = v
		case "802-11-wireless.channel":
			st.Channel, _ = strconv.Atoi(v)
		case "802-11-wireless-security.key-mgmt":
			st.Secured = v != "" && v != "none"
		case "802-11-wireless-security.psk":
			// nmcli prints a secret it may not show as "<hidden>", or
			// not at all when NetworkManager refused it.
			if v != "<hidden>" {
				st.Password = v
			}
		case "GENERAL.STATE":
			st.Active = v == "activated"
		}
	}
	return st, nil
}

var regCountryPattern = regexp.MustCompile(`(?m)^country ([A-Z0-9]{2}):`)

// ReadCountry reads the Wi-Fi country the radio uses (`iw reg get`, which
// needs no privilege): "" when iw cannot tell or the country is the world
// default ("00").
func ReadCountry(ctx context.Context, runner Runner) string {
	out, err := runner.Run(ctx, "iw", "reg", "get")
	if err != nil {
		return ""
	}
	m := regCountryPattern.FindSubmatch(out)
	if m == nil || string(m[1]) == "00" {
		return ""
	}
	return string(m[1])
}

// CountryUnit is the systemd template unit that sets the Wi-Fi country as
// root (`eventbox netsetup country %i`); polkit lets the eventbox user
// start its instances and nothing else (packaging/eventbox-network.rules).
const CountryUnit = "eventbox-wifi-country@"

// PlanHotspotNM computes the nmcli steps that give the hotspot connection
// opts' name, password and channel (a new connection, as PlanHotspot's,
// when exists is false), make it come up by itself or not (on), and bring
// it up or down now. The country, when it is to change, is set by starting
// CountryUnit's instance. The passphrase is an argument of nmcli: it is
// the one printed on the guests' table cards, not a secret from the box's
// own processes.
func PlanHotspotNM(opts HotspotOptions, on, exists, setCountry bool) (Plan, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return Plan{}, fmt.Errorf("invalid hotspot options: %w", err)
	}
	if setCountry && o.Country == "" {
		return Plan{}, errors.New("invalid hotspot options: no country to set")
	}
	auto := "no"
	if on {
		auto = "yes"
	}
	wifi := []string{"802-11-wireless.ssid", o.SSID, "802-11-wireless.mode", "ap", "802-11-wireless.band", "bg",
		"802-11-wireless.channel", strconv.Itoa(o.Channel), "connection.autoconnect", auto}
	var sec []string
	if o.Password != "" {
		sec = []string{"802-11-wireless-security.key-mgmt", "wpa-psk", "802-11-wireless-security.proto", "rsn",
			"802-11-wireless-security.pairwise", "ccmp", "802-11-wireless-security.group", "ccmp",
			"802-11-wireless-security.psk", o.Password}
	}
	p := Plan{Title: "hotspot " + strconv.Quote(o.SSID) + " through NetworkManager"}
	if setCountry {
		p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "set the Wi-Fi country to " + o.Country + " (as root, by its unit)",
			Argv: []string{"systemctl", "start", CountryUnit + o.Country + ".service"}})
	}
	if exists {
		argv := append([]string{"nmcli", "connection", "modify", o.Connection}, wifi...)
		if o.Password == "" {
			p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "make the hotspot open",
				Argv: []string{"nmcli", "connection", "modify", o.Connection, "remove", "802-11-wireless-security"}, IgnoreFailure: true})
		}
		p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "change the hotspot " + o.Connection, Argv: append(argv, sec...)})
	} else {
		argv := []string{"nmcli", "connection", "add", "type", "wifi", "con-name", o.Connection, "ifname", o.Interface,
			"connection.autoconnect-priority", "100", "ipv4.method", "shared", "ipv4.addresses", o.Address.String(),
			"ipv6.method", "disabled"}
		p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "add the hotspot " + o.Connection,
			Argv: append(append(argv, wifi...), sec...)})
	}
	p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "take the hotspot down, so the change applies",
		Argv: []string{"nmcli", "connection", "down", o.Connection}, IgnoreFailure: true})
	if on {
		p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "bring the hotspot up", Argv: []string{"nmcli", "connection", "up", o.Connection}})
	}
	return p, nil
}

// PlanJoinNM computes the nmcli steps that join the Wi-Fi network ssid as
// the home connection (see PlanJoin): the connection replaced, then
// brought up with the password read from passwdFile (nmcli's passwd-file,
// so it is never on a command line; NetworkManager keeps it in the
// connection because the eventbox user may modify system connections).
// passwdFile is "" for an open network.
func PlanJoinNM(iface, home, ssid, passwdFile string, sae bool) (Plan, error) {
	var errs []error
	if err := validateSSID(ssid); err != nil {
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
	add := []string{"nmcli", "connection", "add", "type", "wifi", "con-name", home, "ifname", iface,
		"connection.autoconnect-priority", "0", "802-11-wireless.ssid", ssid, "802-11-wireless.mode", "infrastructure"}
	up := []string{"nmcli", "--wait", "60", "connection", "up", home}
	if passwdFile != "" {
		km := "wpa-psk"
		if sae {
			km = "sae"
		}
		add = append(add, "802-11-wireless-security.key-mgmt", km, "802-11-wireless-security.psk-flags", "0")
		up = append(up, "passwd-file", passwdFile)
	}
	return Plan{Title: "join Wi-Fi " + strconv.Quote(ssid) + " through NetworkManager", Steps: []Step{
		{Kind: StepRun, Why: "forget the previous home Wi-Fi", Argv: []string{"nmcli", "connection", "delete", home}, IgnoreFailure: true},
		{Kind: StepRun, Why: "add the home Wi-Fi " + home, Argv: add},
		{Kind: StepRun, Why: "join the network (the hotspot stops if the radio cannot do both)", Argv: up},
	}}, nil
}

// JoinNM is Join for the daemon: through NetworkManager alone (PlanJoinNM),
// the password in a file of its own under tmpDir (os.TempDir when empty),
// removed once nmcli has read it.
func (w WiFi) JoinNM(ctx context.Context, ssid, password, tmpDir string) error {
	if err := validatePassword(password); err != nil {
		return fmt.Errorf("invalid Wi-Fi to join: %w", err)
	}
	sae := false
	if rows, err := w.terseLines(ctx, "-t", "-f", "SSID,SECURITY", "device", "wifi", "list", "ifname", w.iface(), "--rescan", "no"); err == nil {
		for _, f := range rows {
			if len(f) == 2 && f[0] == ssid {
				sae = strings.Contains(f[1], "WPA3") && !strings.Contains(f[1], "WPA2")
			}
		}
	}
	passwdFile := ""
	if password != "" {
		dir, err := os.MkdirTemp(tmpDir, "wifi-")
		if err != nil {
			return fmt.Errorf("joining %q: a place for the password: %w", ssid, err)
		}
		defer os.RemoveAll(dir)
		passwdFile = filepath.Join(dir, "passwd")
		if err := os.WriteFile(passwdFile, []byte("802-11-wireless-security.psk:"+password+"\n"), 0o600); err != nil {
			return fmt.Errorf("joining %q: writing the password for nmcli: %w", ssid, err)
		}
	}
	plan, err := PlanJoinNM(w.iface(), w.home(), ssid, passwdFile, sae)
	if err != nil {
		return err
	}
	w.Logger.InfoContext(ctx, "joining Wi-Fi", "ssid", ssid, "wpa3", sae)
	if err := (Applier{Runner: w.Runner, Logger: w.Logger}).Apply(ctx, plan); err != nil {
		return fmt.Errorf("joining %q: %w", ssid, err)
	}
	return nil
}

// Running reports whether NetworkManager answers (`nmcli general`).
func Running(ctx context.Context, runner Runner) bool {
	out, err := runner.Run(ctx, "nmcli", "-t", "-f", "RUNNING", "general")
	return err == nil && strings.TrimSpace(string(out)) == "running"
}
