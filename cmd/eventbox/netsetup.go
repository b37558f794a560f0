package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"text/tabwriter"
	"time"

	"eventbox/netsetup"
)

const netsetupUsage = `Usage:
  eventbox netsetup hotspot --ssid NAME [--password PASS] [--country CC] [flags]
      make wlan0 a Wi-Fi hotspot whose DNS sends every name to the box
  eventbox netsetup status    show the hotspot's state
  eventbox netsetup off       remove the hotspot and its DNS drop-in
  eventbox netsetup wifi scan
      list the Wi-Fi networks in range, strongest first
  eventbox netsetup wifi join --ssid NAME [--password PASS]
      go online through a Wi-Fi network; the hotspot comes back if it fails
  eventbox netsetup wifi status
      the radio's capability, Ethernet, the internet, the setup hotspot's name
  eventbox netsetup country CC
      set the Wi-Fi country (root; the Network screen starts it through
      the unit eventbox-wifi-country@CC.service)
  eventbox netsetup let-go IFACE-MAC
      let one phone go from the hotspot on IFACE (root; the daemon starts it
      through the unit eventbox-let-go@IFACE-MAC.service, MAC as twelve hex
      digits, when the hotspot is nearly full and the phone is idle)
  eventbox netsetup boot-settings [--apply [--if-present] [--owner-to FILE]
                                  [--setup-hotspot-unless FILE]] [PATH]
      check (or apply once) the settings file on the card's boot partition
      (default ` + netsetup.DefaultBootSettingsPath + `); the service runs it
      before each start, and brings up the open setup hotspot on a box
      not set up yet
Each of hotspot and off takes --dry-run to print what it would change.
`

// runNetsetup is `eventbox netsetup …`: args follow the word netsetup.
func runNetsetup(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	cmd := netsetupCommand{
		now:      time.Now,
		runner:   netsetup.ExecRunner{},
		lookPath: exec.LookPath,
		euid:     os.Geteuid,
		stdout:   stdout,
		stderr:   stderr,
	}
	return cmd.run(ctx, args)
}

// netsetupCommand holds what `eventbox netsetup` touches, so that tests can
// replace it.
type netsetupCommand struct {
	runner   netsetup.Runner
	lookPath func(string) (string, error)
	euid     func() int
	// root prefixes the files written; empty for the real system.
	root           string
	stdout, stderr io.Writer
	// now is the clock (time.Now when nil).
	now func() time.Time
}

func (c netsetupCommand) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, netsetupUsage)
		return 2
	}
	switch args[0] {
	case "hotspot":
		return c.hotspot(ctx, args[1:])
	case "status":
		return c.status(ctx, args[1:])
	case "off":
		return c.off(ctx, args[1:])
	case "wifi":
		return c.wifi(ctx, args[1:])
	case "boot-settings":
		return c.bootSettings(ctx, args[1:])
	case "country":
		return c.country(ctx, args[1:])
	case "let-go":
		return c.letGo(ctx, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(c.stdout, netsetupUsage)
		return 0
	default:
		fmt.Fprintf(c.stderr, "eventbox netsetup: unknown command %q\n\n%s", args[0], netsetupUsage)
		return 2
	}
}

func (c netsetupCommand) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("eventbox netsetup "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	return fs
}

// parse parses args into fs and turns the outcome into an exit code, or -1
// to go on.
func parse(fs *flag.FlagSet, args []string) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2
	}
	return -1
}

func (c netsetupCommand) hotspot(ctx context.Context, args []string) int {
	fs := c.flags("hotspot")
	var opts netsetup.HotspotOptions
	var address string
	dryRun := fs.Bool("dry-run", false, "print the plan and change nothing")
	fs.StringVar(&opts.SSID, "ssid", "", "network name guests see (required)")
	fs.StringVar(&opts.Password, "password", "", "WPA2 passphrase, 8–63 characters; empty makes an open network")
	fs.StringVar(&opts.Country, "country", "", "two-letter Wi-Fi country code, e.g. FR (Raspberry Pi OS blocks Wi-Fi until one is set)")
	fs.StringVar(&opts.Interface, "ifname", netsetup.DefaultInterface, "Wi-Fi interface")
	fs.StringVar(&address, "address", netsetup.DefaultAddress, "the box's address and network on the hotspot")
	fs.IntVar(&opts.Channel, "channel", netsetup.DefaultChannel, "2.4 GHz channel, 1–13")
	fs.StringVar(&opts.Connection, "connection", netsetup.DefaultConnection, "NetworkManager connection name")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	prefix, err := netip.ParsePrefix(address)
	if err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup hotspot: --address %q: want an address with its prefix, such as 10.42.0.1/24\n", address)
		return 2
	}
	opts.Address = prefix
	plan, err := netsetup.PlanHotspot(opts, netsetup.DetectFacts(c.lookPath))
	if err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup hotspot: %v\n", err)
		return 2
	}
	if code := c.apply(ctx, plan, *dryRun); code != 0 {
		return code
	}
	if !*dryRun {
		fmt.Fprintf(c.stdout, "hotspot %q is up on %s: guests join it and open http://%s/\n",
			opts.SSID, opts.Interface, prefix.Addr())
	}
	if opts.Password == "" {
		fmt.Fprintln(c.stdout, "note: the network is open (no password): anyone nearby can join it")
	}
	if opts.Country == "" {
		fmt.Fprintln(c.stdout, "note: no --country given; if Wi-Fi stays blocked, run again with --country XX")
	}
	return 0
}

