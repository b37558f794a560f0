package web

import (
	"unicode"
	"unicode/utf8"
)

// Text a user sets is checked here (docs/decisions.md, "Text a user
// sets"). Control characters are refused, not stripped: no keyboard types
// them, so one in a name or label is a bug or a trick, and a silent change
// would store something else than the caller sent. Refused are the C0 and
// C1 controls and DEL, and the bidirectional embedding, override and
// isolate controls, which let a caption display reordered. Single-line
// text (names, labels, account names, credits, codes) takes no line break
// at all; multi-line text (guestbook messages, event descriptions) takes
// \n, \r and \t. Fields that collapse their white space first (guest
// names, credits, place and link labels) turn a tab or newline into a
// space before this check.

// LineProblem says why s may not be stored as single-line text, or "".
func LineProblem(s string) string { return textCheck(s, false) }

// TextProblem says why s may not be stored as multi-line text, or "".
func TextProblem(s string) string { return textCheck(s, true) }

func textCheck(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		return "must be UTF-8 text"
	}
	for _, c := range s {
		switch {
		case multiline && (c == '\n' || c == '\r' || c == '\t'):
		case c == '\u2028' || c == '\u2029':
			if !multiline {
				return "must be a single line"
			}
		case unicode.IsControl(c):
			if !multiline && (c == '\n' || c == '\r') {
				return "must be a single line"
			}
			return "must not contain control characters"
		case c >= '\u202a' && c <= '\u202e', c >= '\u2066' && c <= '\u2069':
			return "must not contain text-direction controls"
		}
	}
	return ""
}
