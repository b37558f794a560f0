package testtool

import (
	"os"
	"testing"
)

// LongEnv names the switch that runs the tests marked [Long]: make
// longtest sets it to 1.
const LongEnv = "EVENTBOX_LONG"

// Long marks a test that make test leaves to make longtest (why says what
// makes it long: a real binary killed and restarted, a 150 MB video): it
// skips unless LongEnv is 1. tools/testmarks finds the marked tests, so
// the Makefile keeps no list of their names. Call it first in the test's
// own body.
func Long(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(LongEnv) != "1" {
		t.Skipf("a long test (%s): make longtest runs it (%s=1)", why, LongEnv)
	}
}

// Unraced marks a test whose time is pixels (why says which), which the
// race detector makes several times slower and finds nothing in: under
// -race it skips, and make test runs it in its unraced stream (found by
// tools/testmarks). Call it first in the test's own body.
func Unraced(t testing.TB, why string) {
	t.Helper()
	if RaceEnabled {
		t.Skipf("runs without -race (%s): make test's unraced stream runs it", why)
	}
}

// Quick marks a browser test that make test runs (make browsertest runs
// them all, with every language and screen size). It changes nothing in
// the test; tools/testmarks finds the marked ones.
func Quick(t testing.TB) { t.Helper() }
