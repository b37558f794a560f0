package netsetup_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"eventbox/netsetup"
)

const hostsFile = "\xef\xbb\xbf# Anna's box\r\n" +
	"hotspot_name = Anna & Marc\r\n" +
	"hotspot_password = confetti2025\r\n" +
	"country = fr\r\n" +
	"time_zone = Europe/Paris\r\n" +
	"\r\n" +
	"; the first owner\r\n" +
	"owner_name = anna\r\n" +
	"owner_password = \"  spaces # kept  \"\r\n"

func writeBootFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "eventbox.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadBootSettingsReadsAHostsFile(t *testing.T) {
	got, problems, err := netsetup.ReadBootSettings(writeBootFile(t, hostsFile), nil)
	if err != nil || len(problems) != 0 {
		t.Fatalf("ReadBootSettings: %v, problems %v", err, problems)
	}
	want := netsetup.BootSettings{HotspotName: "Anna & Marc", HotspotPassword: "confetti2025", Country: "FR",
		TimeZone: "Europe/Paris", OwnerName: "anna", OwnerPassword: "  spaces # kept  "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings = %+v\nwant       %+v", got, want)
	}
}

func TestReadBootSettingsRefusesEachBadValue(t *testing.T) {
	const good = "hotspot_name = Party\nhotspot_password = confetti2025\ncountry = FR\n"
	tests := []struct {
		name     string
		content  string
		wantKeys []string
	}{
		{"a country that is not a code", "hotspot_name = Party\nhotspot_password = open\ncountry = France\n", []string{"country"}},
		{"a hotspot password too short", "hotspot_name = Party\nhotspot_password = short\ncountry = FR\n", []string{"hotspot_password"}},
		{"a hotspot without a password line", "hotspot_name = Party\ncountry = FR\n", []string{"hotspot_password"}},
		{"an empty hotspot password", "hotspot_name = Party\nhotspot_password =\ncountry = FR\n", []string{"hotspot_password"}},
		{"a hotspot without a country", "hotspot_name = Party\nhotspot_password = open\n", []string{"country"}},
		{"a hotspot name too long", "hotspot_name = " + strings.Repeat("x", 33) + "\nhotspot_password = open\ncountry = FR\n", []string{"hotspot_name"}},
		{"an unknown time zone", good + "time_zone = Europe/Atlantis\n", []string{"time_zone"}},
		{"a time zone that is a path", good + "time_zone = ../../etc/passwd\n", []string{"time_zone"}},
		{"an owner password too short", good + "owner_name = anna\nowner_password = short\n", []string{"owner_password"}},
		{"an owner without a password", good + "owner_name = anna\n", []string{"owner_password"}},
		{"an owner password without a name", good + "owner_password = long enough pass\n", []string{"owner_password"}},
		{"a misspelt key", good + "timezone = Europe/Paris\n", []string{"timezone"}},
		{"a line without =", good + "Europe/Paris\n", []string{""}},
		{"a key given twice", good + "country = DE\n", []string{"country"}},
		{"a password added to an applied file", "hotspot_name = Party\ncountry = FR\napplied = 2025-06-01T10:00:00Z\nhotspot_password = newpassword\n", []string{"hotspot_password"}},
		{"an applied line edited by hand", good + "applied = yesterday\n", []string{"applied"}},
		{"not UTF-8 text", "hotspot_name = Caf\xe9\n", []string{""}},
		{"several at once, each named", "hotspot_name = Party\nhotspot_password = short\ncountry = France\ntime_zone = Mars/Olympus\n",
			[]string{"hotspot_password", "country", "time_zone"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, problems, err := netsetup.ReadBootSettings(writeBootFile(t, tc.content), nil)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, p := range problems {
				keys = append(keys, p.Key)
				for _, secret := range []string{"short", "confetti2025", "newpassword", "long enough pass"} {
					if strings.Contains(p.String(), secret) {
						t.Errorf("problem %q quotes a password", p)
					}
				}
			}
			if !reflect.DeepEqual(keys, tc.wantKeys) {
				t.Errorf("problems %q, want keys %q", problems, tc.wantKeys)
			}
		})
	}
}

// bootApplier returns a BootApplier on the stand-in, its log and its clock.
func bootApplier(t *testing.T, nm *fakeNM, logs *lockedBuffer) netsetup.BootApplier {
	t.Helper()
	return netsetup.BootApplier{
		Applier: netsetup.Applier{Runner: nm, Root: nm.root, Logger: slog.New(slog.NewTextHandler(logs, nil))},
		Facts:   netsetup.Facts{RaspiConfig: true, RFKill: true},
		Now:     func() time.Time { return time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC) },
	}
}

