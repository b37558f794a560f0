package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

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

// scriptedRunner answers the commands it knows with nmcli's terse output
// (or an error), records every command, and answers nothing to the rest.
type scriptedRunner struct {
	answers map[string]string
	fails   map[string]string
	calls   []string
}

func (r *scriptedRunner) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	cmd := strings.Join(append([]string{name}, args...), " ")
	r.calls = append(r.calls, cmd)
	if msg, ok := r.fails[cmd]; ok {
		return []byte(msg), errors.New("exit status 1")
	}
	return []byte(r.answers[cmd]), nil
}

func TestNetsetupWiFi(t *testing.T) {
	const scan = "nmcli -t -f IN-USE,SSID,SIGNAL,SECURITY device wifi list ifname wlan0 --rescan yes"
	const up = "nmcli --wait 60 connection up eventbox-home"
	tests := []struct {
		name       string
		euid       int
		args       []string
		answers    map[string]string
		fails      map[string]string
		wantCode   int
		wantOut    []string
		wantErr    string
		wantCalled []string
	}{
		{name: "scan lists networks strongest first", args: []string{"wifi", "scan"},
			answers:  map[string]string{scan: " :Neighbours:40:WPA2\n*:Home\\:5G:81:WPA2\n :Café:60:--\n :Home\\:5G:30:WPA2\n"},
			wantOut:  []string{"*  81      WPA2      Home:5G\n   60      open      Café\n   40      WPA2      Neighbours\n"},
			wantCode: 0},
		{name: "scan with nothing in range", args: []string{"wifi", "scan"}, wantOut: []string{"no Wi-Fi network in range"}},
		{name: "join with the right password", euid: 0, args: []string{"wifi", "join", "--ssid", "Home", "--password", "letmein123"},
			wantOut: []string{`joined "Home"`}, wantCalled: []string{"nmcli connection reload", up}},
		{name: "join with a wrong password brings the hotspot back", euid: 0, args: []string{"wifi", "join", "--ssid", "Home", "--password", "wrongpass1"},
			fails:    map[string]string{up: "Error: Connection activation failed: Secrets were required, but not provided."},
			wantCode: 1, wantErr: "the hotspot is back up", wantCalled: []string{up, "nmcli connection up eventbox-hotspot"}},
		{name: "join without root", euid: 1000, args: []string{"wifi", "join", "--ssid", "Home"}, wantCode: 1, wantErr: "needs root"},
		{name: "join without a name", args: []string{"wifi", "join"}, wantCode: 2, wantErr: "--ssid is required"},
		{name: "status says what the radio can do", args: []string{"wifi", "status"},
			answers: map[string]string{
				"iw dev wlan0 info":                                      "Interface wlan0\n\twiphy 0\n",
				"iw phy phy0 info":                                       "Wiphy phy0\n\tvalid interface combinations:\n\t\t * #{ managed } <= 1, #{ AP } <= 1,\n\t\t   total <= 2, #channels <= 1\n",
				"nmcli networking connectivity check":                    "limited\n",
				"nmcli -t -f DEVICE,TYPE,STATE,CONNECTION device status": "eth0:ethernet:unavailable:--\nwlan0:wifi:connected:eventbox-hotspot\n",
			},
			wantOut: []string{"radio: keeps the hotspot while online, on the home network's channel", "home wifi: not connected",
				"ethernet: eth0 unavailable", "internet: limited"}},
		{name: "an unknown wifi command", args: []string{"wifi", "forget"}, wantCode: 2, wantErr: "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd, _, stdout, stderr := newNetsetupCommand(t, tc.euid, "nmcli")
			runner := &scriptedRunner{answers: tc.answers, fails: tc.fails}
			cmd.runner = runner
			if code := cmd.run(context.Background(), tc.args); code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.wantCode, stderr)
			}
			for _, want := range tc.wantOut {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want %q", stderr, tc.wantErr)
			}
			for _, want := range tc.wantCalled {
				if !slices.Contains(runner.calls, want) {
					t.Errorf("commands %q lack %q", runner.calls, want)
				}
			}
			for _, c := range runner.calls {
				if strings.Contains(c, "letmein123") || strings.Contains(c, "wrongpass1") {
					t.Errorf("a password is on a command line: %q", c)
				}
			}
		})
	}
}

