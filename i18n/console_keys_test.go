package i18n

import "testing"

// TestConsoleKeysAreTheirEnglish: every text of the console's section is
// keyed by its English, so the English console needs no catalogue at all
// (i18n.js loads none for it: t(key) is the key) and another language's
// console loads its own file only.
func TestConsoleKeysAreTheirEnglish(t *testing.T) {
	en := Embedded().Lang(Reference)
	for k, v := range en.Section("console") {
		if k != v {
			t.Errorf("console key %q reads %q in English: the key must be its English text (rename it in every language and where the console uses it)", k, v)
		}
	}
}