func (c netsetupCommand) off(ctx context.Context, args []string) int {
	fs := c.flags("off")
	dryRun := fs.Bool("dry-run", false, "print the plan and change nothing")
	connection := fs.String("connection", netsetup.DefaultConnection, "NetworkManager connection name")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	plan, err := netsetup.PlanOff(*connection)
	if err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup off: %v\n", err)
		return 2
	}
	if code := c.apply(ctx, plan, *dryRun); code != 0 {
		return code
	}
	if !*dryRun {
		fmt.Fprintln(c.stdout, "hotspot removed")
	}
	return 0
}

// apply prints plan on a dry run, else checks for root and nmcli and
// carries it out, logging each step to stderr.
func (c netsetupCommand) apply(ctx context.Context, plan netsetup.Plan, dryRun bool) int {
	if dryRun {
		if err := plan.Print(c.stdout); err != nil {
			fmt.Fprintf(c.stderr, "eventbox netsetup: %v\n", err)
			return 1
		}
		return 0
	}
	if c.euid() != 0 {
		fmt.Fprintln(c.stderr, "eventbox netsetup: changing the network needs root: run it with sudo (or add --dry-run)")
		return 1
	}
	if _, err := c.lookPath("nmcli"); err != nil {
		fmt.Fprintln(c.stderr, "eventbox netsetup: nmcli not found: the hotspot needs NetworkManager (apt install network-manager)")
		return 1
	}
	logger := slog.New(slog.NewTextHandler(c.stderr, nil)).With("component", "netsetup")
	a := netsetup.Applier{Runner: c.runner, Root: c.root, Logger: logger}
	if err := a.Apply(ctx, plan); err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup: %v\n", err)
		return 1
	}
	return 0
}

func (c netsetupCommand) status(ctx context.Context, args []string) int {
	fs := c.flags("status")
	connection := fs.String("connection", netsetup.DefaultConnection, "NetworkManager connection name")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	st := netsetup.ReadStatus(ctx, c.runner, c.root, *connection)
	if err := st.Print(c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup status: %v\n", err)
		return 1
	}
	return 0
}

// country is `eventbox netsetup country CC`: the Wi-Fi country alone
// (netsetup.PlanCountry), as root.
func (c netsetupCommand) country(ctx context.Context, args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(c.stderr, "eventbox netsetup country: want one two-letter country code, such as FR\n")
		return 2
	}
	plan, err := netsetup.PlanCountry(args[0], netsetup.DetectFacts(c.lookPath))
	if err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup country: %v\n", err)
		return 2
	}
	if !c.needRoot("country") {
		return 1
	}
	if err := (netsetup.Applier{Runner: c.runner, Root: c.root, Logger: c.logger()}).Apply(ctx, plan); err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup country: %v\n", err)
		return 1
	}
	return 0
}

// letGo is `eventbox netsetup let-go IFACE-MAC`, which the unit
// eventbox-let-go@IFACE-MAC.service runs as root: it deauthenticates that
// one phone, and refuses anything but an interface and an address before
// it runs a command.
func (c netsetupCommand) letGo(ctx context.Context, args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(c.stderr, "eventbox netsetup let-go: want one interface and address, such as wlan0-02000000001a\n")
		return 2
	}
	iface, mac, err := netsetup.ParseLetGoInstance(args[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup let-go: %v\n", err)
		return 2
	}
	if c.euid() != 0 {
		fmt.Fprintln(c.stderr, "eventbox netsetup let-go: letting a phone go needs root: the daemon starts it through its unit")
		return 1
	}
	ctrlDir := filepath.Join(c.root, netsetup.DefaultCtrlDir)
	if _, err := os.Stat(filepath.Join(ctrlDir, iface)); err != nil {
		if _, err := c.lookPath("iw"); err != nil {
			fmt.Fprintf(c.stderr, "eventbox netsetup let-go: no access point's control socket for %s, and iw not found (apt install iw)\n", iface)
			return 1
		}
	}
	if err := netsetup.Deauthenticate(ctx, c.runner, ctrlDir, iface, mac); err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup let-go: %v\n", err)
		return 1
	}
	c.logger().Info("let a phone go from the hotspot", "interface", iface)
	return 0
}

