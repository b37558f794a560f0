package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"eventbox/daemon/setup"
	"eventbox/netsetup"
)

// TestSetupHandoffIsTheSettingsFileTheRootStepApplies: the setup page's
// choices are written as a settings file the root step reads back to the
// same values (spaces and quotes kept, an open network as "open"), only
// the daemon's user can read it, and the restart is asked for.
func TestSetupHandoffIsTheSettingsFileTheRootStepApplies(t *testing.T) {
	for _, c := range []setup.Choice{
		{WiFiName: " Anna & Marc ", WiFiPassword: `"confetti" 2025`, Country: "FR", TimeZone: "Europe/Paris"},
		{WiFiName: "Party", Country: "GB", TimeZone: "Europe/London"},
	} {
		dir := t.TempDir()
		restarts := 0
		h := setupHandoff{dir: dir, restart: func() { restarts++ }}
		if err := h.Apply(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, SetupChoicesFile)
		s, problems, err := netsetup.ReadBootSettings(path, nil)
		if err != nil || len(problems) > 0 {
			t.Fatalf("read back: %v %v", err, problems)
		}
		want := netsetup.BootSettings{HotspotName: c.WiFiName, HotspotPassword: c.WiFiPassword, HotspotOpen: c.WiFiPassword == "",
			Country: c.Country, TimeZone: c.TimeZone}
		if s != want {
			t.Errorf("read back %+v, want %+v", s, want)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("file mode %v, %v; want 0600", fi.Mode(), err)
		}
		if restarts != 1 {
			t.Errorf("%d restarts asked, want 1", restarts)
		}
	}
}
