package i18n

import (
	"strings"
	"testing"
	"unicode"
)

// frenchSpaceFaults lists what is wrong before each French high mark
// (: ; ! ?) of s, as "a plain space before ?" or "no space before :".
// Right is a non-breaking space (U+00A0) or a narrow one (U+202F). A mark
// inside a word (a URL's "https://", a port's ":5006", a time's "10:30",
// a query's "?lang=fr") has no space on either side and is not French
// punctuation: it stays.
func frenchSpaceFaults(s string) []string {
	r := []rune(s)
	var out []string
	for i, c := range r {
		if !strings.ContainsRune(":;!?", c) {
			continue
		}
		var before, after rune
		if i > 0 {
			before = r[i-1]
		}
		if i+1 < len(r) {
			after = r[i+1]
		}
		switch {
		case before == '\u00a0' || before == '\u202f':
		case before == ' ':
			out = append(out, "a plain space before "+string(c))
		case before == 0 || after == 0 || unicode.IsSpace(after) || strings.ContainsRune(`"»)!?`, after):
			out = append(out, "no space before "+string(c))
		}
	}
	return out
}

// TestFrenchSpacesBeforeHighMarks: French puts a non-breaking space before
// ":", ";", "!" and "?" ("Code d'accès : …", "Supprimer ?"), so the mark
// never starts a line; every French text of every page, mail and sign
// has one.
func TestFrenchSpacesBeforeHighMarks(t *testing.T) {
	fr := Embedded().Lang("fr")
	for _, s := range fr.Sections() {
		for k, v := range fr.Section(s) {
			for _, f := range frenchSpaceFaults(v) {
				t.Errorf("fr %s.%q: %s in %q; want a non-breaking space (U+00A0)", s, k, f, v)
			}
		}
	}
}

// TestFrenchSpaceFaults: the rule's cases, a URL's and a time's colon
// among them.
func TestFrenchSpaceFaults(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Code d'accès\u00a0: 1234", ""},
		{"Supprimer\u202f?", ""},
		{"Code d'accès : 1234", "a plain space before :"},
		{"Code d'accès: 1234", "no space before :"},
		{"Merci!", "no space before !"},
		{"Vraiment?!", "no space before ?, no space before !"},
		{"Envoyer ; puis", "a plain space before ;"},
		{"à 10:30", ""},
		{"https://nas.local:5006/", ""},
		{"/admin?lang=fr", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := strings.Join(frenchSpaceFaults(tt.text), ", ")
			if got != tt.want {
				t.Errorf("fault = %q, want %q", got, tt.want)
			}
		})
	}
}
