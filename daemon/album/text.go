package album

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

const ellipsis = '…'

// cleanText composes s (NFC, so "e" plus an accent becomes one glyph),
// drops control and format characters and folds runs of spaces into one.
func cleanText(s string) []rune {
	var out []rune
	space := false
	for _, r := range norm.NFC.String(s) {
		switch {
		case unicode.IsSpace(r):
			space = len(out) > 0
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
		default:
			if space {
				out = append(out, ' ')
				space = false
			}
			out = append(out, r)
		}
	}
	return out
}

// truncate shortens s (logical order) with an ellipsis until it fits in
// max points at size.
func (set *fontSet) truncate(s []rune, size, max float64) []rune {
	if set.width(s, size) <= max {
		return s
	}
	for n := len(s) - 1; n > 0; n-- {
		t := append(append([]rune(nil), trimRightSpace(s[:n])...), ellipsis)
		if set.width(t, size) <= max {
			return t
		}
	}
	return nil
}

func trimRightSpace(s []rune) []rune {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// wrap breaks s (logical order) into at most maxLines lines of at most
// max points at size: at spaces, or anywhere in a word wider than a line
// (names in scripts without spaces). What does not fit ends with an
// ellipsis.
func (set *fontSet) wrap(s []rune, size, max float64, maxLines int) [][]rune {
	var lines [][]rune
	var line []rune
	for _, word := range strings.Fields(string(s)) {
		w := []rune(word)
		cand := w
		if len(line) > 0 {
			cand = append(append(append([]rune(nil), line...), ' '), w...)
		}
		if set.width(cand, size) <= max {
			line = cand
			continue
		}
		if len(line) > 0 {
			lines = append(lines, line)
			line = nil
		}
		// Split a word that alone is too wide.
		for set.width(w, size) > max {
			n := 1
			for n < len(w) && set.width(w[:n+1], size) <= max {
				n++
			}
			lines = append(lines, w[:n])
			w = w[n:]
		}
		line = w
	}
	if len(line) > 0 {
		lines = append(lines, line)
	}
	if len(lines) > maxLines {
		last := append(append([]rune(nil), lines[maxLines-1]...), ' ')
		for _, l := range lines[maxLines:] {
			last = append(append(last, l...), ' ')
		}
		lines = append(lines[:maxLines-1], set.truncate(trimRightSpace(last), size, max))
	}
	return lines
}

// visual returns one line of text in the order its characters are drawn,
// left to right. It is a reduced Unicode bidirectional algorithm for
// names on one line: the paragraph takes the direction of its first
// strong character, digits and Latin run left to right, Hebrew and
// Arabic right to left, neutrals between two runs of the same direction
// take it and others take the paragraph's, combining marks follow their
// base, and brackets are mirrored inside right-to-left runs. Explicit
// embeddings are ignored and Arabic letters are not joined.
func visual(s []rune) []rune {
	const (
		ltr, rtl, neutral = 0, 1, -1
	)
	dir := make([]int, len(s))
	para, hasRTL := -1, false
	for i, r := range s {
		p, _ := bidi.LookupRune(r)
		switch p.Class() {
		case bidi.L:
			dir[i] = ltr
			if para < 0 {
				para = ltr
			}
		case bidi.R, bidi.AL:
			dir[i], hasRTL = rtl, true
			if para < 0 {
				para = rtl
			}
		case bidi.EN, bidi.AN:
			dir[i] = ltr
		case bidi.NSM:
			dir[i] = neutral
			if i > 0 {
				dir[i] = dir[i-1]
			}
		default:
			dir[i] = neutral
		}
	}
	if !hasRTL {
		return s
	}
	if para < 0 {
		para = ltr
	}
	// Neutrals: the direction on both sides if it agrees, else the
	// paragraph's.
	for i := 0; i < len(s); {
		if dir[i] != neutral {
			i++
			continue
		}
		j := i
		for j < len(s) && dir[j] == neutral {
			j++
		}
		before, after := para, para
		if i > 0 {
			before = dir[i-1]
		}
		if j < len(s) {
			after = dir[j]
		}
		d := para
		if before == after {
			d = before
		}
		for k := i; k < j; k++ {
			dir[k] = d
		}
		i = j
	}
	// Levels: 0 left to right, 1 right to left, 2 left to right inside a
	// right-to-left paragraph.
	level := make([]int, len(s))
	top := 0
	for i, d := range dir {
		switch {
		case para == ltr && d == rtl:
			level[i] = 1
		case para == rtl && d == rtl:
			level[i] = 1
		case para == rtl && d == ltr:
			level[i] = 2
		}
		top = max(top, level[i])
	}
	out := append([]rune(nil), s...)
	for i, r := range out {
		if level[i]%2 == 1 {
			out[i] = mirror(r)
		}
	}
	// Reverse every run at or above each level, from the highest down.
	for lv := top; lv >= 1; lv-- {
		for i := 0; i < len(out); {
			if level[i] < lv {
				i++
				continue
			}
			j := i
			for j < len(out) && level[j] >= lv {
				j++
			}
			for a, b := i, j-1; a < b; a, b = a+1, b-1 {
				out[a], out[b] = out[b], out[a]
				level[a], level[b] = level[b], level[a]
			}
			i = j
		}
	}
	return out
}

// mirror returns the mirrored form of a bracket drawn right to left.
func mirror(r rune) rune {
	switch r {
	case '(':
		return ')'
	case ')':
		return '('
	case '[':
		return ']'
	case ']':
		return '['
	case '{':
		return '}'
	case '}':
		return '{'
	case '<':
		return '>'
	case '>':
		return '<'
	case '«':
		return '»'
	case '»':
		return '«'
	}
	return r
}
