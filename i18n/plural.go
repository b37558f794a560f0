package i18n

import (
	"regexp"
	"strconv"
	"strings"
)

// pluralRE is a plural blank, {n, plural, one {# photo} other {# photos}}:
// the name of a number, then a form per plural category (CLDR's one,
// few, many, other) or exact value (=0), # standing for the number.
var pluralRE = regexp.MustCompile(`\{(\w+), plural,((?:[^{}]|\{[^{}]*\})*)\}`)

// pluralFormRE is one form of a plural blank: its selector and text.
var pluralFormRE = regexp.MustCompile(`\s*(=\d+|\w+)\s*\{([^{}]*)\}`)

// PluralCategory is the CLDR plural category of the whole number n in the
// language code, as Intl.PluralRules gives it to the pages: French says
// "one" for 0 and 1, English, Italian and Spanish for 1 alone; every other
// count is "other" (Spanish's "many" is for millions, which the box never
// counts). An unknown language follows English.
func PluralCategory(code string, n int64) string {
	base, _, _ := strings.Cut(code, "-")
	switch base {
	case "fr", "pt":
		if n == 0 || n == 1 {
			return "one"
		}
	default:
		if n == 1 {
			return "one"
		}
	}
	return "other"
}

// plurals fills the plural blanks of s from vars in the language: the
// form of the value's category, else "other", with # its number.
func (l *Language) plurals(s string, vars []string) string {
	if !strings.Contains(s, ", plural,") {
		return s
	}
	return pluralRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := pluralRE.FindStringSubmatch(m)
		val, ok := "", false
		for v := 0; v+1 < len(vars); v += 2 {
			if vars[v] == sub[1] {
				val, ok = vars[v+1], true
				break
			}
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if !ok || err != nil {
			return m
		}
		forms := map[string]string{}
		for _, f := range pluralFormRE.FindAllStringSubmatch(sub[2], -1) {
			forms[f[1]] = f[2]
		}
		text, found := forms["="+val]
		if !found {
			text, found = forms[PluralCategory(l.code, n)]
		}
		if !found {
			text = forms["other"]
		}
		return strings.ReplaceAll(text, "#", val)
	})
}
