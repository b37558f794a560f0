package text

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/go-text/typesetting/bidi"
	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/shaping"
	"golang.org/x/image/math/fixed"
	xbidi "golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// Ellipsis ends a text cut short to fit.
const Ellipsis = '…'

// Line is one line of laid-out text.
type Line struct {
	// Runs are the line's pieces of one font and direction, in visual
	// order: left to right.
	Runs []Run
	// Width is the line's advance, in the units of the size it was laid
	// out at.
	Width float64
	// Text is the line's characters in logical order, ending with an
	// ellipsis when the text was cut.
	Text string
}

// Run is a piece of a line drawn with one font in one direction.
type Run struct {
	// Font is the index of the run's font in its [Fonts].
	Font int
	// RTL reports a right-to-left run.
	RTL bool
	// Text holds the run's characters in logical order.
	Text []rune
	// Glyphs are the run's glyphs, left to right. Glyphs for characters no
	// font has are left out.
	Glyphs []Glyph
}

// Glyph is one glyph of a run. Distances are in the units of the size the
// line was laid out at; y grows upwards.
type Glyph struct {
	// ID is the glyph's index in its font.
	ID uint16
	// Advance moves the pen to the next glyph; XOffset and YOffset move
	// this glyph from the pen.
	Advance, XOffset, YOffset float64
	// Text is the characters this glyph stands for, in logical order: the
	// whole cluster (a ligature's letters, a letter with its marks) on the
	// cluster's first glyph, and nil on the other glyphs of the cluster.
	Text []rune
}

// Shaper lays out text with a [Fonts]. It keeps the shaping caches and is
// not safe for concurrent use: make one per drawing.
type Shaper struct {
	fonts *Fonts
	faces []*font.Face
	seg   shaping.Segmenter
	hb    shaping.HarfbuzzShaper
	wrap  shaping.LineWrapper
	para  bidi.Paragraph
}

// NewShaper returns a Shaper for the fonts.
func (f *Fonts) NewShaper() *Shaper {
	return &Shaper{fonts: f, faces: make([]*font.Face, len(f.fonts))}
}

// face returns the face of font i, made on first use (nil when the font
// does not parse).
func (s *Shaper) face(i int) *font.Face {
	if s.faces[i] == nil {
		if ft := s.fonts.font(i); ft != nil {
			s.faces[i] = font.NewFace(ft)
		}
	}
	return s.faces[i]
}

// ResolveFace implements shaping.Fontmap: the first font with the
// character, or the first font (whose missing glyph is then dropped).
func (s *Shaper) ResolveFace(r rune) *font.Face {
	if i := s.fonts.FontFor(r); i >= 0 {
		return s.face(i)
	}
	return s.face(0)
}

// Direction returns the paragraph direction of text: that of its first
// strong character (right to left for Hebrew and Arabic letters), left to
// right when it has none.
func Direction(text []rune) di.Direction {
	for _, r := range text {
		p, _ := xbidi.LookupRune(r)
		switch p.Class() {
		case xbidi.L:
			return di.DirectionLTR
		case xbidi.R, xbidi.AL:
			return di.DirectionRTL
		}
	}
	return di.DirectionLTR
}

// Line lays text out on one line at size, however wide.
func (s *Shaper) Line(text string, size float64) Line {
	lines := s.Wrap(text, size, math.Inf(1), 1)
	if len(lines) == 0 {
		return Line{}
	}
	return lines[0]
}

// Truncate lays text out on one line at size, cut short with an ellipsis
// if it is wider than width.
func (s *Shaper) Truncate(text string, size, width float64) Line {
	lines := s.Wrap(text, size, width, 1)
	if len(lines) == 0 {
		return Line{}
	}
	return lines[0]
}

// unit is the size text is shaped at; results are scaled to the size
// asked for, so that a layout does not depend on rounding at small sizes
// (the shaper rounds its scale to whole units).
const unit = 1024