func TestApplyBootSettingsAppliesOnceAndRemovesThePasswords(t *testing.T) {
	nm := newFakeNM(t.TempDir())
	var logs lockedBuffer
	ba := bootApplier(t, nm, &logs)
	path := writeBootFile(t, hostsFile)
	ctx := context.Background()

	res, err := netsetup.ApplyBootSettings(ctx, ba, path)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Problems) != 0 || !res.Hotspot || !res.Country || !res.TimeZone {
		t.Errorf("result = %+v, want the hotspot, country and time zone applied", res)
	}
	if res.Owner == nil || *res.Owner != (netsetup.Owner{Name: "anna", Password: "  spaces # kept  "}) {
		t.Errorf("owner = %+v, want anna with her password", res.Owner)
	}
	for _, want := range []string{"raspi-config nonint do_wifi_country FR", "nmcli connection up eventbox-hotspot", "timedatectl set-timezone Europe/Paris"} {
		if !contains(nm.ran(), want) {
			t.Errorf("commands %q lack %q", nm.ran(), want)
		}
	}
	if ssid, psk, _ := netsetup.ReadHotspotWiFi(nm.root, ""); ssid != "Anna & Marc" || psk != "confetti2025" {
		t.Errorf("hotspot = %q/%q, want the file's", ssid, psk)
	}
	after, _ := os.ReadFile(path)
	for _, gone := range []string{"confetti2025", "spaces # kept", "hotspot_password =", "owner_password ="} {
		if strings.Contains(string(after), gone) {
			t.Errorf("the rewritten file still holds %q:\n%s", gone, after)
		}
	}
	for _, kept := range []string{"# Anna's box\r\n", "hotspot_name = Anna & Marc\r\n", "owner_name = anna\r\n",
		"# hotspot_password: applied on 2025-06-01T10:00:00Z and removed from this file.\r\n",
		"# owner_password: applied on 2025-06-01T10:00:00Z and removed from this file.\r\n",
		"applied = 2025-06-01T10:00:00Z\r\n"} {
		if !strings.Contains(string(after), kept) {
			t.Errorf("the rewritten file lacks %q:\n%s", kept, after)
		}
	}
	if strings.Contains(logs.String(), "confetti2025") || strings.Contains(logs.String(), "spaces # kept") {
		t.Errorf("a password reached the log:\n%s", logs.String())
	}

	// The second time: nothing run, no owner, the file untouched.
	ran := len(nm.ran())
	res, err = netsetup.ApplyBootSettings(ctx, ba, path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Hotspot || res.Country || res.TimeZone || res.Owner != nil || len(res.Problems) != 0 {
		t.Errorf("second apply = %+v, want nothing done", res)
	}
	if len(nm.ran()) != ran {
		t.Errorf("second apply ran %q", nm.ran()[ran:])
	}
	if again, _ := os.ReadFile(path); string(again) != string(after) {
		t.Errorf("second apply rewrote the file:\n%s", again)
	}
}

func TestApplyBootSettingsWithABadValueAppliesNothing(t *testing.T) {
	nm := newFakeNM(t.TempDir())
	var logs lockedBuffer
	ba := bootApplier(t, nm, &logs)
	content := "hotspot_name = Party\nhotspot_password = confetti2025\ncountry = France\nowner_name = anna\nowner_password = long enough pass\n"
	path := writeBootFile(t, content)

	res, err := netsetup.ApplyBootSettings(context.Background(), ba, path)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Problems) != 1 || res.Hotspot || res.Owner != nil {
		t.Errorf("result = %+v, want one problem and nothing applied", res)
	}
	if calls := nm.ran(); len(calls) != 0 {
		t.Errorf("ran %q", calls)
	}
	if !strings.Contains(logs.String(), "key=country") || !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("log does not name the key:\n%s", logs.String())
	}
	after, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(after), "#! eventbox did not apply this file") || !strings.Contains(string(after), "#!   line 3, country: want a two-letter") ||
		!strings.HasSuffix(string(after), content) {
		t.Errorf("file = \n%s\nwant a note at the top and the host's lines kept", after)
	}

	// Fixed on a computer, the file applies, and the note goes.
	fixed := strings.Replace(string(after), "country = France", "country = FR", 1)
	if err := os.WriteFile(path, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = netsetup.ApplyBootSettings(context.Background(), ba, path)
	if err != nil || !res.Hotspot || res.Owner == nil {
		t.Fatalf("after the fix: %+v, %v", res, err)
	}
	if after, _ := os.ReadFile(path); strings.Contains(string(after), "#!") {
		t.Errorf("the note stayed:\n%s", after)
	}
}

func TestApplyBootSettingsThatFailsKeepsTheFileForTheNextStart(t *testing.T) {
	nm := newFakeNM(t.TempDir())
	var logs lockedBuffer
	ba := bootApplier(t, nm, &logs)
	nm.fail["nmcli connection up eventbox-hotspot"] = "Error: no Wi-Fi device"
	path := writeBootFile(t, hostsFile)
	if _, err := netsetup.ApplyBootSettings(context.Background(), ba, path); err == nil || !strings.Contains(err.Error(), "no Wi-Fi device") {
		t.Errorf("error = %v, want NetworkManager's words", err)
	}
	if after, _ := os.ReadFile(path); string(after) != hostsFile {
		t.Errorf("file changed after a failure:\n%s", after)
	}
}

