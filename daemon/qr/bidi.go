package qr

import (
	"slices"
	"unicode"

	"golang.org/x/text/unicode/bidi"
)

// A small implementation of the Unicode Bidirectional Algorithm (UAX #9)
// for one-line captions without explicit embeddings or isolates: paragraph
// direction from the first strong letter (P2, P3), weak types (W1, W2, W4 to
// W7), paired brackets (N0), neutrals (N1, N2), implicit levels (I1, I2),
// reordering (L2) and mirroring (L4). Directional formatting characters are
// treated as neutrals. (golang.org/x/text/unicode/bidi supplies the
// character classes; its own ordering mishandles brackets.)

// btype is a resolved bidi type.
type btype uint8

const (
	tL btype = iota
	tR
	tEN
	tAN
	tN // neutral
)

// cluster is a base character with its combining marks; it moves as one.
type cluster struct {
	runes []rune
	class bidi.Class // the base's class
	t     btype
	level int
}

// reorder returns s (logical order, one line) in visual order, with Arabic
// letters shaped first by shape.
func reorder(s []rune, shape func([]rune) []rune) []rune {
	cs := clusters(s)
	if len(cs) == 0 {
		return nil
	}
	para := 0
	for _, c := range cs {
		if c.class == bidi.L {
			break
		}
		if c.class == bidi.R || c.class == bidi.AL {
			para = 1
			break
		}
	}
	if para == 0 && !hasRTL(cs) {
		return shape(s)
	}
	resolveWeak(cs, para)
	resolveBrackets(cs, para)
	resolveNeutrals(cs, para)
	for i := range cs {
		cs[i].level = implicitLevel(cs[i].t, para)
	}

	// Shape Arabic within each run of equal level, in logical order, so
	// that letters join only with their neighbours on the same line.
	for i := 0; i < len(cs); {
		j := i
		var run []rune
		for j < len(cs) && cs[j].level == cs[i].level {
			run = append(run, cs[j].runes...)
			j++
		}
		reclusters := clusters(shape(run))
		// Shaping may merge lam-alef: rebuild the slice segment.
		for k := range reclusters {
			reclusters[k].level = cs[i].level
		}
		cs = slices.Concat(cs[:i], reclusters, cs[j:])
		i += len(reclusters)
	}

	// L2: from the highest level down to the lowest odd level, reverse
	// every maximal sequence at that level or higher.
	maxLevel, minOdd := 0, 99
	for _, c := range cs {
		maxLevel = max(maxLevel, c.level)
		if c.level%2 == 1 {
			minOdd = min(minOdd, c.level)
		}
	}
	for lv := maxLevel; lv >= minOdd && lv > 0; lv-- {
		for i := 0; i < len(cs); {
			if cs[i].level < lv {
				i++
				continue
			}
			j := i
			for j < len(cs) && cs[j].level >= lv {
				j++
			}
			slices.Reverse(cs[i:j])
			i = j
		}
	}
	out := make([]rune, 0, len(s))
	for _, c := range cs {
		if c.level%2 == 1 {
			if m, ok := mirrors[c.runes[0]]; ok {
				c.runes = append([]rune{m}, c.runes[1:]...)
			}
		}
		out = append(out, c.runes...)
	}
	return out
}

func hasRTL(cs []cluster) bool {
	for _, c := range cs {
		if c.class == bidi.R || c.class == bidi.AL || c.class == bidi.AN {
			return true
		}
	}
	return false
}

// clusters groups s into base characters with their marks (W1: a mark
// takes its base's type).
func clusters(s []rune) []cluster {
	var cs []cluster
	for _, r := range s {
		p, _ := bidi.LookupRune(r)
		cl := p.Class()
		if (cl == bidi.NSM || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r)) && len(cs) > 0 {
			last := &cs[len(cs)-1]
			last.runes = append(last.runes, r)
			continue
		}
		cs = append(cs, cluster{runes: []rune{r}, class: cl})
	}
	return cs
}