// Wrap lays text out at size in lines at most width wide: broken between
// words, or inside a word wider than a line (names in scripts without
// spaces). With maxLines above zero, what does not fit on that many lines
// is cut and the last line ends with an ellipsis.
func (s *Shaper) Wrap(text string, size, width float64, maxLines int) []Line {
	runes := []rune(text)
	if len(runes) == 0 || len(s.faces) == 0 || s.face(0) == nil || size <= 0 {
		return nil
	}
	dir := Direction(runes)
	in := shaping.Input{Text: runes, RunEnd: len(runes), Direction: dir, Size: fixed.I(unit)}
	pieces := s.seg.Split(in, s)
	outs := make([]shaping.Output, 0, len(pieces))
	for _, p := range pieces {
		outs = append(outs, s.hb.Shape(p))
	}
	cfg := shaping.WrapConfig{Direction: dir, TruncateAfterLines: maxLines, BreakPolicy: shaping.WhenNecessary}
	if maxLines > 0 {
		ell := []rune{Ellipsis}
		cfg.Truncator = s.hb.Shape(shaping.Input{Text: ell, RunEnd: 1, Direction: dir, Face: s.ResolveFace(Ellipsis), Size: fixed.I(unit)})
	}
	maxW := fixed.Int26_6(math.MaxInt32)
	if w := width * unit / size * 64; w < float64(maxW) {
		maxW = fixed.Int26_6(w)
	}
	wrapped, truncated := s.wrap.WrapParagraphF(cfg, maxW, runes, shaping.NewSliceIterator(outs))

	// Levels for the visual order of the runs (rule L2 of the
	// bidirectional algorithm).
	bdir, paraLevel := bidi.LeftToRight, bidi.Level(0)
	if dir == di.DirectionRTL {
		bdir, paraLevel = bidi.RightToLeft, 1
	}
	levels := make([]bidi.Level, len(runes))
	br := s.para.Segment(runes, bdir)
	for i := range br.NumRuns() {
		r := br.Run(i)
		for k := r.Start; k < r.End; k++ {
			levels[k] = r.Level
		}
	}
	scale := size / unit
	lines := make([]Line, 0, len(wrapped))
	for i, wl := range wrapped {
		ellipsis := truncated > 0 && i == len(wrapped)-1 && maxLines > 0
		lines = append(lines, s.line(wl, runes, levels, paraLevel, ellipsis, scale))
	}
	return lines
}

// line turns a wrapped line (runs in logical order) into a Line, runs in
// visual order. With ellipsis, the last run is the ellipsis.
func (s *Shaper) line(wl shaping.Line, para []rune, levels []bidi.Level, paraLevel bidi.Level, ellipsis bool, scale float64) Line {
	type leveled struct {
		run   Run
		level bidi.Level
	}
	runs := make([]leveled, 0, len(wl))
	var l Line
	for i, o := range wl {
		isEll := ellipsis && i == len(wl)-1
		lv := paraLevel
		text := []rune{Ellipsis}
		if !isEll {
			text = para[o.Runes.Offset : o.Runes.Offset+o.Runes.Count]
			lv = levels[o.Runes.Offset]
		}
		r := Run{Font: slices.Index(s.faces, o.Face), RTL: o.Direction.Progression() == di.TowardTopLeft, Text: text}
		seen := map[int]bool{}
		for _, g := range o.Glyphs {
			if g.GlyphID == 0 {
				// A character no font has: leave it out.
				continue
			}
			adv := float64(g.Advance) / 64 * scale
			gl := Glyph{ID: uint16(g.GlyphID), Advance: adv, XOffset: float64(g.XOffset) / 64 * scale, YOffset: float64(g.YOffset) / 64 * scale}
			if c := g.TextIndex(); !seen[c] {
				seen[c] = true
				gl.Text = text
				if !isEll {
					gl.Text = para[c : c+g.RunesCount()]
				}
			}
			r.Glyphs = append(r.Glyphs, gl)
			l.Width += adv
		}
		runs = append(runs, leveled{r, lv})
		l.Text += string(text)
	}
	// From the highest level down to the lowest odd one, reverse every
	// sequence of runs at that level or higher.
	var top, lowOdd bidi.Level = 0, 127
	for _, r := range runs {
		top = max(top, r.level)
		if r.level%2 == 1 {
			lowOdd = min(lowOdd, r.level)
		}
	}
	for lv := top; lv >= lowOdd && lv > 0; lv-- {
		for i := 0; i < len(runs); {
			if runs[i].level < lv {
				i++
				continue
			}
			j := i
			for j < len(runs) && runs[j].level >= lv {
				j++
			}
			slices.Reverse(runs[i:j])
			i = j
		}
	}
	for _, r := range runs {
		l.Runs = append(l.Runs, r.run)
	}
	l.Text = strings.TrimRight(l.Text, " ")
	return l
}

// OneLine prepares a caption for a single line: line breaks and other
// controls replaced with spaces, trimmed.
func OneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s))
}

// Clean composes s (NFC, so "e" plus an accent becomes one character),
// drops control and format characters and folds runs of spaces into one,
// trimming both ends.
func Clean(s string) string {
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
	return string(out)
}
