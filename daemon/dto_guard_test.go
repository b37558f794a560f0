package daemon

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"eventbox/internal/testtool"
)

const storePath = "eventbox/store"

// TestNoStoreRecordInAnAnswer is the structural guard of docs/decisions.md
// ("No answer holds a store record"): no answer carries a store record, so a field added
// to one (a hash, a token, a password) cannot reach a client unless a DTO
// names it. It type-checks the daemon's own files, and those of every
// package below it that writes answers (that imports daemon/web), and
// fails on
//
//   - a field of a JSON shape (a struct with a json tag) whose type is,
//     holds or embeds a type of package store (directly, through
//     pointers, slices, maps, generics or other structs), and
//   - a web.JSON call whose answer's type holds a store type, or whose
//     answer puts one into an interface value (map[string]any{"x": rec}),
//   - a store type assigned into a map of interface values (m["x"] = rec).
//
// The area packages whose handlers write answers are checked the same way.
func TestNoStoreRecordInAnAnswer(t *testing.T) {
	testtool.Unraced(t, "go/types over the module, no goroutines of the daemon")
	pkgs := answerPackages(t)
	// One importer for every package: one `go list -export` instead of
	// one for each package (a second or more each).
	fset := token.NewFileSet()
	imp := exportImporter(t, fset, pkgs)
	for _, pkg := range pkgs {
		t.Run(pkg.path, func(t *testing.T) {
			files := daemonFiles(t, fset, pkg.dir)
			conf := types.Config{Importer: imp}
			info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
			if _, err := conf.Check(pkg.path, fset, files, info); err != nil {
				t.Fatalf("type-checking %s: %v", pkg.path, err)
			}
			for _, p := range storeInAnswers(fset, files, info) {
				t.Error(p)
			}
		})
	}
}

// answerPackage is a package the guard checks.
type answerPackage struct{ path, dir string }

// answerPackages lists the daemon and the packages below it that import
// daemon/web (the areas that answer routes).
func answerPackages(t *testing.T) []answerPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}={{.Dir}}={{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("listing the daemon's packages: %v", err)
	}
	var pkgs []answerPackage
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "=", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "eventbox/daemon" || slices.Contains(strings.Fields(parts[2]), "eventbox/daemon/web") {
			pkgs = append(pkgs, answerPackage{path: parts[0], dir: parts[1]})
		}
	}
	if len(pkgs) < 2 {
		t.Fatalf("found only %v to check", pkgs)
	}
	return pkgs
}

// exportImporter imports the dependencies of pkgs from the compiler's
// export data, which `go list -export` finds in (or adds to) the build
// cache: much faster than type-checking them from source. `go test` puts
// its own go command first on PATH.
func exportImporter(t *testing.T, fset *token.FileSet, pkgs []answerPackage) types.Importer {
	t.Helper()
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}
	for _, p := range pkgs {
		args = append(args, p.path)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("listing the dependencies of the answering packages: %v", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok && file != "" {
			exports[path] = file
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// daemonFiles parses the package's non-test files in dir that this build
// selects (build tags).
func daemonFiles(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatalf("reading the package in %s: %v", dir, err)
	}
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		files = append(files, f)
	}
	return files
}

// storeInAnswers lists the problems found in files.
func storeInAnswers(fset *token.FileSet, files []*ast.File, info *types.Info) []string {
	var problems []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.StructType:
				if !hasJSONTag(n) {
					return true
				}
				for _, fld := range n.Fields.List {
					if path := storeTypeIn(info.TypeOf(fld.Type), nil); path != "" {
						problems = append(problems, fset.Position(fld.Pos()).String()+": a JSON shape holds "+path+"; answer a DTO built field by field")
					}
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "web.JSON" && len(n.Args) == 4 {
					if path := storeTypeIn(info.TypeOf(n.Args[3]), nil); path != "" {
						problems = append(problems, fset.Position(n.Pos()).String()+": web.JSON answers "+path+"; answer a DTO built field by field")
					}
					// An answer built of interface values (map[string]any,
					// []any) hides its pieces' types: check each piece.
					ast.Inspect(n.Args[3], func(n ast.Node) bool {
						if lit, ok := n.(*ast.CompositeLit); ok {
							for _, v := range intoInterfaces(lit, info) {
								if path := storeTypeIn(info.TypeOf(v), nil); path != "" {
									problems = append(problems, fset.Position(v.Pos()).String()+": an answer holds "+path+"; answer a DTO built field by field")
								}
							}
						}
						return true
					})
				}
			case *ast.AssignStmt:
				// m[k] = record, where m's values are interfaces.
				for i, lhs := range n.Lhs {
					ix, ok := lhs.(*ast.IndexExpr)
					if !ok || i >= len(n.Rhs) {
						continue
					}
					if m, ok := under(info.TypeOf(ix.X)).(*types.Map); ok && types.IsInterface(m.Elem()) {
						if path := storeTypeIn(info.TypeOf(n.Rhs[i]), nil); path != "" {
							problems = append(problems, fset.Position(n.Rhs[i].Pos()).String()+": a map of interface values holds "+path+"; answer a DTO built field by field")
						}
					}
				}
			}
			return true
		})
	}
	return problems
}

