package packaging_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"eventbox/packaging"
)

func TestUnitTemplateHasOnlyThePathKey(t *testing.T) {
	// build-deb.sh fills the template with sed, so the path must be the one
	// and only template expression (ExecStartPre and ExecStart both name it).
	if n, paths := strings.Count(packaging.UnitTemplate, "{{"), strings.Count(packaging.UnitTemplate, packaging.PathPlaceholder); n != paths {
		t.Fatalf("template has %d expressions, %d of them the path: want only the path", n, paths)
	}
	if !strings.Contains(packaging.UnitTemplate, packaging.PathPlaceholder) {
		t.Fatalf("template lacks %s", packaging.PathPlaceholder)
	}
}

func TestUnitHasTheSettingsTheProductNeeds(t *testing.T) {
	unit := packaging.Unit("/usr/bin/eventbox")
	for _, line := range []string{
		"ExecStart=/usr/bin/eventbox serve",
		"User=eventbox",
		"Environment=LISTEN_ADDR=:80",
		"Environment=TLS_LISTEN_ADDR=:443",
		"Environment=DATA_DIR=/var/lib/eventbox",
		"EnvironmentFile=-/etc/default/eventbox",
		"AmbientCapabilities=CAP_NET_BIND_SERVICE",
		"AmbientCapabilities=CAP_SYS_TIME",
		"CapabilityBoundingSet=CAP_SYS_TIME",
		"StateDirectory=eventbox",
		"Restart=always",
		"RestartSec=2",
		"StartLimitIntervalSec=0",
		"WantedBy=multi-user.target",
	} {
		if !hasLine(unit, line) {
			t.Errorf("unit lacks the line %q", line)
		}
	}
	if strings.Contains(unit, "{{") {
		t.Error("rendered unit still holds a template expression")
	}
}

func TestUnitEscapesSpacesInThePathAsKardianosDoes(t *testing.T) {
	unit := packaging.Unit("/opt/my apps/eventbox")
	if !hasLine(unit, `ExecStart=/opt/my\x20apps/eventbox serve`) {
		t.Errorf("unit does not escape the space:\n%s", unit)
	}
}

// TestUnitAppliesTheSettingsFileAsRootBeforeTheDaemon: the first start
// needs no command line. As root and before the daemon, the unit applies
// the host's choices of the setup page and the boot partition's settings
// file, hands the owner over in DATA_DIR and brings up the setup hotspot
// on a box not set up yet; neither step can keep the daemon from starting.
func TestUnitAppliesTheSettingsFileAsRootBeforeTheDaemon(t *testing.T) {
	unit := packaging.Unit("/usr/bin/eventbox")
	for _, line := range []string{
		"ExecStartPre=-+/usr/bin/eventbox netsetup boot-settings --apply --if-present ${DATA_DIR}/setup.txt",
		"ExecStartPre=-+/usr/bin/eventbox netsetup boot-settings --apply --if-present --owner-to ${DATA_DIR}/first-owner --setup-hotspot-unless ${DATA_DIR}/setup-done",
	} {
		if !hasLine(unit, line) {
			t.Errorf("unit lacks the line %q", line)
		}
	}
	pre, start := strings.Index(unit, "ExecStartPre="), strings.Index(unit, "ExecStart=")
	if pre < 0 || start < pre {
		t.Error("the settings are not applied before the daemon starts")
	}
}

func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// TestUnitStopsAnUpdateThatNeverConfirms: the unit waits for the
// daemon's READY=1 (Type=notify) at most TimeoutStartSec and wants a
// WATCHDOG=1 every WatchdogSec, so a daemon (or an update on trial) that
// hangs is killed and started again; systemd-analyze accepts the unit
// where it is installed.
func TestUnitStopsAnUpdateThatNeverConfirms(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	unit := packaging.Unit(exe)
	for _, line := range []string{"Type=notify", "NotifyAccess=main", "TimeoutStartSec=2min", "WatchdogSec=90s", "Restart=always"} {
		if !hasLine(unit, line) {
			t.Errorf("unit lacks the line %q", line)
		}
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze here: the lines only")
	}
	path := filepath.Join(t.TempDir(), "eventbox.service")
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
