package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadFindsMarkersInTheTestsOwnBody reads a folder of test files and
// finds the markers called in a test's own body, and only those.
func TestReadFindsMarkersInTheTestsOwnBody(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/a_test.go", `package a
func TestLong(t *testing.T) { testtool.Long(t, "slow"); t.Log() }
func TestBoth(t *testing.T) {
	testtool.Long(t, "slow")
	testtool.Unraced(t, "pixels")
}
func TestInClosure(t *testing.T) { t.Run("x", func(t *testing.T) { testtool.Long(t, "slow") }) }
func TestPlain(t *testing.T) {}
func helper(t *testing.T) { testtool.Long(t, "not a test") }
`)
	write("b/b_test.go", "package b\nfunc TestQuick(t *testing.T) { testtool.Quick(t) }\n")
	write("a/testdata/x_test.go", "package x\nfunc TestHidden(t *testing.T) { testtool.Long(t, \"\") }\n")
	write("a/a.go", "package a\nfunc TestNotATestFile(t *testing.T) { testtool.Long(t, \"\") }\n")

	t.Chdir(root)
	tests, err := read(".")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]bool{}
	for _, tt := range tests {
		got[tt.dir+" "+tt.name] = tt.marks
	}
	want := map[string]map[string]bool{
		"./a TestLong":  {"Long": true},
		"./a TestBoth":  {"Long": true, "Unraced": true},
		"./b TestQuick": {"Quick": true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read found %v, want %v", got, want)
	}
	if p := pattern([]string{"TestB", "TestA"}); p != "^(TestA|TestB)$" {
		t.Errorf("pattern = %q", p)
	}
	if p := pattern(nil); p != "^$" {
		t.Errorf("pattern of none = %q, want one that matches no test", p)
	}
}
