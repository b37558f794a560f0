package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"strings"

	"github.com/kardianos/service"

	"eventbox/packaging"
)

const serviceUsage = `Usage:
  eventbox service install     register eventbox with systemd (starts at boot, restarts on a crash)
  eventbox service uninstall   remove it (the data in /var/lib/eventbox stays)
  eventbox service start|stop  start or stop it now
  eventbox service status      say whether it runs
The .deb package does the install itself; these commands are for a binary
copied onto a box by hand. Settings go in /etc/default/eventbox.
`

// packagedUnits are where the .deb puts the unit (the same file on a
// merged-/usr system).
var packagedUnits = [...]string{"/lib/systemd/system/eventbox.service", "/usr/lib/systemd/system/eventbox.service"}

// serviceUser is the account the unit runs as; the .deb's postinst and
// `service install` create it.
const serviceUser = "eventbox"

// runService is `eventbox service …`: args follow the word service.
func runService(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	cmd := serviceCommand{
		newService: systemdService(false),
		runner:     execRun,
		euid:       os.Geteuid,
		exists:     fileExists,
		lookupUser: func(name string) error { _, err := user.Lookup(name); return err },
		hasGroup:   func(name string) bool { _, err := user.LookupGroup(name); return err == nil },
		stdout:     stdout,
		stderr:     stderr,
	}
	return cmd.run(ctx, args)
}

// serviceCommand holds what `eventbox service` touches, so that tests can
// replace it.
type serviceCommand struct {
	// newService returns the systemd service for the executable at
	// execPath ("" for this program).
	newService func(execPath string) (service.Service, error)
	runner     func(ctx context.Context, name string, args ...string) error
	euid       func() int
	exists     func(path string) bool
	lookupUser func(name string) error
	hasGroup   func(name string) bool
	// execPath overrides the executable written into the unit (tests).
	execPath       string
	stdout, stderr io.Writer
}

func (c serviceCommand) run(ctx context.Context, args []string) int {
	if len(args) != 1 {
		fmt.Fprint(c.stderr, serviceUsage)
		return 2
	}
	action := args[0]
	switch action {
	case "help", "-h", "--help":
		fmt.Fprint(c.stdout, serviceUsage)
		return 0
	case "install", "uninstall", "start", "stop", "status":
	default:
		fmt.Fprintf(c.stderr, "eventbox service: unknown command %q\n\n%s", action, serviceUsage)
		return 2
	}
	svc, err := c.newService(c.execPath)
	if err != nil {
		fmt.Fprintf(c.stderr, "eventbox service: %v\n", err)
		return 1
	}
	if action == "status" {
		return c.status(svc)
	}
	if c.euid() != 0 {
		fmt.Fprintf(c.stderr, "eventbox service %s: needs root: run it with sudo\n", action)
		return 1
	}
	switch action {
	case "install":
		err = c.install(ctx, svc)
	case "uninstall":
		err = c.uninstall(svc)
	case "start":
		err = svc.Start()
	case "stop":
		err = svc.Stop()
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "eventbox service %s: %v\n", action, err)
		return 1
	}
	return 0
}

func (c serviceCommand) packaged() (string, bool) {
	for _, p := range packagedUnits {
		if c.exists(p) {
			return p, true
		}
	}
	return "", false
}

// install creates the eventbox user when missing (in the gpio group when
// it exists, for the booth pins), then writes and enables the unit.
func (c serviceCommand) install(ctx context.Context, svc service.Service) error {
	if p, ok := c.packaged(); ok {
		return fmt.Errorf("the eventbox package already installed %s: use `eventbox service start`", p)
	}
	if err := c.lookupUser(serviceUser); err != nil {
		if err := c.runner(ctx, "useradd", "--system", "--user-group", "--home-dir", "/var/lib/eventbox",
			"--no-create-home", "--shell", "/usr/sbin/nologin", serviceUser); err != nil {
			return fmt.Errorf("creating the %s user: %w", serviceUser, err)
		}
	}
	if c.hasGroup("gpio") {
		if err := c.runner(ctx, "usermod", "--append", "--groups", "gpio", serviceUser); err != nil {
			return fmt.Errorf("adding %s to the gpio group: %w", serviceUser, err)
		}
	}
	if err := svc.Install(); err != nil {
		return fmt.Errorf("installing the unit: %w", err)
	}
	fmt.Fprintln(c.stdout, "installed and enabled: it starts at boot; start it now with `eventbox service start`")
	fmt.Fprintln(c.stdout, "the first admin password will be in /var/lib/eventbox/initial-password")
	return nil
}

func (c serviceCommand) uninstall(svc service.Service) error {
	if p, ok := c.packaged(); ok {
		return fmt.Errorf("%s belongs to the eventbox package: remove it with `apt remove eventbox`", p)
	}
	// Stopping a service that is not running fails; uninstalling still works.
	_ = svc.Stop()
	if err := svc.Uninstall(); err != nil {
		return fmt.Errorf("removing the unit: %w", err)
	}
	fmt.Fprintln(c.stdout, "uninstalled; the data in /var/lib/eventbox was kept")
	return nil
}

func (c serviceCommand) status(svc service.Service) int {
	st, err := svc.Status()
	switch {
	case errors.Is(err, service.ErrNotInstalled):
		fmt.Fprintln(c.stdout, "not installed")
		return 3
	case err != nil:
		fmt.Fprintf(c.stdout, "unknown: %v\n", err)
		return 4
	case st == service.StatusRunning:
		fmt.Fprintln(c.stdout, "running")
		return 0
	case st == service.StatusStopped:
		fmt.Fprintln(c.stdout, "stopped")
		return 3
	default:
		fmt.Fprintln(c.stdout, "unknown")
		return 4
	}
}

// systemdService returns a constructor of the eventbox systemd service:
// the unit text is packaging.UnitTemplate, given to kardianos/service as
// its custom systemd script. It fails when systemd is not the running
// service manager. A user service (tests) skips that check.
func systemdService(userService bool) func(execPath string) (service.Service, error) {
	return func(execPath string) (service.Service, error) {
		if !userService {
			if s := service.ChosenSystem(); s == nil || s.String() != "linux-systemd" {
				return nil, errors.New("systemd is not running here: the service needs systemd (Raspberry Pi OS and Debian have it)")
			}
		}
		var systemd service.System
		for _, s := range service.AvailableSystems() {
			if s.String() == "linux-systemd" {
				systemd = s
			}
		}
		if systemd == nil {
			return nil, errors.New("this build has no systemd support")
		}
		cfg := &service.Config{
			Name:        packaging.UnitName,
			DisplayName: "eventbox",
			Description: "eventbox photo-sharing appliance",
			Executable:  execPath,
			Option: service.KeyValue{
				"SystemdScript": packaging.UnitTemplate,
				"UserService":   userService,
			},
		}
		svc, err := systemd.New(program{}, cfg)
		if err != nil {
			return nil, fmt.Errorf("setting up the service: %w", err)
		}
		return svc, nil
	}
}

// program satisfies kardianos/service's Interface; the unit runs
// `eventbox serve` itself, so there is nothing to start or stop here.
type program struct{}

var _ service.Interface = program{}

func (program) Start(service.Service) error { return nil }
func (program) Stop(service.Service) error  { return nil }

func execRun(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return fmt.Errorf("%s: %w: %s", name, err, msg)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
