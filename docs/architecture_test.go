package docs

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestArchitectureNamesEveryPackage holds docs/architecture.md's package
// table to the packages on disk (the folders git knows with Go files that
// are not tests): each row has its three cells and names a package that
// exists, and every package has a row of its own, but for a package deeper
// than one under daemon/ or a top-level folder, which its nearest named
// parent's row covers (imaging covers imaging/internal/jpegdec).
// A row "X/…" names the packages under X. So a package added, moved or
// removed fails here until the page says so.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	root, files := repoFiles(t)
	pkgs := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") &&
			!strings.Contains(f, "node_modules/") && !strings.Contains(f, "testdata/") {
			pkgs[path.Dir(filepath.ToSlash(f))] = true
		}
	}

	rows := architectureRows(t, filepath.Join(root, "docs", "architecture.md"))
	named := map[string]bool{}
	for _, r := range rows {
		if len(r.cells) != 3 {
			t.Errorf("docs/architecture.md:%d: a row of the package table has %d cells, want 3 (package, holds, depends on)", r.line, len(r.cells))
		}
		name := r.pkg
		if tree, ok := strings.CutSuffix(name, "/…"); ok {
			found := false
			for p := range pkgs {
				found = found || strings.HasPrefix(p, tree+"/")
			}
			if !found {
				t.Errorf("docs/architecture.md:%d: %s names no package", r.line, name)
			}
			named[name] = true
			continue
		}
		if !pkgs[name] {
			t.Errorf("docs/architecture.md:%d: %s is not a package of the repository", r.line, name)
		}
		named[name] = true
	}

	var missing []string
	for p := range pkgs {
		if !covered(p, named) {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		t.Errorf("package %s has no row in docs/architecture.md's package table", p)
	}
}

// covered says whether the table names p: its own row, a "X/…" row over
// it, or the row of a parent when p is deeper than daemon/<area> or a
// top-level folder.
func covered(p string, named map[string]bool) bool {
	if named[p] {
		return true
	}
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if named[dir+"/…"] {
			return true
		}
		if named[dir] && dir != "daemon" {
			return true
		}
	}
	return false
}

// tableRow is a row of the package table: its package (the first cell's
// code, "." for the module's root) and its cells.
type tableRow struct {
	line  int
	pkg   string
	cells []string
}

// architectureRows reads the table under "## Packages".
func architectureRows(t *testing.T, file string) []tableRow {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []tableRow
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Packages"
			continue
		}
		if !in || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| package |") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		first := cells[0]
		name, _, _ := strings.Cut(strings.TrimPrefix(first, "`"), "`")
		if strings.HasPrefix(first, "`eventbox` (the module's root)") {
			name = "."
		}
		rows = append(rows, tableRow{line: n, pkg: name, cells: cells})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("docs/architecture.md has no package table under ## Packages")
	}
	return rows
}
