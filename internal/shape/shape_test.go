// Package shape holds tests of the code's own shape: the bounds that keep
// the daemon split by area (docs/architecture.md).
package shape

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxMethods is the most methods any type of the module may have: past it
// a type holds more than one area's work.
const maxMethods = 40

// maxDaemonLines is the most non-test lines the daemon package itself may
// have: the wiring (New, the route table, the middleware), not the areas.
const maxDaemonLines = 4000

// root is the module's root, two levels up from this package.
const root = "../.."

// goFiles calls fn for every non-test Go file of the module (generated
// trees and testdata left out).
func goFiles(t *testing.T, fn func(path string)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == "node_modules" || (strings.HasPrefix(name, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			fn(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoTypeHasMoreThan40Methods counts the methods declared on each
// named type, package by package.
func TestNoTypeHasMoreThan40Methods(t *testing.T) {
	counts := map[string]int{}
	fset := token.NewFileSet()
	goFiles(t, func(path string) {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			typ := fd.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			if ix, ok := typ.(*ast.IndexExpr); ok {
				typ = ix.X
			}
			if ix, ok := typ.(*ast.IndexListExpr); ok {
				typ = ix.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				counts[filepath.Dir(path)+"."+id.Name]++
			}
		}
	})
	type entry struct {
		name string
		n    int
	}
	var all []entry
	for name, n := range counts {
		all = append(all, entry{name, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n })
	for _, e := range all {
		if e.n > maxMethods {
			t.Errorf("%s has %d methods, more than %d", strings.TrimPrefix(e.name, root+"/"), e.n, maxMethods)
		}
	}
	if len(all) > 0 {
		t.Logf("largest type: %s, %d methods", strings.TrimPrefix(all[0].name, root+"/"), all[0].n)
	}
}

// TestDaemonPackageStaysSmall counts the daemon package's own non-test
// lines (its sub-packages are the areas and are not counted).
func TestDaemonPackageStaysSmall(t *testing.T) {
	dir := filepath.Join(root, "daemon")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines++
		}
		f.Close()
	}
	if lines > maxDaemonLines {
		t.Errorf("package daemon has %d non-test lines, more than %d", lines, maxDaemonLines)
	}
	t.Logf("package daemon: %d non-test lines", lines)
}

// maxStepLines is the most lines daemon.New and each of the steps it
// calls may have: past it the order in which the server is built is no
// longer something a reader follows.
const maxStepLines = 100

// TestNewIsBuiltInShortSteps measures daemon.New and every function or
// method of package daemon it calls directly (its steps: core, services,
// areas). The route table (routes) is a list read line by line, not a
// step of the build, and is left out.
func TestNewIsBuiltInShortSteps(t *testing.T) {
	dir := filepath.Join(root, "daemon")
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]*ast.FuncDecl{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	newFn := funcs["New"]
	if newFn == nil {
		t.Fatal("daemon.New not found")
	}
	steps := map[string]bool{"New": true}
	// A step is any function of the package New names, called or listed
	// (s.buildCore in a list of steps is one).
	ast.Inspect(newFn.Body, func(n ast.Node) bool {
		var name string
		switch x := n.(type) {
		case *ast.Ident:
			name = x.Name
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name == "s" {
				name = x.Sel.Name
			}
		}
		if funcs[name] != nil && name != "routes" {
			steps[name] = true
		}
		return true
	})
	longest, longestName := 0, ""
	for name := range steps {
		fd := funcs[name]
		n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
		if n > maxStepLines {
			t.Errorf("daemon.%s, a step of New, has %d lines, more than %d", name, n, maxStepLines)
		}
		if n > longest {
			longest, longestName = n, name
		}
	}
	t.Logf("New's steps: %d; longest: %s, %d lines", len(steps), longestName, longest)
}

// eventScopeWrapper is the one file that resolves a console route's :id
// event: the route table's event wrapper hands it to the handler.
const eventScopeWrapper = "daemon/routes.go"

// TestOnlyTheRouteTableResolvesTheEvent finds calls of AdminEvent (the
// per-event scope, visitor.Resolver.AdminEvent) outside the route
// table's wrapper: a handler that looks its event up itself hides part
// of its route's access rule from routes.go.
func TestOnlyTheRouteTableResolvesTheEvent(t *testing.T) {
	fset := token.NewFileSet()
	calls := 0
	goFiles(t, func(path string) {
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+"/"))
		if rel == eventScopeWrapper || strings.HasPrefix(rel, "daemon/visitor/") {
			return
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "AdminEvent" {
					calls++
					t.Errorf("%s: calls AdminEvent; give the route the event wrapper in %s instead", fset.Position(call.Pos()), eventScopeWrapper)
				}
			}
			return true
		})
	})
	t.Logf("AdminEvent calls outside %s: %d", eventScopeWrapper, calls)
}

