package testtool

import (
	"fmt"
	"runtime"
	"testing"
)

// recorder stands in for a test: it records whether the helper skipped
// or failed, and stops the calling goroutine as the real ones do.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Logf(string, ...any) {}

// run calls fn with a recorder on its own goroutine, as Goexit needs.
func run(fn func(tb testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r
}

// TestMissingToolSkipsOrFailsUnderTheSwitch: a missing program skips the
// test, and fails it when EVENTBOX_REQUIRE_ALL is 1; a present one does
// neither.
func TestMissingToolSkipsOrFailsUnderTheSwitch(t *testing.T) {
	const absent = "eventbox-no-such-tool"
	tests := []struct {
		name          string
		require       string
		call          func(tb testing.TB)
		skipped, fail bool
	}{
		{"Need, a missing program", "", func(tb testing.TB) { Need(tb, "none", absent) }, true, false},
		{"Need, a missing program under the switch", "1", func(tb testing.TB) { Need(tb, "none", absent) }, false, true},
		{"Need, a present program under the switch", "1", func(tb testing.TB) { Need(tb, "coreutils", "ls") }, false, false},
		{"NeedOne, none present", "", func(tb testing.TB) { NeedOne(tb, "none", absent, absent+"2") }, true, false},
		{"NeedOne, none present under the switch", "1", func(tb testing.TB) { NeedOne(tb, "none", absent, absent+"2") }, false, true},
		{"NeedOne, the second present", "1", func(tb testing.TB) {
			if NeedOne(tb, "coreutils", absent, "ls") == "" {
				tb.Fatalf("no path for ls")
			}
		}, false, false},
		{"Has, missing", "", func(tb testing.TB) {
			if Has(tb, "none", absent) {
				tb.Fatalf("Has reports a missing program")
			}
		}, false, false},
		{"Has, missing under the switch", "1", func(tb testing.TB) { Has(tb, "none", absent) }, false, true},
		{"Missing under another value", "yes", func(tb testing.TB) { Missing(tb, "no axe-core") }, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(RequireAllEnv, tc.require)
			r := run(tc.call)
			if r.skipped != tc.skipped || r.failed != tc.fail {
				t.Errorf("skipped %v, failed %v (%q); want skipped %v, failed %v", r.skipped, r.failed, r.msg, tc.skipped, tc.fail)
			}
		})
	}
}
