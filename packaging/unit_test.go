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
	// and only template expression.
	if n := strings.Count(packaging.UnitTemplate, "{{"); n != 1 {
		t.Fatalf("template has %d expressions, want 1", n)
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
