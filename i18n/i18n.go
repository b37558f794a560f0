package i18n

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"eventbox/assets"
)

// Reference is the code of the language every other falls back to and
// whose file holds every key.
const Reference = "en"

// Catalogue is every language's texts, read once from the catalogue files.
// It is never changed after [Load], so it is safe for concurrent use.
type Catalogue struct {
	langs map[string]*Language
	codes []string
}

// Language is one language's texts. Its lookups fall back to the
// reference language's texts, then to the key.
type Language struct {
	code     string
	name     string
	sections map[string]map[string]string
	fallback *Language
}

// Load reads the catalogue from fsys, whose *.json files are the
// languages, each named by its code. It fails on a file that is not an
// object of sections of texts, a language without a meta.name, or a
// catalogue without the reference language.
func Load(fsys fs.FS) (*Catalogue, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, fmt.Errorf("listing the language files: %w", err)
	}
	c := &Catalogue{langs: map[string]*Language{}}
	for _, name := range names {
		code := strings.TrimSuffix(name, ".json")
		if !validCode(code) {
			continue // index.json and other files that name no language
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("reading language %s: %w", code, err)
		}
		var sections map[string]map[string]string
		if err := json.Unmarshal(b, &sections); err != nil {
			return nil, fmt.Errorf("reading language %s: %w", code, err)
		}
		l := &Language{code: code, name: sections["meta"]["name"], sections: sections}
		if l.name == "" {
			return nil, fmt.Errorf("reading language %s: meta.name is missing", code)
		}
		c.langs[code] = l
		c.codes = append(c.codes, code)
	}
	ref, ok := c.langs[Reference]
	if !ok {
		return nil, fmt.Errorf("reading the catalogue: no %s.json, the reference language", Reference)
	}
	for _, l := range c.langs {
		if l != ref {
			l.fallback = ref
		}
	}
	// In the order of meta.order, then of the codes; a language without a
	// meta.order comes after those with one.
	order := func(code string) int {
		n, err := strconv.Atoi(c.langs[code].sections["meta"]["order"])
		if err != nil {
			return math.MaxInt
		}
		return n
	}
	slices.SortFunc(c.codes, func(a, b string) int {
		if d := cmp.Compare(order(a), order(b)); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return c, nil
}

// validCode tells whether s is a language code a file can be named by: two
// or three lowercase letters, optionally followed by "-" and a region or
// script of two to four letters or digits (pt-br, zh-hant).
func validCode(s string) bool {
	base, sub, hasSub := strings.Cut(s, "-")
	if len(base) < 2 || len(base) > 3 || strings.Trim(base, "abcdefghijklmnopqrstuvwxyz") != "" {
		return false
	}
	if !hasSub {
		return true
	}
	return len(sub) >= 2 && len(sub) <= 4 && strings.Trim(sub, "abcdefghijklmnopqrstuvwxyz0123456789") == ""
}

// embedded is the catalogue of the binary, read on first use. Like the
// HEIC decoder's module it is made once and never changed.
var embedded = sync.OnceValues(func() (*Catalogue, error) {
	sub, err := fs.Sub(assets.Web(), "locales")
	if err != nil {
		return nil, fmt.Errorf("opening the embedded catalogue: %w", err)
	}
	return Load(sub)
})

// Embedded returns the catalogue the binary carries (assets/web/locales).
// It panics if that catalogue cannot be read, which TestEmbeddedCatalogue
// rules out before a release.
func Embedded() *Catalogue {
	c, err := embedded()
	if err != nil {
		panic(err)
	}
	return c
}

// Codes returns the codes of the languages in the order their files'
// meta.order gives (en, fr, it, es), then by code. It returns a new slice on every call.
func (c *Catalogue) Codes() []string { return slices.Clone(c.codes) }

// Has tells whether the catalogue has the language code.
func (c *Catalogue) Has(code string) bool { _, ok := c.langs[code]; return ok }

// Lang returns the language code, or the reference language when the
// catalogue has no such language ("" included).
func (c *Catalogue) Lang(code string) *Language {
	if l, ok := c.langs[code]; ok {
		return l
	}
	return c.langs[Reference]
}

// Code is the language's code (fr).
func (l *Language) Code() string { return l.code }

// Name is the language's name in itself (Français).
func (l *Language) Name() string { return l.name }

// Text returns the text of key, written "section.key" ("mail.hello"):
// the language's own, else the reference language's, else the key itself.
func (l *Language) Text(key string) string {
	section, k, _ := strings.Cut(key, ".")
	for x := l; x != nil; x = x.fallback {
		if s, ok := x.sections[section][k]; ok {
			return s
		}
	}
	return key
}

// Format returns the text of key as [Language.Text] does, with its
// {name} blanks filled from vars, given as name, value pairs, and its
// plural blanks ({n, plural, one {# photo} other {# photos}}) given the
// form of the language's plural category for the value; a blank vars
// does not name stays as it is.
func (l *Language) Format(key string, vars ...string) string {
	return Fill(l.plurals(l.Text(key), vars), vars...)
}

// Fill fills the {name} blanks of s from vars, given as name, value
// pairs, in one pass: a value is never read for blanks itself.
func Fill(s string, vars ...string) string {
	if len(vars) == 0 || !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		name, found := s[i+1:i+j], false
		for v := 0; v+1 < len(vars); v += 2 {
			if vars[v] == name {
				b.WriteString(vars[v+1])
				found = true
				break
			}
		}
		if !found {
			b.WriteString(s[i : i+j+1])
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// Section returns a copy of the texts of one section in the language's
// own file, without the fallback.
func (l *Language) Section(section string) map[string]string {
	out := make(map[string]string, len(l.sections[section]))
	for k, v := range l.sections[section] {
		out[k] = v
	}
	return out
}

// Sections returns the names of the sections of the language's file,
// sorted.
func (l *Language) Sections() []string {
	out := make([]string, 0, len(l.sections))
	for s := range l.sections {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// sectionPath is where [Web] serves a language's section.
func sectionPath(code, section string) string {
	return path.Join("locales", code, section+".json")
}