// resolveWeak sets each cluster's type from its class (W2, W4 to W7).
func resolveWeak(cs []cluster, para int) {
	strong := bidi.L // sos
	if para == 1 {
		strong = bidi.R
	}
	for i := range cs {
		switch cl := cs[i].class; cl {
		case bidi.L:
			cs[i].t, strong = tL, bidi.L
		case bidi.R, bidi.AL:
			cs[i].t, strong = tR, cl
		case bidi.EN:
			switch strong {
			case bidi.AL:
				cs[i].t = tAN // W2
			case bidi.L:
				cs[i].t = tL // W7
			default:
				cs[i].t = tEN
			}
		case bidi.AN:
			cs[i].t = tAN
		default:
			cs[i].t = tN
		}
	}
	// W4: one separator between two numbers of the same type joins them.
	for i := 1; i+1 < len(cs); i++ {
		cl := cs[i].class
		if cl != bidi.ES && cl != bidi.CS {
			continue
		}
		a, b := cs[i-1], cs[i+1]
		if isNumber(a) && isNumber(b) && a.t == b.t && (cl == bidi.CS || a.t != tAN) {
			cs[i].t = a.t
		}
	}
	// W5: terminators ($, %, °) next to European numbers join them.
	for i := range cs {
		if cs[i].class != bidi.ET {
			continue
		}
		j := i
		for j < len(cs) && cs[j].class == bidi.ET {
			j++
		}
		if (i > 0 && isEuropean(cs[i-1])) || (j < len(cs) && isEuropean(cs[j])) {
			t := tEN
			if i > 0 && isEuropean(cs[i-1]) {
				t = cs[i-1].t
			} else if j < len(cs) {
				t = cs[j].t
			}
			for k := i; k < j; k++ {
				cs[k].t = t
			}
		}
	}
}

func isNumber(c cluster) bool {
	return c.class == bidi.EN || c.class == bidi.AN
}

// isEuropean reports whether c is a European number (resolved to EN, or to
// L by W7).
func isEuropean(c cluster) bool { return c.class == bidi.EN }

// strongDir is the direction a resolved type counts as for neutrals and
// brackets: numbers count as right-to-left (N1), neutrals as none (-1).
func strongDir(t btype) int {
	switch t {
	case tL:
		return 0
	case tR, tEN, tAN:
		return 1
	}
	return -1
}

// resolveBrackets applies N0 to matched pairs of (), [] and {}.
func resolveBrackets(cs []cluster, para int) {
	type open struct {
		i     int
		close rune
	}
	var stack []open
	var pairs [][2]int
	for i, c := range cs {
		r := c.runes[0]
		switch r {
		case '(', '[', '{':
			stack = append(stack, open{i, mirrors[r]})
		case ')', ']', '}':
			for k := len(stack) - 1; k >= 0; k-- {
				if stack[k].close == r {
					pairs = append(pairs, [2]int{stack[k].i, i})
					stack = stack[:k]
					break
				}
			}
		}
	}
	slices.SortFunc(pairs, func(a, b [2]int) int { return a[0] - b[0] })
	for _, p := range pairs {
		inside := -1 // strong direction found inside: para wins, else other
		for k := p[0] + 1; k < p[1]; k++ {
			d := strongDir(cs[k].t)
			if d == para {
				inside = para
				break
			}
			if d >= 0 {
				inside = d
			}
		}
		if inside < 0 {
			continue
		}
		dir := inside
		if inside != para {
			// Context before the opening bracket decides.
			before := para
			for k := p[0] - 1; k >= 0; k-- {
				if d := strongDir(cs[k].t); d >= 0 {
					before = d
					break
				}
			}
			if before != inside {
				dir = para
			}
		}
		t := tL
		if dir == 1 {
			t = tR
		}
		cs[p[0]].t, cs[p[1]].t = t, t
	}
}

// resolveNeutrals applies N1 and N2: a run of neutrals between two strong
// directions that agree takes that direction, otherwise the paragraph's.
func resolveNeutrals(cs []cluster, para int) {
	for i := 0; i < len(cs); {
		if cs[i].t != tN {
			i++
			continue
		}
		j := i
		for j < len(cs) && cs[j].t == tN {
			j++
		}
		before, after := para, para
		if i > 0 {
			before = strongDir(cs[i-1].t)
		}
		if j < len(cs) {
			after = strongDir(cs[j].t)
		}
		t := tL
		if para == 1 {
			t = tR
		}
		if before == after {
			t = tL
			if before == 1 {
				t = tR
			}
		}
		for k := i; k < j; k++ {
			cs[k].t = t
		}
		i = j
	}
}

// implicitLevel applies I1 and I2.
func implicitLevel(t btype, para int) int {
	if para == 0 {
		switch t {
		case tR:
			return 1
		case tEN, tAN:
			return 2
		}
		return 0
	}
	if t == tL || t == tEN || t == tAN {
		return 2
	}
	return 1
}