// layers are the module's packages from the bottom up: a package may
// import packages of its own layer and of the layers below it, never of
// a layer above. A pattern names a package ("daemon/web") or, ending in
// "/...", the package and everything under it. Every package of the
// module is in one layer (a new package is placed here). This is the
// layering of docs/architecture.md, written once.
var layers = []struct {
	name     string
	packages []string
}{
	{"libraries outside the daemon", []string{"", "album", "api", "assets", "booth", "docs", "i18n", "imaging/...", "internal/...",
		"netsetup", "probe", "qr", "s3store/...", "secret", "signage", "text", "webdav"}},
	{"store", []string{"store/..."}},
	{"the daemon's libraries", []string{"daemon/clock", "daemon/cookie", "daemon/mail/mailtest", "daemon/metrics",
		"daemon/passwords", "daemon/printing/cups", "daemon/printing/cupstest", "daemon/service"}},
	{"the access rules and the answers' shapes", []string{"daemon/access", "daemon/dto"}},
	{"the HTTP kernel and who asks", []string{"daemon/web", "daemon/visitor", "daemon/mediafile"}},
	{"services", []string{"daemon/albums", "daemon/archive", "daemon/backupzip", "daemon/backups", "daemon/ingest",
		"daemon/jobs", "daemon/mail", "daemon/outbox", "daemon/photos", "daemon/storage", "daemon/update", "daemon/variants"}},
	// The areas are the packages under daemon/api; those that also hold a
	// background service or a job kind of their own stay daemon/<name>.
	{"areas", []string{"daemon/api/...", "daemon/boothapi", "daemon/cloudexport", "daemon/live", "daemon/network",
		"daemon/printing", "daemon/resumable", "daemon/setup"}},
	{"the daemon's wiring", []string{"daemon"}},
	{"commands, packaging and load tools", []string{"cmd/...", "daemon/daemontest", "daemon/internal/...", "daemon/scenarios", "e2e/...", "netsetup/nmtest",
		"packaging/...", "tools/..."}},
}

// layerExceptions are the imports that still point up, each with why it
// is allowed for now. TestImportsPointDown fails when one of them is gone
// (remove it here) as much as when a new one appears.
var layerExceptions = map[string]string{}

// layerOf answers the index in layers of the package at dir (relative to
// the module's root, "" for the root), or -1.
func layerOf(dir string) int {
	found, best := -1, -1
	for i, l := range layers {
		for _, p := range l.packages {
			if sub, ok := strings.CutSuffix(p, "/..."); ok {
				if (dir == sub || strings.HasPrefix(dir, sub+"/")) && len(sub) > best {
					found, best = i, len(sub)
				}
			} else if dir == p && len(p)+1 > best {
				found, best = i, len(p)+1
			}
		}
	}
	return found
}

// TestImportsPointDown reads the imports of every non-test file and fails
// for one that points to a higher layer than its package's.
func TestImportsPointDown(t *testing.T) {
	const module = "eventbox"
	fset := token.NewFileSet()
	seen := map[string]bool{}
	up := 0
	goFiles(t, func(path string) {
		dir := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, root+"/")))
		if dir == "." {
			dir = ""
		}
		from := layerOf(dir)
		if from < 0 {
			t.Errorf("package %q is in no layer: place it in layers", dir)
			return
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			to := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			toLayer := layerOf(to)
			if toLayer <= from {
				continue
			}
			key := dir + " -> " + to
			if _, ok := layerExceptions[key]; ok {
				seen[key] = true
				continue
			}
			if !seen[key] {
				up++
				t.Errorf("%s (%s) imports %s (%s), a layer above it", dir, layers[from].name, to, layers[toLayer].name)
			}
			seen[key] = true
		}
	})
	for key := range layerExceptions {
		if !seen[key] {
			t.Errorf("the exception %q no longer happens: remove it from layerExceptions", key)
		}
	}
	t.Logf("imports pointing up: %d, and %d allowed exceptions", up, len(layerExceptions))
}