// logger writes netsetup's log lines to stderr.
func (c netsetupCommand) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(c.stderr, nil)).With("component", "netsetup")
}

// needRoot reports whether a change can be made (root, nmcli present),
// saying why not on stderr.
func (c netsetupCommand) needRoot(name string) bool {
	if c.euid() != 0 {
		fmt.Fprintf(c.stderr, "eventbox netsetup %s: changing the network needs root: run it with sudo\n", name)
		return false
	}
	if _, err := c.lookPath("nmcli"); err != nil {
		fmt.Fprintln(c.stderr, "eventbox netsetup: nmcli not found: the box's Wi-Fi needs NetworkManager (apt install network-manager)")
		return false
	}
	return true
}

func (c netsetupCommand) wifi(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(c.stderr, "eventbox netsetup wifi: want scan, join or status\n\n%s", netsetupUsage)
		return 2
	}
	fs := c.flags("wifi " + args[0])
	ifname := fs.String("ifname", netsetup.DefaultInterface, "Wi-Fi interface")
	w := netsetup.WiFi{Runner: c.runner, Root: c.root, Logger: c.logger()}
	switch args[0] {
	case "scan":
		if code := parse(fs, args[1:]); code >= 0 {
			return code
		}
		w.Interface = *ifname
		nets, err := w.Scan(ctx)
		if err != nil {
			fmt.Fprintf(c.stderr, "eventbox netsetup wifi scan: %v\n", err)
			return 1
		}
		if len(nets) == 0 {
			fmt.Fprintln(c.stdout, "no Wi-Fi network in range")
			return 0
		}
		tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\tSIGNAL\tSECURITY\tNAME")
		for _, n := range nets {
			mark, sec := "", n.Security
			if n.InUse {
				mark = "*"
			}
			if n.Open() {
				sec = "open"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", mark, n.Signal, sec, n.SSID)
		}
		if err := tw.Flush(); err != nil {
			fmt.Fprintf(c.stderr, "eventbox netsetup wifi scan: %v\n", err)
			return 1
		}
		return 0
	case "join":
		ssid := fs.String("ssid", "", "the network's name (required)")
		password := fs.String("password", "", "its password; empty for an open network")
		fallback := fs.Bool("fallback", true, "bring the hotspot back if the network cannot be joined")
		if code := parse(fs, args[1:]); code >= 0 {
			return code
		}
		if *ssid == "" {
			fmt.Fprintln(c.stderr, "eventbox netsetup wifi join: --ssid is required")
			return 2
		}
		if !c.needRoot("wifi join") {
			return 1
		}
		w.Interface = *ifname
		if err := w.Join(ctx, *ssid, *password); err != nil {
			fmt.Fprintf(c.stderr, "eventbox netsetup wifi join: %v\n", err)
			if *fallback {
				if err := w.HotspotUp(ctx); err != nil {
					fmt.Fprintf(c.stderr, "eventbox netsetup wifi join: bringing the hotspot back: %v\n", err)
				} else {
					fmt.Fprintln(c.stderr, "the hotspot is back up")
				}
			}
			return 1
		}
		fmt.Fprintf(c.stdout, "joined %q\n", *ssid)
		return 0
	case "status":
		if code := parse(fs, args[1:]); code >= 0 {
			return code
		}
		w.Interface = *ifname
		return c.wifiStatus(ctx, w)
	default:
		fmt.Fprintf(c.stderr, "eventbox netsetup wifi: unknown command %q\n\n%s", args[0], netsetupUsage)
		return 2
	}
}

