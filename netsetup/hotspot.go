package netsetup

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Defaults of HotspotOptions.
const (
	DefaultInterface  = "wlan0"
	DefaultConnection = "eventbox-hotspot"
	DefaultChannel    = 6
)

// DefaultAddress is the box's address on the hotspot, with its network.
// NetworkManager would otherwise pick one from its 10.42.x.1/24 range, and
// the DNS drop-in must name the same address.
const DefaultAddress = "10.42.0.1/24"

// Paths of the files a hotspot plan writes, relative to the system root.
const (
	ConnectionDir = "/etc/NetworkManager/system-connections"
	// DropInPath is read by the dnsmasq that NetworkManager starts for every
	// shared connection (the directory must exist when dnsmasq starts).
	DropInPath = "/etc/NetworkManager/dnsmasq-shared.d/eventbox.conf"
)

// HotspotOptions describe the access point. Zero values take the defaults
// named on each field.
type HotspotOptions struct {
	// SSID is the network name: 1–32 bytes of UTF-8 without control
	// characters. Required.
	SSID string
	// Password is the WPA2 passphrase: 8–63 printable ASCII characters, or 64
	// hex digits. Empty makes an open network.
	Password string
	// Country is the ISO 3166-1 alpha-2 code of the Wi-Fi regulatory domain,
	// e.g. "FR" (any case). Empty leaves the country as it is; Raspberry Pi OS
	// keeps Wi-Fi blocked until one is set.
	Country string
	// Interface is the Wi-Fi device (DefaultInterface when empty).
	Interface string
	// Address is the box's address and network on the hotspot
	// (DefaultAddress when invalid/zero). IPv4 only.
	Address netip.Prefix
	// Channel is the 2.4 GHz channel, 1–13 (DefaultChannel when 0).
	Channel int
	// Connection is the NetworkManager connection id and keyfile name:
	// letters, digits, '.', '_' and '-' (DefaultConnection when empty).
	Connection string
}

// Facts are the tools present on the box that change how the plan sets
// the Wi-Fi country. DetectFacts fills them in.
type Facts struct {
	// RaspiConfig is true when raspi-config exists (Raspberry Pi OS): it sets
	// the country persistently and unblocks Wi-Fi.
	RaspiConfig bool
	// IW is true when iw exists; without raspi-config, `iw reg set` sets the
	// country until the next boot.
	IW bool
	// RFKill is true when rfkill exists, to unblock Wi-Fi.
	RFKill bool
}

// DetectFacts looks the tools up with lookPath (exec.LookPath in
// production).
func DetectFacts(lookPath func(file string) (string, error)) Facts {
	has := func(name string) bool {
		_, err := lookPath(name)
		return err == nil
	}
	return Facts{RaspiConfig: has("raspi-config"), IW: has("iw"), RFKill: has("rfkill")}
}

// StepKind says what a Step does.
type StepKind int

// The kinds of Step.
const (
	// StepRun runs Argv.
	StepRun StepKind = iota + 1
	// StepWrite writes Content to Path with Mode, creating parent directories.
	StepWrite
	// StepRemove removes Path; a missing file is not an error.
	StepRemove
	// StepNote changes nothing: Why is a warning for the operator.
	StepNote
)

// Step is one action of a Plan.
type Step struct {
	Kind StepKind
	// Why is a one-line explanation shown by Plan.Print.
	Why string
	// Argv is the command of a StepRun; Argv[0] is looked up in PATH.
	Argv []string
	// IgnoreFailure lets the plan go on when the command fails (e.g. taking
	// down a connection that is not up).
	IgnoreFailure bool
	// Path is the absolute path of a StepWrite or StepRemove.
	Path string
	// Mode is the permission of a written file.
	Mode fs.FileMode
	// Content is the text of a written file.
	Content string
}

// Plan is an ordered list of steps. A zero Plan does nothing.
type Plan struct {
	// Title names the plan in Print's header.
	Title string
	Steps []Step
}

// Patterns for validation; compiled once and never changed.
var (
	connectionIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	interfacePattern    = regexp.MustCompile(`^[A-Za-z0-9._-]{1,15}$`)
	countryPattern      = regexp.MustCompile(`^[A-Z]{2}$`)
	hexKeyPattern       = regexp.MustCompile(`^[0-9A-Fa-f]{64}$`)
)

