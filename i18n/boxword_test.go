package i18n

import (
	"regexp"
	"testing"
)

// TestEachLanguageCallsTheBoxOneName: each language's pages call the box
// by one word everywhere, as a careful product in that language would:
// French "boîte" (never "la box" or "boîtier"), Italian "il box" (never
// "scatola", nor "la box" of another gender), Spanish "caja" (never
// "box", the product's name eventbox aside).
func TestEachLanguageCallsTheBoxOneName(t *testing.T) {
	tests := []struct {
		lang  string
		other *regexp.Regexp
	}{
		{"fr", regexp.MustCompile(`(?i)\b(?:la|cette|une|votre|autre) box\b|boîtier`)},
		{"it", regexp.MustCompile(`(?i)scatol|\b(?:la|della|alla|nella|sulla|dalla|questa|una|sua|tua|vostra|nuova) box\b`)},
		{"es", regexp.MustCompile(`(?i)\bbox\b`)},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			l := Embedded().Lang(tt.lang)
			for _, s := range l.Sections() {
				for k, v := range l.Section(s) {
					if m := tt.other.FindString(v); m != "" {
						t.Errorf("%s.%s says %q: %s", s, k, m, v)
					}
				}
			}
		})
	}
}
