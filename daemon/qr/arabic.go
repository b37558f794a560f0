package qr

// Arabic joining for captions drawn with fonts that have the Arabic
// presentation forms but no shaping engine to pick them: each letter is
// replaced by its isolated, final, initial or medial form, and lam-alef by
// its ligature.

// arabicForms lists a letter's presentation forms: isolated, final, and for
// dual-joining letters initial and medial (zero for right-joining ones).
type arabicForms [4]rune

var arabicLetters = map[rune]arabicForms{
	0x0621: {0xFE80, 0, 0, 0}, // hamza (does not join)
	0x0622: {0xFE81, 0xFE82, 0, 0},
	0x0623: {0xFE83, 0xFE84, 0, 0},
	0x0624: {0xFE85, 0xFE86, 0, 0},
	0x0625: {0xFE87, 0xFE88, 0, 0},
	0x0626: {0xFE89, 0xFE8A, 0xFE8B, 0xFE8C},
	0x0627: {0xFE8D, 0xFE8E, 0, 0},
	0x0628: {0xFE8F, 0xFE90, 0xFE91, 0xFE92},
	0x0629: {0xFE93, 0xFE94, 0, 0},
	0x062A: {0xFE95, 0xFE96, 0xFE97, 0xFE98},
	0x062B: {0xFE99, 0xFE9A, 0xFE9B, 0xFE9C},
	0x062C: {0xFE9D, 0xFE9E, 0xFE9F, 0xFEA0},
	0x062D: {0xFEA1, 0xFEA2, 0xFEA3, 0xFEA4},
	0x062E: {0xFEA5, 0xFEA6, 0xFEA7, 0xFEA8},
	0x062F: {0xFEA9, 0xFEAA, 0, 0},
	0x0630: {0xFEAB, 0xFEAC, 0, 0},
	0x0631: {0xFEAD, 0xFEAE, 0, 0},
	0x0632: {0xFEAF, 0xFEB0, 0, 0},
	0x0633: {0xFEB1, 0xFEB2, 0xFEB3, 0xFEB4},
	0x0634: {0xFEB5, 0xFEB6, 0xFEB7, 0xFEB8},
	0x0635: {0xFEB9, 0xFEBA, 0xFEBB, 0xFEBC},
	0x0636: {0xFEBD, 0xFEBE, 0xFEBF, 0xFEC0},
	0x0637: {0xFEC1, 0xFEC2, 0xFEC3, 0xFEC4},
	0x0638: {0xFEC5, 0xFEC6, 0xFEC7, 0xFEC8},
	0x0639: {0xFEC9, 0xFECA, 0xFECB, 0xFECC},
	0x063A: {0xFECD, 0xFECE, 0xFECF, 0xFED0},
	0x0641: {0xFED1, 0xFED2, 0xFED3, 0xFED4},
	0x0642: {0xFED5, 0xFED6, 0xFED7, 0xFED8},
	0x0643: {0xFED9, 0xFEDA, 0xFEDB, 0xFEDC},
	0x0644: {0xFEDD, 0xFEDE, 0xFEDF, 0xFEE0},
	0x0645: {0xFEE1, 0xFEE2, 0xFEE3, 0xFEE4},
	0x0646: {0xFEE5, 0xFEE6, 0xFEE7, 0xFEE8},
	0x0647: {0xFEE9, 0xFEEA, 0xFEEB, 0xFEEC},
	0x0648: {0xFEED, 0xFEEE, 0, 0},
	0x0649: {0xFEEF, 0xFEF0, 0, 0},
	0x064A: {0xFEF1, 0xFEF2, 0xFEF3, 0xFEF4},
	// Persian and Urdu letters.
	0x067E: {0xFB56, 0xFB57, 0xFB58, 0xFB59}, // peh
	0x0686: {0xFB7A, 0xFB7B, 0xFB7C, 0xFB7D}, // tcheh
	0x0698: {0xFB8A, 0xFB8B, 0, 0},           // jeh
	0x06A9: {0xFB8E, 0xFB8F, 0xFB90, 0xFB91}, // keheh
	0x06AF: {0xFB92, 0xFB93, 0xFB94, 0xFB95}, // gaf
	0x06CC: {0xFBFC, 0xFBFD, 0xFBFE, 0xFBFF}, // farsi yeh
}

// lamAlef maps the alef that follows a lam to the ligature's isolated form;
// the final form is the next code point.
var lamAlef = map[rune]rune{
	0x0622: 0xFEF5,
	0x0623: 0xFEF7,
	0x0625: 0xFEF9,
	0x0627: 0xFEFB,
}

const (
	lam     = 0x0644
	tatweel = 0x0640
)

// transparent reports whether r is a mark that joining looks through
// (harakat, superscript alef).
func transparent(r rune) bool {
	return r >= 0x0610 && r <= 0x061A || r >= 0x064B && r <= 0x065F || r == 0x0670 ||
		r >= 0x06D6 && r <= 0x06DC || r >= 0x06DF && r <= 0x06E4 || r == 0x06E7 || r == 0x06E8 ||
		r >= 0x06EA && r <= 0x06ED
}

// joinsNext reports whether r connects to the letter after it.
func joinsNext(r rune) bool {
	if r == tatweel {
		return true
	}
	f, ok := arabicLetters[r]
	return ok && f[2] != 0
}

// joinsPrev reports whether r connects to the letter before it.
func joinsPrev(r rune) bool {
	if r == tatweel {
		return true
	}
	f, ok := arabicLetters[r]
	return ok && f[1] != 0
}

// shapeArabic replaces Arabic letters in s (logical order) with their
// contextual presentation forms. has reports whether a glyph exists for a
// code point; a form without a glyph keeps the plain letter.
func shapeArabic(s []rune, has func(rune) bool) []rune {
	out := make([]rune, 0, len(s))
	// neighbour returns the nearest non-transparent rune from i in
	// direction step, or 0.
	neighbour := func(i, step int) rune {
		for j := i + step; j >= 0 && j < len(s); j += step {
			if !transparent(s[j]) {
				return s[j]
			}
		}
		return 0
	}
	for i := 0; i < len(s); i++ {
		r := s[i]
		forms, ok := arabicLetters[r]
		if !ok {
			out = append(out, r)
			continue
		}
		prev := neighbour(i, -1)
		next := neighbour(i, +1)
		fromPrev := prev != 0 && joinsNext(prev) && joinsPrev(r)
		if r == lam {
			// Lam followed (through marks) by an alef: one ligature.
			j := i + 1
			for j < len(s) && transparent(s[j]) {
				j++
			}
			if j < len(s) {
				if lig, ok := lamAlef[s[j]]; ok {
					if fromPrev {
						lig++
					}
					if has(lig) {
						out = append(out, lig)
						out = append(out, s[i+1:j]...)
						i = j
						continue
					}
				}
			}
		}
		toNext := next != 0 && joinsNext(r) && joinsPrev(next)
		var form rune
		switch {
		case fromPrev && toNext:
			form = forms[3]
		case toNext:
			form = forms[2]
		case fromPrev:
			form = forms[1]
		default:
			form = forms[0]
		}
		if form == 0 || !has(form) {
			form = r
		}
		out = append(out, form)
	}
	return out
}
