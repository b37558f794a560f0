package testtool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// BinariesEnv names a folder of commands built once for a whole test run
// (tools/unit.sh builds cmd/eventbox there before its streams start): a
// Binary whose command is in it is taken from there instead of built, so
// that the test processes of several packages, running side by side, do
// not each compile and link the same daemon.
const BinariesEnv = "EVENTBOX_TEST_BINARIES"

// Binary is a Go command that a test process builds once and its tests
// share (linking takes seconds on a quiet machine and far longer beside
// other builds): Path builds it on first use, without cgo and without
// -race, as shipped, or takes it from BinariesEnv's folder; the
// package's TestMain calls Remove once its tests have run. Tests must not
// change the file.
type Binary struct {
	// Pkg is the command's package, as go build takes it, relative to the
	// test's folder ("." or "../../cmd/eventbox").
	Pkg string

	once sync.Once
	dir  string
	path string
	err  error
}

// Path answers the built command's path, building it on first use.
func (b *Binary) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		if dir := os.Getenv(BinariesEnv); dir != "" {
			built := filepath.Join(dir, b.name())
			if _, err := os.Stat(built); err == nil {
				b.path = built
				return
			}
		}
		if b.dir, b.err = os.MkdirTemp("", "eventbox-bin-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, b.name())
		cmd := exec.Command("go", "build", "-o", b.path, b.Pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("building %s: %v\n%s", b.Pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// name is the command's file name: its package folder's, or eventbox for
// the test of cmd/eventbox itself (".").
func (b *Binary) name() string {
	if b.Pkg == "." {
		return "eventbox"
	}
	return filepath.Base(filepath.Clean(b.Pkg))
}

// Remove deletes the built command, if it was built.
func (b *Binary) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