// withDefaults returns opts with the defaults filled in and the country in
// upper case, or an error naming the first invalid field.
func (o HotspotOptions) withDefaults() (HotspotOptions, error) {
	if o.Interface == "" {
		o.Interface = DefaultInterface
	}
	if o.Connection == "" {
		o.Connection = DefaultConnection
	}
	if o.Channel == 0 {
		o.Channel = DefaultChannel
	}
	if !o.Address.IsValid() {
		o.Address = netip.MustParsePrefix(DefaultAddress)
	}
	o.Country = strings.ToUpper(o.Country)
	var errs []error
	if err := validateSSID(o.SSID); err != nil {
		errs = append(errs, err)
	}
	if err := validatePassword(o.Password); err != nil {
		errs = append(errs, err)
	}
	if o.Country != "" && !countryPattern.MatchString(o.Country) {
		errs = append(errs, fmt.Errorf("country %q: want a two-letter ISO 3166 code such as FR", o.Country))
	}
	if !interfacePattern.MatchString(o.Interface) {
		errs = append(errs, fmt.Errorf("interface %q: not a network interface name", o.Interface))
	}
	if !connectionIDPattern.MatchString(o.Connection) {
		errs = append(errs, fmt.Errorf("connection %q: use letters, digits, '.', '_' and '-'", o.Connection))
	}
	if o.Channel < 1 || o.Channel > 13 {
		errs = append(errs, fmt.Errorf("channel %d: want 1–13", o.Channel))
	}
	if err := validateAddress(o.Address); err != nil {
		errs = append(errs, err)
	}
	return o, errors.Join(errs...)
}

func validateSSID(ssid string) error {
	if len(ssid) == 0 || len(ssid) > 32 {
		return fmt.Errorf("ssid: want 1–32 bytes, got %d", len(ssid))
	}
	if !utf8.ValidString(ssid) {
		return errors.New("ssid: not valid UTF-8")
	}
	for _, r := range ssid {
		if r < 0x20 || r == 0x7f {
			return errors.New("ssid: contains a control character")
		}
	}
	return nil
}

func validatePassword(pw string) error {
	if pw == "" {
		return nil
	}
	if hexKeyPattern.MatchString(pw) {
		return nil
	}
	if len(pw) < 8 || len(pw) > 63 {
		return fmt.Errorf("password: want 8–63 characters, got %d", len(pw))
	}
	for i := 0; i < len(pw); i++ {
		if pw[i] < 0x20 || pw[i] > 0x7e {
			return errors.New("password: use printable ASCII characters only")
		}
	}
	return nil
}

func validateAddress(p netip.Prefix) error {
	a := p.Addr()
	if !a.Is4() {
		return fmt.Errorf("address %s: want an IPv4 address with its prefix, such as 10.42.0.1/24", p)
	}
	if p.Bits() < 8 || p.Bits() > 30 {
		return fmt.Errorf("address %s: want a prefix length of 8–30", p)
	}
	if a == p.Masked().Addr() {
		return fmt.Errorf("address %s: is the network address, not a host", p)
	}
	b := a.As4()
	host := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	if mask := uint32(1)<<(32-p.Bits()) - 1; host&mask == mask {
		return fmt.Errorf("address %s: is the broadcast address, not a host", p)
	}
	return nil
}

// PlanHotspot computes the steps that make opts.Interface an access point
// with the box at opts.Address, given the tools in facts. It is pure: the
// same input gives the same plan (the keyfile's uuid is derived from the
// connection id). The plan holds the password in the keyfile's content;
// Plan.Print masks it.
func PlanHotspot(opts HotspotOptions, facts Facts) (Plan, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return Plan{}, fmt.Errorf("invalid hotspot options: %w", err)
	}
	p := Plan{Title: "hotspot " + strconv.Quote(o.SSID) + " on " + o.Interface}
	p.Steps = append(p.Steps, countrySteps(o.Country, facts)...)
	if facts.RFKill {
		p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "unblock Wi-Fi", Argv: []string{"rfkill", "unblock", "wifi"}, IgnoreFailure: true})
	}
	p.Steps = append(p.Steps,
		Step{Kind: StepRun, Why: "switch the Wi-Fi radio on", Argv: []string{"nmcli", "radio", "wifi", "on"}},
		Step{Kind: StepWrite, Why: "make the hotspot's DNS answer every name with " + o.Address.Addr().String(),
			Path: DropInPath, Mode: 0o644, Content: DropIn(o.Address.Addr())},
		Step{Kind: StepWrite, Why: "add the NetworkManager connection " + o.Connection,
			Path: keyfilePath(o.Connection), Mode: 0o600, Content: keyfile(o)},
		Step{Kind: StepRun, Why: "make NetworkManager read it", Argv: []string{"nmcli", "connection", "reload"}},
		Step{Kind: StepRun, Why: "take the hotspot down if it is up, so its dnsmasq rereads the drop-in",
			Argv: []string{"nmcli", "connection", "down", o.Connection}, IgnoreFailure: true},
		Step{Kind: StepRun, Why: "bring the hotspot up", Argv: []string{"nmcli", "connection", "up", o.Connection}},
	)
	return p, nil
}

// countrySteps sets the Wi-Fi country (already validated, upper case; none
// when empty) with the tools in facts.
func countrySteps(country string, facts Facts) []Step {
	switch {
	case country == "":
		return nil
	case facts.RaspiConfig:
		return []Step{{Kind: StepRun, Why: "set the Wi-Fi country to " + country + " (saved; also unblocks Wi-Fi)",
			Argv: []string{"raspi-config", "nonint", "do_wifi_country", country}}}
	case facts.IW:
		return []Step{{Kind: StepRun, Why: "set the Wi-Fi country to " + country + " (until the next boot)",
			Argv: []string{"iw", "reg", "set", country}}}
	default:
		return []Step{{Kind: StepNote,
			Why: "cannot set the Wi-Fi country to " + country + ": neither raspi-config nor iw is installed"}}
	}
}