// untestedLines is the most non-test lines a package may have without a
// test file of its own: past it, its behaviour is only proven, if at all,
// through another package's tests.
const untestedLines = 300

// testTooling says whether the package at rel is code only tests and
// measurements run: a test kit (its name ends in "test": imagingtest,
// nmtest, mailtest, cupstest), the image benchmark command, or the agent
// make boxtest runs inside the emulated box. Their users are the tests
// that would test them.
func testTooling(rel string) bool {
	return strings.HasSuffix(rel, "test") || rel == "imaging/internal/imagebench" || rel == "packaging/boxtest/boxagent"
}

// TestEveryLargePackageHasTests counts each package's non-test lines and
// fails for one over untestedLines whose folder has no test file, test
// tooling aside.
func TestEveryLargePackageHasTests(t *testing.T) {
	lines := map[string]int{}
	goFiles(t, func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines[filepath.Dir(path)] += strings.Count(string(b), "\n")
	})
	var dirs []string
	for dir := range lines {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		if lines[dir] <= untestedLines || testTooling(rel) {
			continue
		}
		tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(tests) == 0 {
			t.Errorf("package %s has %d non-test lines and no test file", rel, lines[dir])
		}
	}
}

// TestDaemonKeepsOnlyItsWiringsTests fails on a test file in package
// daemon's folder that is not an internal test of the wiring (package
// daemon): the route-level scenarios live in daemon/scenarios.
func TestDaemonKeepsOnlyItsWiringsTests(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "daemon", "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		if file.Name.Name != "daemon" {
			t.Errorf("daemon/%s is package %s: route-level tests go in daemon/scenarios", filepath.Base(f), file.Name.Name)
		}
	}
}

// maxConfigFuncs is the most func fields a Config of an area or a service
// may have: past it the package reaches back into the wiring one function
// at a time where a small interface (live.Changes, guests.Variants) says
// what it needs.
const maxConfigFuncs = 5

// TestConfigsTakeFewFuncs counts the func-typed fields of every struct
// type whose name ends in Config in the packages below daemon/. The
// daemon's own Config is left out: its func fields are the operating
// system's hooks (clock, statfs, mounts, addresses, restart) that
// cmd/eventbox fills and tests fake.
func TestConfigsTakeFewFuncs(t *testing.T) {
	widest, widestN := []string{}, -1
	goFiles(t, func(path string) {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, "daemon/") || !strings.Contains(strings.TrimPrefix(rel, "daemon/"), "/") {
			return
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok || !strings.HasSuffix(ts.Name.Name, "Config") {
					continue
				}
				var funcs []string
				for _, field := range st.Fields.List {
					if _, ok := field.Type.(*ast.FuncType); ok {
						for _, n := range field.Names {
							funcs = append(funcs, n.Name)
						}
					}
				}
				if len(funcs) > maxConfigFuncs {
					t.Errorf("%s: %s has %d func fields, more than %d (%s): group what belongs together into a small interface",
						rel, ts.Name.Name, len(funcs), maxConfigFuncs, strings.Join(funcs, ", "))
				}
				name := filepath.ToSlash(filepath.Dir(rel)) + "." + ts.Name.Name + " (" + strings.Join(funcs, ", ") + ")"
				switch {
				case len(funcs) > widestN:
					widest, widestN = []string{name}, len(funcs)
				case len(funcs) == widestN:
					widest = append(widest, name)
				}
			}
		}
	})
	sort.Strings(widest)
	t.Logf("widest Configs: %d func fields: %s", widestN, strings.Join(widest, "; "))
}