// wifiStatus prints what the Network screen will show, as lines.
func (c netsetupCommand) wifiStatus(ctx context.Context, w netsetup.WiFi) int {
	bw := bufio.NewWriter(c.stdout)
	if cp, err := w.Capability(ctx); err != nil {
		fmt.Fprintf(bw, "radio: unknown (%v)\n", err)
	} else {
		switch {
		case !cp.Known:
			fmt.Fprintln(bw, "radio: unknown; the hotspot may stop while the box is online")
		case cp.APAndClient && cp.SameChannel:
			fmt.Fprintln(bw, "radio: keeps the hotspot while online, on the home network's channel")
		case cp.APAndClient:
			fmt.Fprintln(bw, "radio: keeps the hotspot while online")
		default:
			fmt.Fprintln(bw, "radio: gives the hotspot up while online")
		}
	}
	if home, err := w.HomeConnected(ctx); err != nil {
		fmt.Fprintf(bw, "home wifi: unknown (%v)\n", err)
	} else {
		fmt.Fprintf(bw, "home wifi: %s\n", map[bool]string{true: "connected", false: "not connected"}[home])
	}
	if eth, err := w.Ethernet(ctx); err != nil {
		fmt.Fprintf(bw, "ethernet: unknown (%v)\n", err)
	} else if eth.Device == "" {
		fmt.Fprintln(bw, "ethernet: none")
	} else {
		fmt.Fprintf(bw, "ethernet: %s %s\n", eth.Device, eth.State)
	}
	if conn, err := w.Connectivity(ctx); err != nil {
		fmt.Fprintf(bw, "internet: unknown (%v)\n", err)
	} else {
		fmt.Fprintf(bw, "internet: %s\n", conn)
	}
	if name, err := netsetup.MachineSetupSSID(c.root, w.Interface); err == nil {
		fmt.Fprintf(bw, "setup hotspot name: %s\n", name)
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup wifi status: %v\n", err)
		return 1
	}
	return 0
}

// bootSettings checks the boot settings file, or applies it with --apply.
// The command line does not create accounts: with --owner-to it hands the
// first owner to the daemon in a file, else it leaves the owner's lines in
// the settings file.
func (c netsetupCommand) bootSettings(ctx context.Context, args []string) int {
	fs := c.flags("boot-settings")
	apply := fs.Bool("apply", false, "apply the file once (as root), then remove the hotspot's password from it")
	ownerTo := fs.String("owner-to", "", "with --apply: hand the first owner to the daemon in this file (DATA_DIR/"+netsetup.OwnerHandoffFile+"), then remove the owner's password too")
	ifPresent := fs.Bool("if-present", false, "with --apply: no file is not an error (exit 0, nothing printed)")
	setupUnless := fs.String("setup-hotspot-unless", "", "with --apply: when no hotspot of the host's is configured and this file does not exist, bring up the open setup hotspot (eventbox-setup-XXXX)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(c.stderr, "eventbox netsetup boot-settings: unexpected argument %q\n", fs.Arg(1))
		return 2
	}
	path := fs.Arg(0)
	if path == "" {
		path = netsetup.DefaultBootSettingsPath
		if _, err := os.Stat(c.root + path); errors.Is(err, os.ErrNotExist) {
			if _, err := os.Stat(c.root + netsetup.LegacyBootSettingsPath); err == nil {
				path = netsetup.LegacyBootSettingsPath
			}
		}
		path = c.root + path
	}
	if !*apply {
		s, problems, err := netsetup.ReadBootSettings(path, nil)
		if err != nil {
			fmt.Fprintf(c.stderr, "eventbox netsetup boot-settings: %v\n", err)
			return 1
		}
		printBootSettings(c.stdout, path, s)
		for _, p := range problems {
			fmt.Fprintf(c.stderr, "refused: %s\n", p)
		}
		if len(problems) > 0 {
			fmt.Fprintln(c.stderr, "nothing would be applied: fix these lines")
			return 1
		}
		return 0
	}
	if !c.needRoot("boot-settings --apply") {
		return 1
	}
	ba := netsetup.BootApplier{
		Applier:   netsetup.Applier{Runner: c.runner, Root: c.root, Logger: c.logger()},
		Facts:     netsetup.DetectFacts(c.lookPath),
		KeepOwner: *ownerTo == "",
		Now:       c.now,
	}
	if *ownerTo != "" {
		ba.TakeOwner = func(_ context.Context, o netsetup.Owner) error { return netsetup.WriteOwnerHandoff(*ownerTo, o) }
	}
	res, err := netsetup.ApplyBootSettings(ctx, ba, path)
	// Whatever became of the file, a box not set up yet comes up on its
	// setup hotspot (docs/decisions/trust.md, "The first-run setup page").
	code := c.bootOutcome(path, res, err, *ifPresent)
	if *setupUnless != "" {
		country := res.Settings.Country
		if len(res.Problems) > 0 {
			country = "" // maybe the value refused
		}
		if hc := c.setupHotspot(ctx, ba.Applier, ba.Facts, *setupUnless, country); hc != 0 {
			code = hc
		}
	}
	if code >= 0 {
		return code
	}
	if !res.Hotspot && !res.Country && !res.TimeZone {
		fmt.Fprintf(c.stdout, "%s was applied already (on %s): nothing to do\n", path, res.Settings.Applied.Format(time.RFC3339))
	}
	if res.Hotspot {
		fmt.Fprintf(c.stdout, "hotspot %q is up\n", res.Settings.HotspotName)
	}
	if res.Country {
		fmt.Fprintf(c.stdout, "Wi-Fi country: %s\n", res.Settings.Country)
	}
	if res.TimeZone {
		fmt.Fprintf(c.stdout, "time zone: %s\n", res.Settings.TimeZone)
	}
	switch {
	case res.Owner != nil:
		fmt.Fprintf(c.stdout, "owner %q: handed to eventbox in %s\n", res.Owner.Name, *ownerTo)
	case res.Settings.OwnerPassword != "":
		fmt.Fprintf(c.stdout, "owner %q: left in the file (give --owner-to to hand it to eventbox)\n", res.Settings.OwnerName)
	}
	return 0
}