func under(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// intoInterfaces returns the values of lit that go into interface-typed
// places: a map's or slice's interface elements, a struct's interface
// fields.
func intoInterfaces(lit *ast.CompositeLit, info *types.Info) []ast.Expr {
	var out []ast.Expr
	switch lt := under(info.TypeOf(lit)).(type) {
	case *types.Map:
		if types.IsInterface(lt.Elem()) {
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					out = append(out, kv.Value)
				}
			}
		}
	case *types.Slice:
		if types.IsInterface(lt.Elem()) {
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					e = kv.Value
				}
				out = append(out, e)
			}
		}
	case *types.Struct:
		for i, e := range lit.Elts {
			var f *types.Var
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					for j := range lt.NumFields() {
						if lt.Field(j).Name() == id.Name {
							f = lt.Field(j)
						}
					}
				}
				e = kv.Value
			} else if i < lt.NumFields() {
				f = lt.Field(i)
			}
			if f != nil && types.IsInterface(f.Type()) {
				out = append(out, e)
			}
		}
	}
	return out
}

func hasJSONTag(st *ast.StructType) bool {
	for _, f := range st.Fields.List {
		if f.Tag != nil && strings.Contains(f.Tag.Value, `json:"`) {
			return true
		}
	}
	return false
}

// storeTypeIn returns the first store type t is or holds, "" if none.
func storeTypeIn(t types.Type, seen map[types.Type]bool) string {
	if t == nil {
		return ""
	}
	if seen == nil {
		seen = map[types.Type]bool{}
	}
	if seen[t] {
		return ""
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil && obj.Pkg().Path() == storePath {
			return t.String()
		}
		if args := t.TypeArgs(); args != nil {
			for i := range args.Len() {
				if p := storeTypeIn(args.At(i), seen); p != "" {
					return p
				}
			}
		}
		return storeTypeIn(t.Underlying(), seen)
	case *types.Alias:
		return storeTypeIn(types.Unalias(t), seen)
	case *types.Pointer:
		return storeTypeIn(t.Elem(), seen)
	case *types.Slice:
		return storeTypeIn(t.Elem(), seen)
	case *types.Array:
		return storeTypeIn(t.Elem(), seen)
	case *types.Map:
		if p := storeTypeIn(t.Key(), seen); p != "" {
			return p
		}
		return storeTypeIn(t.Elem(), seen)
	case *types.Struct:
		for i := range t.NumFields() {
			if p := storeTypeIn(t.Field(i).Type(), seen); p != "" {
				return p
			}
		}
	}
	return ""
}
