package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"eventbox/netsetup"
)

// recordingRunner records the commands of netsetup and answers them.
type recordingRunner struct{ calls []string }

func (r *recordingRunner) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	cmd := strings.Join(append([]string{name}, args...), " ")
	r.calls = append(r.calls, cmd)
	if cmd == "nmcli radio wifi" {
		return []byte("enabled\n"), nil
	}
	return nil, nil
}

var _ netsetup.Runner = (*recordingRunner)(nil)

func newNetsetupCommand(t *testing.T, euid int, tools ...string) (netsetupCommand, *recordingRunner, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	runner := &recordingRunner{}
	var stdout, stderr bytes.Buffer
	return netsetupCommand{
		runner: runner,
		lookPath: func(name string) (string, error) {
			for _, tool := range tools {
				if tool == name {
					return "/usr/bin/" + name, nil
				}
			}
			return "", exec.ErrNotFound
		},
		euid:   func() int { return euid },
		root:   t.TempDir(),
		stdout: &stdout,
		stderr: &stderr,
	}, runner, &stdout, &stderr
}

func TestNetsetupHotspotDryRunPrintsThePlanAndChangesNothing(t *testing.T) {
	cmd, runner, stdout, stderr := newNetsetupCommand(t, 1000, "nmcli", "raspi-config")
	code := cmd.run(context.Background(), []string{"hotspot", "--ssid", "Our Wedding", "--password", "correct horse", "--country", "fr", "--dry-run"})
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	for _, want := range []string{"raspi-config nonint do_wifi_country FR", "ssid=Our Wedding", "address=/#/10.42.0.1", "nmcli connection up eventbox-hotspot"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("dry run output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout.String(), "correct horse") {
		t.Error("dry run output shows the password")
	}
	if len(runner.calls) != 0 {
		t.Errorf("dry run ran %q", runner.calls)
	}
	if entries, _ := os.ReadDir(cmd.root); len(entries) != 0 {
		t.Errorf("dry run wrote files: %v", entries)
	}
}

func TestNetsetupHotspotAppliesThePlanAsRoot(t *testing.T) {
	cmd, runner, stdout, stderr := newNetsetupCommand(t, 0, "nmcli")
	code := cmd.run(context.Background(), []string{"hotspot", "--ssid", "Party", "--address", "192.168.50.1/24"})
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	if got := runner.calls[len(runner.calls)-1]; got != "nmcli connection up eventbox-hotspot" {
		t.Errorf("last command = %q, want the hotspot brought up", got)
	}
	dropIn, err := os.ReadFile(filepath.Join(cmd.root, netsetup.DropInPath))
	if err != nil || !strings.Contains(string(dropIn), "address=/#/192.168.50.1\n") {
		t.Errorf("drop-in = %q (%v), want every name answered with 192.168.50.1", dropIn, err)
	}
	for _, want := range []string{"http://192.168.50.1/", "open (no password)", "no --country"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	// status then reads what was written.
	stdout.Reset()
	if code := cmd.run(context.Background(), []string{"status"}); code != 0 {
		t.Fatalf("status exit %d, stderr: %s", code, stderr)
	}
	for _, want := range []string{"connection: eventbox-hotspot (installed)", "ssid: Party", "captive dns: every name answers 192.168.50.1", "wifi radio: enabled"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, stdout)
		}
	}

	// off removes it.
	if code := cmd.run(context.Background(), []string{"off"}); code != 0 {
		t.Fatalf("off exit %d, stderr: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(cmd.root, netsetup.DropInPath)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("drop-in still there after off: %v", err)
	}
}

func TestNetsetupRefusesOrRejects(t *testing.T) {
	tests := []struct {
		name     string
		euid     int
		tools    []string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"a change without root", 1000, []string{"nmcli"}, []string{"hotspot", "--ssid", "x"}, 1, "needs root"},
		{"off without root", 1000, []string{"nmcli"}, []string{"off"}, 1, "needs root"},
		{"a box without NetworkManager", 0, nil, []string{"hotspot", "--ssid", "x"}, 1, "nmcli not found"},
		{"no ssid", 0, []string{"nmcli"}, []string{"hotspot"}, 2, "ssid"},
		{"a short password", 0, []string{"nmcli"}, []string{"hotspot", "--ssid", "x", "--password", "short"}, 2, "password"},
		{"an address without prefix", 0, []string{"nmcli"}, []string{"hotspot", "--ssid", "x", "--address", "10.42.0.1"}, 2, "--address"},
		{"an unknown flag", 0, []string{"nmcli"}, []string{"hotspot", "--bogus"}, 2, "bogus"},
		{"an extra argument", 0, []string{"nmcli"}, []string{"status", "now"}, 2, "unexpected argument"},
		{"an unknown subcommand", 0, []string{"nmcli"}, []string{"bridge"}, 2, "unknown command"},
		{"no subcommand", 0, []string{"nmcli"}, nil, 2, "Usage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd, runner, _, stderr := newNetsetupCommand(t, tc.euid, tc.tools...)
			if code := cmd.run(context.Background(), tc.args); code != tc.wantCode {
				t.Errorf("exit %d, want %d", code, tc.wantCode)
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want it to mention %q", stderr, tc.wantErr)
			}
			if len(runner.calls) != 0 {
				t.Errorf("ran %q", runner.calls)
			}
		})
	}
}