// bootOutcome says what became of the file when it was not applied now
// (an exit code), or -1 when it was and the rest is to print.
func (c netsetupCommand) bootOutcome(path string, res netsetup.BootResult, err error, ifPresent bool) int {
	switch {
	case err != nil:
		fmt.Fprintf(c.stderr, "eventbox netsetup boot-settings: %v\n", err)
		return 1
	case !res.Found && ifPresent:
		return 0
	case !res.Found:
		fmt.Fprintf(c.stderr, "eventbox netsetup boot-settings: no file at %s\n", path)
		return 1
	case len(res.Problems) > 0:
		for _, p := range res.Problems {
			fmt.Fprintf(c.stderr, "refused: %s\n", p)
		}
		fmt.Fprintln(c.stderr, "nothing applied: fix these lines (they are noted at the top of the file too)")
		return 1
	}
	return -1
}

// setupHotspot brings up the open setup hotspot, named by the machine's
// id, when no hotspot of the host's is configured and the daemon has not
// written done (DATA_DIR/setup-done: the box was set up). country is the
// settings file's, if it gave one; without, Wi-Fi is only unblocked, and
// the default channel is allowed everywhere. It answers a non-zero exit
// code when it failed.
func (c netsetupCommand) setupHotspot(ctx context.Context, a netsetup.Applier, facts netsetup.Facts, done, country string) int {
	// Lstat: the daemon's user writes DATA_DIR, and root follows no link
	// of its there; anything at that name means set up.
	if _, err := os.Lstat(done); err == nil {
		return 0
	}
	if ssid, _, ok := netsetup.ReadHotspotWiFi(c.root, ""); ok && !netsetup.IsSetupSSID(ssid) {
		return 0
	}
	name, err := netsetup.MachineSetupSSID(c.root, "")
	if err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup boot-settings: %v\n", err)
		return 1
	}
	plan, err := netsetup.PlanHotspot(netsetup.HotspotOptions{SSID: name, Country: country}, facts)
	if err == nil {
		err = a.Apply(ctx, plan)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "eventbox netsetup boot-settings: bringing up the setup hotspot: %v\n", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "setup hotspot %q is up: join it and follow the page it opens\n", name)
	return 0
}

// printBootSettings shows the settings read, passwords masked.
func printBootSettings(w io.Writer, path string, s netsetup.BootSettings) {
	mask := func(v string) string {
		if v == "" {
			return "(not given)"
		}
		return "********"
	}
	or := func(v string) string {
		if v == "" {
			return "(not given)"
		}
		return v
	}
	fmt.Fprintf(w, "file: %s\n", path)
	fmt.Fprintf(w, "hotspot name: %s\n", or(s.HotspotName))
	if s.HotspotOpen {
		fmt.Fprintln(w, "hotspot password: none (open network)")
	} else {
		fmt.Fprintf(w, "hotspot password: %s\n", mask(s.HotspotPassword))
	}
	fmt.Fprintf(w, "country: %s\n", or(s.Country))
	fmt.Fprintf(w, "time zone: %s\n", or(s.TimeZone))
	fmt.Fprintf(w, "owner: %s, password %s\n", or(s.OwnerName), mask(s.OwnerPassword))
	if !s.Applied.IsZero() {
		fmt.Fprintf(w, "applied: %s\n", s.Applied.Format(time.RFC3339))
	}
}