func TestNetsetupBootSettings(t *testing.T) {
	const file = "hotspot_name = Party\nhotspot_password = confetti2025\ncountry = FR\ntime_zone = UTC\nowner_name = anna\nowner_password = long enough pass\n"
	tests := []struct {
		name      string
		euid      int
		args      []string
		content   string
		wantCode  int
		wantOut   []string
		wantErr   string
		wantFile  []string
		wantCalls bool
	}{
		{name: "a check masks the passwords and changes nothing", euid: 1000, content: file,
			wantOut:  []string{"hotspot name: Party", "hotspot password: ********", "owner: anna, password ********"},
			wantFile: []string{"hotspot_password = confetti2025"}},
		{name: "a check names each bad value", euid: 1000, content: strings.Replace(file, "country = FR", "country = France", 1),
			wantCode: 1, wantErr: "refused: line 3, country: want a two-letter"},
		{name: "apply as root keeps the owner for the daemon", euid: 0, args: []string{"--apply"}, content: file, wantCalls: true,
			wantOut:  []string{`hotspot "Party" is up`, "time zone: UTC", `owner "anna": left in the file`},
			wantFile: []string{"# hotspot_password: applied on 2025-06-01T10:00:00Z", "owner_password = long enough pass", "applied = 2025-06-01T10:00:00Z"}},
		{name: "apply with --owner-to hands the owner over and removes both passwords", euid: 0, args: []string{"--apply", "--owner-to", "OWNER"},
			content: file, wantCalls: true,
			wantOut:  []string{`owner "anna": handed to eventbox in`},
			wantFile: []string{"# hotspot_password: applied on", "# owner_password: applied on", "owner_name = anna"}},
		{name: "apply refuses without root", euid: 1000, args: []string{"--apply"}, content: file, wantCode: 1, wantErr: "needs root",
			wantFile: []string{"hotspot_password = confetti2025"}},
		{name: "apply with a bad value applies nothing", euid: 0, args: []string{"--apply"}, content: strings.Replace(file, "UTC", "Mars/Olympus", 1),
			wantCode: 1, wantErr: "refused: line 4, time_zone", wantFile: []string{"#! eventbox did not apply this file", "hotspot_password = confetti2025"}},
		{name: "no file", euid: 0, args: []string{"--apply"}, wantCode: 1, wantErr: "no file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd, runner, stdout, stderr := newNetsetupCommand(t, tc.euid, "nmcli", "raspi-config")
			cmd.now = func() time.Time { return time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC) }
			path := filepath.Join(cmd.root, netsetup.DefaultBootSettingsPath)
			if tc.content != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ownerFile := filepath.Join(t.TempDir(), "first-owner")
			args := append([]string{"boot-settings"}, tc.args...)
			for i := range args {
				if args[i] == "OWNER" {
					args[i] = ownerFile
				}
			}
			if code := cmd.run(context.Background(), args); code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.wantCode, stderr)
			}
			for _, want := range tc.wantOut {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want %q", stderr, tc.wantErr)
			}
			if strings.Contains(stdout.String()+stderr.String(), "confetti2025") || strings.Contains(stdout.String()+stderr.String(), "long enough pass") {
				t.Errorf("a password was printed:\n%s\n%s", stdout, stderr)
			}
			after, _ := os.ReadFile(path)
			for _, want := range tc.wantFile {
				if !strings.Contains(string(after), want) {
					t.Errorf("file lacks %q:\n%s", want, after)
				}
			}
			if o, err := netsetup.ReadOwnerHandoff(ownerFile); slices.Contains(tc.args, "--owner-to") &&
				(err != nil || o != (netsetup.Owner{Name: "anna", Password: "long enough pass"})) {
				t.Errorf("hand-off = %+v, %v; want anna with her password", o, err)
			}
			if (len(runner.calls) > 0) != tc.wantCalls {
				t.Errorf("commands run: %q", runner.calls)
			}
		})
	}
}