func TestApplyBootSettingsHandsTheOwnerOverBeforeRemovingThePassword(t *testing.T) {
	nm := newFakeNM(t.TempDir())
	var logs lockedBuffer
	ba := bootApplier(t, nm, &logs)
	handoff := filepath.Join(t.TempDir(), netsetup.OwnerHandoffFile)
	ba.TakeOwner = func(context.Context, netsetup.Owner) error { return errors.New("disk full") }
	path := writeBootFile(t, hostsFile)
	if _, err := netsetup.ApplyBootSettings(context.Background(), ba, path); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error = %v, want the hand-off's", err)
	}
	if after, _ := os.ReadFile(path); string(after) != hostsFile {
		t.Errorf("file changed although the owner was not handed over:\n%s", after)
	}

	ba.TakeOwner = func(_ context.Context, o netsetup.Owner) error { return netsetup.WriteOwnerHandoff(handoff, o) }
	if _, err := netsetup.ApplyBootSettings(context.Background(), ba, path); err != nil {
		t.Fatal(err)
	}
	o, err := netsetup.ReadOwnerHandoff(handoff)
	if err != nil || o != (netsetup.Owner{Name: "anna", Password: "  spaces # kept  "}) {
		t.Errorf("hand-off = %+v, %v", o, err)
	}
	if fi, _ := os.Stat(handoff); fi.Mode().Perm() != 0o600 {
		t.Errorf("hand-off mode %v, want 0600", fi.Mode().Perm())
	}
	if after, _ := os.ReadFile(path); strings.Contains(string(after), "spaces # kept") {
		t.Errorf("the owner's password stayed in the file:\n%s", after)
	}
}

func TestApplyBootSettingsCases(t *testing.T) {
	tests := []struct {
		name         string
		content      string // "" for no file
		keepOwner    bool
		wantFound    bool
		wantCommands []string
		wantOwner    bool
		wantInFile   []string
	}{
		{name: "no file", wantFound: false},
		{name: "a country alone", content: "country = de\n", wantFound: true,
			wantCommands: []string{"raspi-config nonint do_wifi_country DE", "rfkill unblock wifi", "nmcli radio wifi on"},
			wantInFile:   []string{"country = de\n", "applied = 2025-06-01T10:00:00Z\n"}},
		{name: "an open hotspot", content: "hotspot_name = Party\nhotspot_password = open\ncountry = IT\n", wantFound: true,
			wantCommands: []string{"raspi-config nonint do_wifi_country IT", "rfkill unblock wifi", "nmcli radio wifi on", "nmcli connection reload",
				"nmcli connection down eventbox-hotspot", "nmcli connection up eventbox-hotspot"},
			wantInFile: []string{"# hotspot_password: applied on"}},
		{name: "the command line keeps the owner for the daemon", keepOwner: true, wantFound: true,
			content:      "time_zone = UTC\nowner_name = anna\nowner_password = long enough pass\n",
			wantCommands: []string{"timedatectl set-timezone UTC"},
			wantInFile:   []string{"owner_password = long enough pass\n", "applied = "}},
		{name: "the daemon takes an owner the command line kept", wantFound: true, wantOwner: true,
			content:    "time_zone = UTC\nowner_name = anna\nowner_password = long enough pass\napplied = 2025-05-01T09:00:00Z\n",
			wantInFile: []string{"# owner_password: applied on 2025-06-01T10:00:00Z", "applied = 2025-05-01T09:00:00Z\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nm := newFakeNM(t.TempDir())
			var logs lockedBuffer
			ba := bootApplier(t, nm, &logs)
			ba.KeepOwner = tc.keepOwner
			path := filepath.Join(t.TempDir(), "eventbox.txt")
			if tc.content != "" {
				path = writeBootFile(t, tc.content)
			}
			res, err := netsetup.ApplyBootSettings(context.Background(), ba, path)
			if err != nil {
				t.Fatal(err)
			}
			if res.Found != tc.wantFound || (res.Owner != nil) != tc.wantOwner {
				t.Errorf("result = %+v, want found %v, owner %v", res, tc.wantFound, tc.wantOwner)
			}
			if got := nm.ran(); !reflect.DeepEqual(got, tc.wantCommands) && !(len(got) == 0 && len(tc.wantCommands) == 0) {
				t.Errorf("commands = %q\nwant       %q", got, tc.wantCommands)
			}
			after, _ := os.ReadFile(path)
			for _, want := range tc.wantInFile {
				if !strings.Contains(string(after), want) {
					t.Errorf("file lacks %q:\n%s", want, after)
				}
			}
		})
	}
}

func TestTheExampleSettingsFileIsValid(t *testing.T) {
	s, problems, err := netsetup.ReadBootSettings(filepath.Join("..", "packaging", "eventbox.txt.example"), nil)
	if err != nil || len(problems) != 0 {
		t.Fatalf("the example: %v, problems %q", err, problems)
	}
	if s.HotspotName == "" || s.Country == "" || s.TimeZone == "" || s.OwnerName == "" || s.OwnerPassword == "" {
		t.Errorf("the example leaves a key out: %+v", s)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
