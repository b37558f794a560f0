// Package testtool is how a test asks for an outside tool (a program on
// PATH, a browser, a fetched file) that it needs and the module does not
// carry. Without it the test skips and says what to install, except when
// the environment variable EVENTBOX_REQUIRE_ALL is 1 (as .ci/run sets it):
// then the test fails, so that CI cannot pass with part of the suite
// skipped for a tool it forgot to install.
//
// Skips for other reasons stay plain t.Skip: -short, opt-in measurements,
// a build without HEIC, a machine with GPIO chips, or no permission to
// mount or make network namespaces.
package testtool

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// RequireAllEnv names the switch: set to 1, a missing tool fails the test.
const RequireAllEnv = "EVENTBOX_REQUIRE_ALL"

// Required reports whether missing tools fail tests instead of skipping
// them (RequireAllEnv is 1).
func Required() bool {
	return os.Getenv(RequireAllEnv) == "1"
}

// Missing ends the test because something it needs from outside the
// module is absent: a skip with the message, or a failure when
// [Required]. why should say what is missing and how to install it.
func Missing(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s (%s=1: a missing tool fails instead of skipping)", why, RequireAllEnv)
	}
	t.Skip(why)
}

// Need ends the test through [Missing] unless every named program is on
// PATH. pkg is the Debian package that provides them, for the message.
func Need(t testing.TB, pkg string, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := exec.LookPath(name); err != nil {
			Missing(t, name+" is not installed (Debian package "+pkg+")")
		}
	}
}

// NeedOne returns the path of the first named program found on PATH, or
// ends the test through [Missing] when none is. pkg is the Debian package
// to install, for the message.
func NeedOne(t testing.TB, pkg string, names ...string) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missing(t, "none of "+strings.Join(names, ", ")+" is installed (Debian package "+pkg+")")
	return ""
}

// Has reports whether the named program is on PATH, for a test that
// checks more with it and less without. When [Required], a missing
// program fails the test instead.
func Has(t testing.TB, pkg, name string) bool {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return true
	}
	if Required() {
		t.Fatalf("%s is not installed (Debian package %s) (%s=1: a missing tool fails instead of skipping)", name, pkg, RequireAllEnv)
	}
	t.Logf("%s is not installed (Debian package %s): checked without it", name, pkg)
	return false
}