// TestNetsetupBootSettingsAtFirstStart is the service's step before each
// start: no file is no error, and a box not set up yet (no hotspot of the
// host's, no DATA_DIR/setup-done) comes up on its open setup hotspot,
// also when the file was refused.
func TestNetsetupBootSettingsAtFirstStart(t *testing.T) {
	const file = "hotspot_name = Party\nhotspot_password = confetti2025\ncountry = FR\n"
	tests := []struct {
		name      string
		content   string
		done      bool
		hostSpot  bool
		noSetup   bool
		fifo      bool // the file is a named pipe, which once kept the step waiting
		wantCode  int
		wantSSID  string // in the hotspot's keyfile afterwards; "" none
		wantOut   string
		wantErr   string
		wantCalls bool
	}{
		{name: "no file, no setup hotspot asked: quiet success", noSetup: true},
		{name: "no file on a blank box: the setup hotspot", wantSSID: "eventbox-setup-", wantOut: "setup hotspot", wantCalls: true},
		{name: "a refused file: logged, and the setup hotspot", content: strings.Replace(file, "FR", "France", 1),
			wantCode: 1, wantErr: "refused: line 3, country", wantSSID: "eventbox-setup-", wantOut: "setup hotspot", wantCalls: true},
		{name: "the file's hotspot, no setup hotspot", content: file, wantSSID: "ssid=Party", wantOut: `hotspot "Party" is up`, wantCalls: true},
		{name: "a FIFO for a file: refused at once, left in place, and the setup hotspot", fifo: true,
			wantCode: 1, wantErr: "refused: not a regular file", wantSSID: "eventbox-setup-", wantOut: "setup hotspot", wantCalls: true},
		{name: "a box set up already: nothing", done: true},
		{name: "a hotspot of the host's: nothing", hostSpot: true, wantSSID: "ssid=Ours"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd, runner, stdout, stderr := newNetsetupCommand(t, 0, "nmcli", "rfkill")
			cmd.now = func() time.Time { return time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC) }
			write := func(p, content string) {
				t.Helper()
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(cmd.root, "etc/machine-id"), "0123456789abcdef0123456789abcdef\n")
			keyfile := filepath.Join(cmd.root, netsetup.ConnectionDir, netsetup.DefaultConnection+".nmconnection")
			if tc.hostSpot {
				write(keyfile, "[wifi]\nssid=Ours\n")
			}
			if tc.content != "" {
				write(filepath.Join(cmd.root, netsetup.DefaultBootSettingsPath), tc.content)
			}
			if tc.fifo {
				p := filepath.Join(cmd.root, netsetup.DefaultBootSettingsPath)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Mkfifo(p, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			dataDir := t.TempDir()
			if tc.done {
				write(filepath.Join(dataDir, "setup-done"), "")
			}
			args := []string{"boot-settings", "--apply", "--if-present", "--owner-to", filepath.Join(dataDir, "first-owner")}
			if !tc.noSetup {
				args = append(args, "--setup-hotspot-unless", filepath.Join(dataDir, "setup-done"))
			}
			exit := make(chan int, 1)
			go func() { exit <- cmd.run(context.Background(), args) }()
			select {
			case code := <-exit:
				if code != tc.wantCode {
					t.Errorf("exit %d, want %d; stderr: %s", code, tc.wantCode, stderr)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the step is still running after 10 s: the box would never start")
			}
			if tc.wantOut == "" && stdout.Len() > 0 || !strings.Contains(stdout.String(), tc.wantOut) {
				t.Errorf("stdout = %q, want %q", stdout, tc.wantOut)
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want %q", stderr, tc.wantErr)
			}
			got, _ := os.ReadFile(keyfile)
			switch {
			case tc.wantSSID == "" && len(got) > 0:
				t.Errorf("a hotspot was written:\n%s", got)
			case tc.wantSSID != "" && !strings.Contains(string(got), tc.wantSSID):
				t.Errorf("hotspot keyfile lacks %q:\n%s", tc.wantSSID, got)
			}
			if strings.HasPrefix(tc.wantSSID, "eventbox-setup-") && strings.Contains(string(got), "psk=") {
				t.Errorf("the setup hotspot has a password:\n%s", got)
			}
			if (len(runner.calls) > 0) != tc.wantCalls {
				t.Errorf("commands run: %q", runner.calls)
			}
		})
	}
}
