// Command eventbox is the photo-sharing appliance: the daemon (serve) and
// the tools a host runs on the box.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"eventbox/imaging/isolate"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `eventbox: a photo-sharing box for parties

Usage:
  eventbox serve [flags]              run the daemon (eventbox serve -h lists the flags)
  eventbox reset-password [username]  set a new password for a console account
  eventbox backup [--out FILE]        write a backup ZIP (daemon stopped)
  eventbox restore FILE               replace the data with a backup ZIP (daemon stopped)
  eventbox netsetup hotspot|status|off|wifi|boot-settings  the Wi-Fi: hotspot, going online, the settings file
  eventbox service install|uninstall|start|stop|status
  eventbox release-sign ...           sign a release manifest (eventbox release-sign -h)
  eventbox version                    print the version
`

// run is the whole program, given its arguments and surroundings; it
// returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], getenv, stdout, stderr)
	case "reset-password":
		return runResetPassword(ctx, args[1:], getenv, stdout, stderr)
	case "backup":
		return runBackup(ctx, args[1:], getenv, stdout, stderr)
	case "restore":
		return runRestore(ctx, args[1:], getenv, stdout, stderr)
	case "netsetup":
		return runNetsetup(ctx, args[1:], stdout, stderr, getenv)
	case "service":
		return runService(ctx, args[1:], stdout, stderr, getenv)
	case "release-sign":
		return runReleaseSign(args[1:], stdout, stderr)
	case isolate.Command: // hidden: the daemon's decoding process
		return runDecode(ctx, args[1:], os.Stdin, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "eventbox", version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "eventbox: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
