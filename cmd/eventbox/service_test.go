package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"eventbox/packaging"
)

// fakeSystemctl puts a systemctl on PATH that logs its arguments and says
// the unit is active, and points HOME at a temporary directory, so that
// kardianos/service installs a user unit there. It returns HOME and the log.
func fakeSystemctl(t *testing.T) (home, logPath string) {
	t.Helper()
	bin := t.TempDir()
	home = t.TempDir()
	logPath = filepath.Join(bin, "calls.log")
	script := "#!/bin/sh\necho \"$*\" >> " + logPath + "\ncase \"$1\" in is-active) echo active;; esac\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "systemctl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("HOME", home)
	return home, logPath
}

type serviceFixture struct {
	cmd            serviceCommand
	calls          *[]string
	stdout, stderr *bytes.Buffer
}

func newServiceFixture(userExists bool, groups ...string) serviceFixture {
	var calls []string
	var stdout, stderr bytes.Buffer
	return serviceFixture{
		cmd: serviceCommand{
			newService: systemdService(true),
			runner: func(_ context.Context, name string, args ...string) error {
				calls = append(calls, strings.Join(append([]string{name}, args...), " "))
				return nil
			},
			euid:   func() int { return 0 },
			exists: func(string) bool { return false },
			lookupUser: func(string) error {
				if userExists {
					return nil
				}
				return errors.New("unknown user eventbox")
			},
			hasGroup: func(name string) bool {
				for _, g := range groups {
					if g == name {
						return true
					}
				}
				return false
			},
			execPath: "/usr/local/bin/eventbox",
			stdout:   &stdout,
			stderr:   &stderr,
		},
		calls:  &calls,
		stdout: &stdout,
		stderr: &stderr,
	}
}

func TestServiceInstallWritesThePackagedUnitThroughKardianos(t *testing.T) {
	home, logPath := fakeSystemctl(t)
	f := newServiceFixture(false, "gpio")
	if code := f.cmd.run(context.Background(), []string{"install"}); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, f.stderr)
	}
	unitPath := filepath.Join(home, ".config/systemd/user/eventbox.service")
	got, err := os.ReadFile(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := packaging.Unit("/usr/local/bin/eventbox"); string(got) != want {
		t.Errorf("kardianos wrote a different unit:\n--- got\n%s\n--- want\n%s", got, want)
	}
	wantCalls := []string{
		"useradd --system --user-group --home-dir /var/lib/eventbox --no-create-home --shell /usr/sbin/nologin eventbox",
		"usermod --append --groups gpio eventbox",
	}
	if !reflect.DeepEqual(*f.calls, wantCalls) {
		t.Errorf("commands = %q, want %q", *f.calls, wantCalls)
	}

	f.stdout.Reset()
	if code := f.cmd.run(context.Background(), []string{"status"}); code != 0 || strings.TrimSpace(f.stdout.String()) != "running" {
		t.Errorf("status: exit %d, output %q; want 0 and running", code, f.stdout)
	}
	if code := f.cmd.run(context.Background(), []string{"uninstall"}); code != 0 {
		t.Fatalf("uninstall exit %d, stderr: %s", code, f.stderr)
	}
	if _, err := os.Stat(unitPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unit still there after uninstall: %v", err)
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"enable --user eventbox.service", "daemon-reload --user", "is-active eventbox.service --user", "disable --user eventbox.service"} {
		if !strings.Contains(string(log), want+"\n") {
			t.Errorf("systemctl was not called with %q; calls:\n%s", want, log)
		}
	}
}

func TestServiceInstallKeepsAnExistingUserOutOfMissingGroups(t *testing.T) {
	fakeSystemctl(t)
	f := newServiceFixture(true)
	if code := f.cmd.run(context.Background(), []string{"install"}); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, f.stderr)
	}
	if len(*f.calls) != 0 {
		t.Errorf("commands = %q, want none for an existing user and no gpio group", *f.calls)
	}
}

func TestServiceRefusesOrRejects(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		euid     int
		packaged bool
		wantCode int
		wantErr  string
	}{
		{"install without root", []string{"install"}, 1000, false, 1, "needs root"},
		{"start without root", []string{"start"}, 1000, false, 1, "needs root"},
		{"install over the package's unit", []string{"install"}, 0, true, 1, "package already installed"},
		{"uninstall of the package's unit", []string{"uninstall"}, 0, true, 1, "apt remove eventbox"},
		{"an unknown action", []string{"restart-all"}, 0, false, 2, "unknown command"},
		{"no action", nil, 0, false, 2, "Usage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fakeSystemctl(t)
			f := newServiceFixture(false)
			f.cmd.euid = func() int { return tc.euid }
			f.cmd.exists = func(string) bool { return tc.packaged }
			if code := f.cmd.run(context.Background(), tc.args); code != tc.wantCode {
				t.Errorf("exit %d, want %d", code, tc.wantCode)
			}
			if !strings.Contains(f.stderr.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want it to mention %q", f.stderr, tc.wantErr)
			}
			if len(*f.calls) != 0 {
				t.Errorf("ran %q", *f.calls)
			}
		})
	}
}
