package i18n

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// root is the module's root, from this package's folder.
const root = ".."

// gaps lists what a catalogue lacks or has too much: a key of the
// reference language another language lacks, a key another language has
// that the reference does not, and a text with a {blank} the reference's
// has not (nothing would fill it; leaving one out is fine: "1er {month}").
func gaps(c *Catalogue) []string {
	var out []string
	ref := c.langs[Reference]
	for _, code := range c.codes {
		l := c.langs[code]
		if l == ref {
			continue
		}
		for _, s := range ref.Sections() {
			for k, v := range ref.sections[s] {
				got, ok := l.sections[s][k]
				switch {
				case s == "meta":
				case !ok:
					out = append(out, code+": "+s+"."+k+" is missing")
				case !subset(blanks(got), blanks(v)):
					out = append(out, code+": "+s+"."+k+" has blanks "+strings.Join(blanks(got), ",")+", English has "+strings.Join(blanks(v), ","))
				}
			}
		}
		for _, s := range l.Sections() {
			for k := range l.sections[s] {
				if _, ok := ref.sections[s][k]; !ok && s != "meta" {
					out = append(out, code+": "+s+"."+k+" is not in "+Reference+".json")
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// subset tells whether every name of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

var blankRE = regexp.MustCompile(`\{(\w+)\}`)

// blanks are the names of the {blanks} of s, sorted.
func blanks(s string) []string {
	var out []string
	for _, m := range blankRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

func TestEmbeddedCatalogueIsWhole(t *testing.T) {
	c, err := embedded()
	if err != nil {
		t.Fatalf("the embedded catalogue: %v", err)
	}
	if got := c.Codes(); len(got) < 2 || got[0] != Reference {
		t.Errorf("languages %v: want the reference first and at least one other", got)
	}
	for _, g := range gaps(c) {
		t.Error(g)
	}
	for _, code := range c.Codes() {
		for _, s := range c.Lang(code).Sections() {
			if _, ok := sectionFiles[s]; !ok && s != "meta" {
				t.Errorf("%s.json: section %q is read by no one this test knows; add it to sectionFiles", code, s)
			}
		}
	}
}

func TestGapsAreFound(t *testing.T) {
	en := `{"meta":{"name":"English"},"mail":{"hello":"Hello {name},","bye":"Bye"}}`
	tests := []struct {
		name string
		fr   string
		want []string
	}{
		{"whole", `{"meta":{"name":"Français"},"mail":{"hello":"Bonjour {name},","bye":"Salut"}}`, nil},
		{"a key missing", `{"meta":{"name":"Français"},"mail":{"hello":"Bonjour {name},"}}`, []string{"fr: mail.bye is missing"}},
		{"a key too many", `{"meta":{"name":"Français"},"mail":{"hello":"Bonjour {name},","bye":"Salut","hi":"Coucou"}}`, []string{"fr: mail.hi is not in en.json"}},
		{"a blank renamed", `{"meta":{"name":"Français"},"mail":{"hello":"Bonjour {nom},","bye":"Salut"}}`, []string{"fr: mail.hello has blanks nom, English has name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(fstest.MapFS{"en.json": {Data: []byte(en)}, "fr.json": {Data: []byte(tt.fr)}})
			if err != nil {
				t.Fatal(err)
			}
			if got := gaps(c); !slices.Equal(got, tt.want) {
				t.Errorf("gaps = %q, want %q", got, tt.want)
			}
		})
	}
}

// sectionFiles says where each section's keys are used: the JS files
// (globs under assets/web/js) of a page's section, or "go" for the texts
// Go code reads by their full key ("mail.hello") anywhere in the module.
var sectionFiles = map[string][]string{
	"guest":     {"[^aw]*.js", "album-*.js"},
	"console":   {"admin*.js"},
	"wall":      {"wall.js"},
	"setup":     {"setup.js"},
	"portal":    {"portal.js"},
	"mail":      {"go"},
	"signs":     {"go"},
	"guestbook": {"go"},
	"dates":     {"go"},
}

// literals are the string literals of a source, unescaped, and the ones
// that start a concatenation or a template ('filter_' + f, `err_${x}`),
// which use every key they begin.
type literals struct {
	whole    map[string]bool
	prefixes []string
}

func (l *literals) used(key string) bool {
	if l.whole[key] {
		return true
	}
	for _, p := range l.prefixes {
		if p != "" && strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

var goLiteralRE = regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"(\s*\+)?`)

// scanJS reads the string literals of JS source: each quoted string and
// each piece of a template literal between its blanks, unescaped; a
// quoted string followed by + and a template's piece before a blank are
// prefixes. It knows comments and nested templates; a regular expression
// literal is read as code.
func scanJS(src string, l *literals) {
	type frame struct{ braces int } // a template's ${...}: the braces open in it
	var stack []frame
	i := 0
	after := func(j int) bool { // is j followed by a +?
		rest := strings.TrimLeft(src[j:], " ")
		return strings.HasPrefix(rest, "+") && !strings.HasPrefix(rest, "++")
	}
	template := func() { // src[i] is just past a backtick or a closing }
		var b strings.Builder
		for i < len(src) {
			switch c := src[i]; {
			case c == '\\' && i+1 < len(src):
				b.WriteString(jsUnescape(src[i : i+2]))
				i += 2
			case c == '`':
				i++
				l.whole[b.String()] = true
				return
			case c == '$' && i+1 < len(src) && src[i+1] == '{':
				i += 2
				l.prefixes = append(l.prefixes, b.String())
				stack = append(stack, frame{})
				return
			default:
				b.WriteByte(c)
				i++
			}
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "//"):
			if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(src)
			}
		case strings.HasPrefix(src[i:], "/*"):
			if j := strings.Index(src[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(src)
			}
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return
			}
			s := jsUnescape(src[i+1 : j])
			l.whole[s] = true
			if after(j + 1) {
				l.prefixes = append(l.prefixes, s)
			}
			i = j + 1
		case c == '`':
			i++
			template()
		case c == '{' && len(stack) > 0:
			stack[len(stack)-1].braces++
			i++
		case c == '}' && len(stack) > 0:
			i++
			if stack[len(stack)-1].braces > 0 {
				stack[len(stack)-1].braces--
			} else {
				stack = stack[:len(stack)-1]
				template()
			}
		default:
			i++
		}
	}
}

func jsUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// jsLiterals reads the literals of the JS files matching globs.
func jsLiterals(t *testing.T, globs []string) *literals {
	t.Helper()
	l := &literals{whole: map[string]bool{}}
	dir := filepath.Join(root, "assets", "web", "js")
	for _, g := range globs {
		names, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil || len(names) == 0 {
			t.Fatalf("no JS file matches %s (%v)", g, err)
		}
		for _, name := range names {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			scanJS(string(src), l)
		}
	}
	return l
}

// goLiterals reads the literals of the module's Go files but tests and
// this package's own.
func goLiterals(t *testing.T) *literals {
	t.Helper()
	l := &literals{whole: map[string]bool{}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != root || p == "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || filepath.Dir(p) == "." {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range goLiteralRE.FindAllStringSubmatch(string(src), -1) {
			s, err := strconv.Unquote(`"` + m[1] + `"`)
			if err != nil {
				continue
			}
			if m[2] != "" {
				l.prefixes = append(l.prefixes, s)
			} else {
				l.whole[s] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the Go sources: %v", err)
	}
	return l
}

func TestEveryKeyIsUsed(t *testing.T) {
	c, err := embedded()
	if err != nil {
		t.Fatal(err)
	}
	ref := c.Lang(Reference)
	goLits := goLiterals(t)
	for _, s := range ref.Sections() {
		files, ok := sectionFiles[s]
		if !ok {
			continue // meta, or a section TestEmbeddedCatalogueIsWhole reports
		}
		lits, full := goLits, true
		if !slices.Equal(files, []string{"go"}) {
			lits, full = jsLiterals(t, files), false
		}
		var unused []string
		for k := range ref.sections[s] {
			key := k
			if full {
				key = s + "." + k
			}
			if !lits.used(key) {
				unused = append(unused, key)
			}
		}
		slices.Sort(unused)
		for _, k := range unused {
			t.Errorf("section %s: key %q is used nowhere (%v); remove it from every language or use it", s, k, files)
		}
	}
}

func TestWebServesTheSectionsAndTheLanguages(t *testing.T) {
	ui := fstest.MapFS{
		"index.html":      {Data: []byte("<!doctype html>")},
		"locales/en.json": {Data: []byte(`{"meta":{"name":"English","order":"10"},"guest":{"hi":"Hi {name}"}}`)},
		"locales/fr.json": {Data: []byte(`{"meta":{"name":"Français","order":"20"},"guest":{"hi":"Salut {name}"}}`)},
		"locales/de.json": {Data: []byte(`{"meta":{"name":"Deutsch"},"guest":{}}`)},
	}
	web, err := Web(ui)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"index.html", "<!doctype html>"},
		{IndexPath, `{"en":"English","fr":"Français","de":"Deutsch"}`},
		{"locales/fr/guest.json", `{"hi":"Salut {name}"}`},
		{"locales/de/guest.json", `{}`},
	}
	for _, tt := range tests {
		got, err := fs.ReadFile(web, tt.path)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	c, _ := Load(fstest.MapFS{"en.json": ui["locales/en.json"], "fr.json": ui["locales/fr.json"]})
	if got := c.Lang("fr").Format("guest.hi", "name", "{name}"); got != "Salut {name}" {
		t.Errorf("Format = %q: a value is filled once", got)
	}
	if got := c.Lang("xx").Text("guest.hi"); got != "Hi {name}" {
		t.Errorf("unknown language reads %q, want English", got)
	}
	if got := c.Lang("fr").Text("guest.nothing"); got != "guest.nothing" {
		t.Errorf("a missing key reads %q, want the key", got)
	}
}
