// Command testmarks prints which tests mark themselves with a call to one
// of internal/testtool's markers, so that the Makefile and tools/unit.sh
// pick tests by what each test says of itself instead of by lists of names
// kept by hand:
//
//	testtool.Long(t, why)     make test leaves it to make longtest
//	testtool.Unraced(t, why)  it runs without -race (its time is pixels)
//	testtool.Quick(t)         a browser test make test runs (e2e)
//
// It reads the test files of every folder under the current one (the
// module's root; testdata, node_modules and hidden folders left out) and
// prints shell assignments: for each kind, a -run pattern (^(TestA|TestB)$,
// or ^$ when none) and, in *_PKGS, the folders that hold such tests
// (./daemon ./cmd/eventbox):
//
//	LONG_RACED     Long and not Unraced
//	LONG_UNRACED   Long and Unraced
//	UNRACED        Unraced and not Long
//	QUICK          Quick
//
// Usage: eval "$(go run ./tools/testmarks)". A marker counts when it is
// called directly in the test function's own body (not in a helper it
// calls, nor in a subtest's closure), where a reader of the test sees it.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	tests, err := read(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testmarks:", err)
		os.Exit(1)
	}
	kinds := []struct {
		name string
		is   func(m map[string]bool) bool
	}{
		{"LONG_RACED", func(m map[string]bool) bool { return m["Long"] && !m["Unraced"] }},
		{"LONG_UNRACED", func(m map[string]bool) bool { return m["Long"] && m["Unraced"] }},
		{"UNRACED", func(m map[string]bool) bool { return m["Unraced"] && !m["Long"] }},
		{"QUICK", func(m map[string]bool) bool { return m["Quick"] }},
	}
	for _, k := range kinds {
		var names, dirs []string
		seen := map[string]bool{}
		for _, tt := range tests {
			if !k.is(tt.marks) {
				continue
			}
			names = append(names, tt.name)
			if !seen[tt.dir] {
				seen[tt.dir] = true
				dirs = append(dirs, tt.dir)
			}
		}
		sort.Strings(dirs)
		fmt.Printf("%s='%s'\n%s_PKGS='%s'\n", k.name, pattern(names), k.name, strings.Join(dirs, " "))
	}
}

// markedTest is a Test function that calls at least one marker.
type markedTest struct {
	dir, name string
	marks     map[string]bool
}

// read returns the Test functions of the test files under root that call
// a marker in their own body, with the markers each calls.
func read(root string) ([]markedTest, error) {
	var tests []markedTest
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			marks := map[string]bool{}
			for _, st := range fn.Body.List {
				if name := marker(st); name != "" {
					marks[name] = true
				}
			}
			if len(marks) > 0 {
				tests = append(tests, markedTest{dir: "./" + filepath.ToSlash(filepath.Dir(path)), name: fn.Name.Name, marks: marks})
			}
		}
		return nil
	})
	return tests, err
}

// marker is the name of the testtool marker the statement calls, or "".
func marker(st ast.Stmt) string {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return ""
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "testtool" {
		return ""
	}
	switch sel.Sel.Name {
	case "Long", "Unraced", "Quick":
		return sel.Sel.Name
	}
	return ""
}

// pattern is a -run pattern matching exactly the names.
func pattern(names []string) string {
	if len(names) == 0 {
		return "^$"
	}
	sort.Strings(names)
	return "^(" + strings.Join(names, "|") + ")$"
}
