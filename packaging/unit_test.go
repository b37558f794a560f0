package packaging_test

import (
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
