package testtool

import (
	"os"
	"path/filepath"
	"testing"
)

// A command already built for the run (BinariesEnv) is taken as it is,
// not built again, and is not removed by the package that took it.
func TestBinaryTakesTheRunsBuiltCommand(t *testing.T) {
	dir := t.TempDir()
	built := filepath.Join(dir, "eventbox")
	if err := os.WriteFile(built, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(BinariesEnv, dir)
	for _, pkg := range []string{"../../cmd/eventbox", "."} {
		b := Binary{Pkg: pkg}
		if got := b.Path(t); got != built {
			t.Errorf("Binary{%q}.Path = %s, want the run's %s", pkg, got, built)
		}
		b.Remove()
		if _, err := os.Stat(built); err != nil {
			t.Errorf("Remove deleted the run's command: %v", err)
		}
	}
}
