package docs

import (
	"bufio"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
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

// TestArchitectureDependsOnGoList holds the table's "depends on" cells to
// what `go list` says the packages import: every package of the module a
// cell names exists and is a dependency of its row's package (of its
// code or of its tests), and every package of the module the row's
// package imports is named in its cell (or a tree over it is), but for a
// row that says it depends on "every package below" or "everything
// below" and the row's own sub-packages. So a move or a new import fails
// here until the table says so.
func TestArchitectureDependsOnGoList(t *testing.T) {
	root, _ := repoFiles(t)
	const module = "eventbox"
	cmd := exec.Command("go", "list", "-f",
		`{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// rel is an import path of the module as the table writes it.
	rel := func(p string) (string, bool) {
		if p == module {
			return ".", true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	type pkgInfo struct{ imports, deps map[string]bool }
	pkgs := map[string]pkgInfo{}
	tops := map[string]bool{".": true}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		if len(parts) != 3 {
			continue
		}
		name, ok := rel(parts[0])
		if !ok {
			continue
		}
		info := pkgInfo{imports: map[string]bool{}, deps: map[string]bool{}}
		for _, p := range strings.Fields(parts[1]) {
			if r, ok := rel(p); ok {
				info.imports[r] = true
			}
		}
		for _, p := range strings.Fields(parts[2]) {
			if r, ok := rel(p); ok {
				info.deps[r] = true
			}
		}
		pkgs[name] = info
		top, _, _ := strings.Cut(name, "/")
		tops[top] = true
	}
	// exists says whether name is a package or a folder over packages.
	exists := func(name string) bool {
		if _, ok := pkgs[name]; ok {
			return true
		}
		for p := range pkgs {
			if strings.HasPrefix(p, name+"/") {
				return true
			}
		}
		return false
	}
	under := func(p, tree string) bool { return p == tree || strings.HasPrefix(p, tree+"/") }
	code := regexp.MustCompile("`([^`]+)`")
	for _, r := range architectureRows(t, filepath.Join(root, "docs", "architecture.md")) {
		if len(r.cells) != 3 {
			continue // TestArchitectureNamesEveryPackage says so
		}
		var named []string
		for _, m := range code.FindAllStringSubmatch(r.cells[2], -1) {
			name := strings.TrimSuffix(strings.TrimSuffix(m[1], "…"), "/")
			if name == module {
				name = "." // the module's root
			}
			top, _, _ := strings.Cut(name, "/")
			if !tops[top] {
				continue // not a package of the module: a library, a file
			}
			if !exists(name) {
				t.Errorf("docs/architecture.md:%d: %s depends on %s, which is not a package of the module", r.line, r.pkg, name)
				continue
			}
			named = append(named, name)
		}
		info, ok := pkgs[r.pkg]
		if !ok {
			continue // a tree's row, or TestArchitectureNamesEveryPackage's failure
		}
		for _, n := range named {
			found := false
			for d := range info.deps {
				found = found || under(d, n)
			}
			if !found {
				t.Errorf("docs/architecture.md:%d: %s does not depend on %s (go list)", r.line, r.pkg, n)
			}
		}
		if strings.HasPrefix(r.cells[2], "every") {
			continue
		}
		var missing []string
		for imp := range info.imports {
			if under(imp, r.pkg) && r.pkg != "." {
				continue
			}
			if !slices.ContainsFunc(named, func(n string) bool { return under(imp, n) }) {
				missing = append(missing, imp)
			}
		}
		sort.Strings(missing)
		for _, m := range missing {
			t.Errorf("docs/architecture.md:%d: %s imports %s, which its row's \"depends on\" does not name", r.line, r.pkg, m)
		}
	}
}