// PlanCountry computes the steps that set the Wi-Fi country alone (for a
// box that is given a country but no hotspot) and switch the radio on.
func PlanCountry(country string, facts Facts) (Plan, error) {
	country = strings.ToUpper(country)
	if !countryPattern.MatchString(country) {
		return Plan{}, fmt.Errorf("country %q: want a two-letter ISO 3166 code such as FR", country)
	}
	p := Plan{Title: "Wi-Fi country " + country, Steps: countrySteps(country, facts)}
	if facts.RFKill {
		p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "unblock Wi-Fi", Argv: []string{"rfkill", "unblock", "wifi"}, IgnoreFailure: true})
	}
	p.Steps = append(p.Steps, Step{Kind: StepRun, Why: "switch the Wi-Fi radio on", Argv: []string{"nmcli", "radio", "wifi", "on"}})
	return p, nil
}

// PlanOff computes the steps that remove the hotspot named connection
// (DefaultConnection when empty) and the DNS drop-in. It fails only on an
// invalid connection id.
func PlanOff(connection string) (Plan, error) {
	if connection == "" {
		connection = DefaultConnection
	}
	if !connectionIDPattern.MatchString(connection) {
		return Plan{}, fmt.Errorf("connection %q: use letters, digits, '.', '_' and '-'", connection)
	}
	return Plan{Title: "hotspot off", Steps: []Step{
		{Kind: StepRun, Why: "take the hotspot down", Argv: []string{"nmcli", "connection", "down", connection}, IgnoreFailure: true},
		{Kind: StepRemove, Why: "remove the NetworkManager connection", Path: keyfilePath(connection)},
		{Kind: StepRemove, Why: "remove the DNS drop-in (it applies to every shared connection)", Path: DropInPath},
		{Kind: StepRun, Why: "make NetworkManager forget the connection", Argv: []string{"nmcli", "connection", "reload"}},
	}}, nil
}

// DropIn returns the dnsmasq configuration that answers every DNS name with
// addr. NetworkManager's dnsmasq reads it for every shared connection.
func DropIn(addr netip.Addr) string {
	return "# Written by `eventbox netsetup hotspot`, removed by `eventbox netsetup off`.\n" +
		"# NetworkManager's dnsmasq reads this for every shared connection: every\n" +
		"# name resolves to the box, so phones open their captive-portal sheet.\n" +
		"address=/#/" + addr.String() + "\n"
}

func keyfilePath(connection string) string {
	return ConnectionDir + "/" + connection + ".nmconnection"
}

// keyfile renders the NetworkManager keyfile of a validated hotspot, as
// `nmcli connection add` would write it.
func keyfile(o HotspotOptions) string {
	var b strings.Builder
	w := func(s string) { b.WriteString(s); b.WriteByte('\n') }
	w("[connection]")
	w("id=" + o.Connection)
	w("uuid=" + nameUUID(o.Connection))
	w("type=wifi")
	// Win over a client connection on the same device: the box is a hotspot.
	w("autoconnect-priority=100")
	w("interface-name=" + o.Interface)
	w("")
	w("[wifi]")
	w("band=bg")
	w("channel=" + strconv.Itoa(o.Channel))
	w("mode=ap")
	w("ssid=" + keyfileSSID(o.SSID))
	w("")
	if o.Password != "" {
		w("[wifi-security]")
		w("group=ccmp;")
		w("key-mgmt=wpa-psk")
		w("pairwise=ccmp;")
		w("proto=rsn;")
		w("psk=" + keyfileString(o.Password))
		w("")
	}
	w("[ipv4]")
	w("address1=" + o.Address.String())
	w("method=shared")
	w("")
	w("[ipv6]")
	w("addr-gen-mode=default")
	w("method=disabled")
	w("")
	w("[proxy]")
	return b.String()
}

// keyfileSSID writes the SSID as plain text when NetworkManager reads it
// back unchanged, else as its list of byte values ("67;97;102;195;169;").
func keyfileSSID(ssid string) string {
	plain := ssid[0] != ' ' && ssid[len(ssid)-1] != ' '
	for i := 0; i < len(ssid) && plain; i++ {
		c := ssid[i]
		plain = c >= 0x20 && c <= 0x7e && c != ';' && c != '\\'
	}
	if plain {
		return ssid
	}
	var b strings.Builder
	for i := 0; i < len(ssid); i++ {
		b.WriteString(strconv.Itoa(int(ssid[i])))
		b.WriteByte(';')
	}
	return b.String()
}

// keyfileString escapes a value as GLib's key files want it.
func keyfileString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	if strings.HasPrefix(s, " ") {
		s = `\s` + s[1:]
	}
	return s
}

// nameUUID derives a stable UUID (version 5 layout, SHA-1) from a connection
// id, so that the same plan always writes the same keyfile.
func nameUUID(name string) string {
	sum := sha1.Sum([]byte("eventbox/netsetup/" + name))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}
