package i18n

import (
	"regexp"
	"testing"
)

// TestFrenchCallsTheBoxOneName: the French pages call the box "boîte"
// everywhere, never "la box" or "boîtier" on another screen.
func TestFrenchCallsTheBoxOneName(t *testing.T) {
	other := regexp.MustCompile(`(?i)\b(?:la|cette|une|votre|autre) box\b|boîtier`)
	fr := Embedded().Lang("fr")
	for _, s := range fr.Sections() {
		for k, v := range fr.Section(s) {
			if m := other.FindString(v); m != "" {
				t.Errorf("%s.%s says %q: %s", s, k, m, v)
			}
		}
	}
}
