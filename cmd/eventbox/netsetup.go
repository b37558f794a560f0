package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"

	"eventbox/netsetup"
)

const netsetupUsage = `Usage:
  eventbox netsetup hotspot --ssid NAME [--password PASS] [--country CC] [flags]
      make wlan0 a Wi-Fi hotspot whose DNS sends every name to the box
  eventbox netsetup status    show the hotspot's state
  eventbox netsetup off       remove the hotspot and its DNS drop-in
Each of hotspot and off takes --dry-run to print what it would change.
`

// runNetsetup is `eventbox netsetup …`: args follow the word netsetup.
func runNetsetup(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	cmd := netsetupCommand{
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
