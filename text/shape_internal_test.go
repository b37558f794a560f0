package text

import (
	"strings"
	"testing"

	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/font"

	"eventbox/assets"
)

func testFonts(t *testing.T) *Fonts {
	t.Helper()
	f, err := Open(assets.Fonts(), assets.CaptionFonts()...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// glyphText turns a line back into characters as drawn, left to right:
// each glyph becomes the character its font maps to it (a presentation
// form for a joined Arabic letter, the mirrored bracket), or '?' for a
// glyph that no character maps to.
func glyphText(f *Fonts, l Line) string {
	rev := make([]map[font.GID]rune, len(f.fonts))
	var b strings.Builder
	for _, r := range l.Runs {
		if rev[r.Font] == nil {
			m := map[font.GID]rune{}
			it := f.font(r.Font).Cmap.Iter()
			for it.Next() {
				c, g := it.Char()
				// The presentation forms share glyphs with the
				// letters: prefer them, and else the lowest code.
				pres := func(c rune) bool { return c >= 0xFB50 && c <= 0xFEFF }
				if old, ok := m[g]; !ok || pres(c) && !pres(old) || pres(c) == pres(old) && c < old {
					m[g] = c
				}
			}
			rev[r.Font] = m
		}
		for _, g := range r.Glyphs {
			c, ok := rev[r.Font][font.GID(g.ID)]
			if !ok {
				c = '?'
			}
			b.WriteRune(c)
		}
	}
	return b.String()
}

func TestArabicIsJoined(t *testing.T) {
	f := testFonts(t)
	s := f.NewShaper()
	// The glyphs are those the font maps to the presentation forms,
	// drawn right to left; a letter that stands alone is drawn with the
	// glyph of the plain letter (its isolated form).
	tests := []struct {
		name string
		in   string
		want []rune // logical order
	}{
		{name: "a word takes initial, medial and final forms", in: "بيت", want: []rune{0xFE91, 0xFEF4, 0xFE96}},
		{name: "letters after a right-joining letter stand alone", in: "دار", want: []rune{0x062F, 0x0627, 0x0631}},
		{name: "lam and alef become one ligature", in: "لا", want: []rune{0xFEFB}},
		{name: "lam-alef after a joining letter takes the final ligature", in: "سلام", want: []rune{0xFEB3, 0xFEFC, 0x0645}},
		{name: "other scripts pass through", in: "Zé 1", want: []rune("Zé 1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if Direction([]rune(tt.in)) == di.DirectionRTL {
				want = reversed(want)
			}
			if got := glyphText(f, s.Line(tt.in, 20)); got != string(want) {
				t.Errorf("%q is drawn as %U, want %U", tt.in, []rune(got), want)
			}
		})
	}
	t.Run("a mark is kept with its letter", func(t *testing.T) {
		l := s.Line("بِت", 20) // beh kasra teh
		var ids []uint16
		for _, r := range l.Runs {
			for _, g := range r.Glyphs {
				ids = append(ids, g.ID)
			}
		}
		if len(ids) != 3 {
			t.Fatalf("%d glyphs, want 3 (teh, beh, kasra)", len(ids))
		}
		if got := glyphText(f, l); !strings.ContainsRune(got, 0xFE91) || !strings.ContainsRune(got, 0xFE96) {
			t.Errorf("got %U, want the initial beh and the final teh", []rune(got))
		}
	})
}

func reversed(rs []rune) []rune {
	out := make([]rune, len(rs))
	for i, r := range rs {
		out[len(rs)-1-i] = r
	}
	return out
}

func TestVisualOrder(t *testing.T) {
	f := testFonts(t)
	s := f.NewShaper()
	// rtl is a right-to-left word as drawn on its own.
	rtl := func(w string) string { return glyphText(f, s.Line(w, 20)) }
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "left-to-right text is unchanged", in: "Salle des fêtes", want: "Salle des fêtes"},
		{name: "Latin with brackets stays as it is", in: "Zoë (Ana)", want: "Zoë (Ana)"},
		{name: "an Arabic caption is shaped and reversed", in: "قاعة", want: "\uFE94\uFECB\uFE8E\uFED7"},
		{name: "two Arabic words swap places", in: "قاعة الاستقبال", want: rtl("الاستقبال") + " " + rtl("قاعة")},
		{name: "an Arabic word inside Latin text is reversed in place", in: "Salle قاعة B", want: "Salle " + rtl("قاعة") + " B"},
		{
			name: "two Arabic words inside Latin text keep their right-to-left order",
			in:   "Salle قاعة الاستقبال B",
			want: "Salle " + rtl("الاستقبال") + " " + rtl("قاعة") + " B",
		},
		{
			// A number after Arabic letters belongs to the Arabic text
			// (rule W2), as in a browser.
			name: "a number after an Arabic word in Latin text reads with the Arabic",
			in:   "Salle قاعة 2",
			want: "Salle 2 " + rtl("قاعة"),
		},
		{
			// The brackets take the paragraph's direction and are
			// mirrored; the Latin text reads left to right.
			name: "a right-to-left caption puts its Latin text on the left and mirrors brackets",
			in:   "قاعة (A) Salle 12",
			want: "Salle 12 (A) " + rtl("قاعة"),
		},
		{name: "Arabic keeps its brackets facing the right way", in: "محمد (علي)", want: "(" + rtl("علي") + ") " + rtl("محمد")},
		{name: "numbers in Arabic text stay left to right", in: "قاعة 12", want: "12 " + rtl("قاعة")},
		{name: "a Hebrew caption is reversed", in: "אולם 3", want: "3 םלוא"},
		{name: "Hebrew alone is reversed", in: "שרה כהן", want: "ןהכ הרש"},
		{name: "a Latin name inside Hebrew keeps its own order", in: "שרה Ana", want: "Ana הרש"},
		{name: "a Hebrew name inside Latin is reversed in place", in: "Ana שרה Bo", want: "Ana הרש Bo"},
		{name: "digits in Hebrew read left to right", in: "שרה 12", want: "12 הרש"},
		{name: "an empty string stays empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := glyphText(f, s.Line(tt.in, 20)); got != tt.want {
				t.Errorf("%q is drawn as %q (%U), want %q (%U)", tt.in, got, []rune(got), tt.want, []rune(tt.want))
			}
		})
	}
}

func TestAMarkStaysWithItsBaseWhenReversed(t *testing.T) {
	f := testFonts(t)
	l := f.NewShaper().Line("בִּית", 20)
	// Left to right: tav, yod, then bet with its marks (as glyphs or one
	// precomposed glyph): the bet's cluster is drawn last.
	var clusters []string
	for _, r := range l.Runs {
		for _, g := range r.Glyphs {
			if g.Text != nil {
				clusters = append(clusters, string(g.Text))
			}
		}
	}
	if want := []string{"ת", "י", "בִּ"}; strings.Join(clusters, "|") != strings.Join(want, "|") {
		t.Errorf("clusters left to right %q, want %q", clusters, want)
	}
}

func TestDevanagariFormsConjuncts(t *testing.T) {
	f := testFonts(t)
	s := f.NewShaper()
	// क्ष is ka, virama, ssa: one conjunct glyph, not three.
	l := s.Line("क्ष", 20)
	n := 0
	for _, r := range l.Runs {
		n += len(r.Glyphs)
	}
	if n != 1 {
		t.Errorf("क्ष is %d glyphs, want one conjunct", n)
	}
	// कि is ka with the vowel sign i, which is drawn before the ka.
	l = s.Line("कि", 20)
	got := glyphText(f, l)
	if []rune(got)[len([]rune(got))-1] != 'क' {
		t.Errorf("कि is drawn as %U, want the vowel sign before the ka", []rune(got))
	}
	if !f.Covers("नमस्ते दुनिया") {
		t.Error("the fonts do not cover Devanagari")
	}
}

func TestFontFallbackPicksTheFirstFontWithTheCharacter(t *testing.T) {
	f := testFonts(t)
	for _, tc := range []struct {
		r    rune
		font int
	}{{'A', 0}, {'ש', 0}, {'王', 1}, {'김', 2}, {'क', 3}, {'\U0001FAE8', -1}} {
		if got := f.FontFor(tc.r); got != tc.font {
			t.Errorf("%q comes from font %d, want %d", tc.r, got, tc.font)
		}
	}
	// H has no kerning pairs: four of them are four advances of
	// 1520/2048 em.
	if w := f.NewShaper().Line("HHHH", 10).Width; w < 29.5 || w > 30.5 {
		t.Errorf("four H at 10 pt are %.1f pt wide, want about 29.7", w)
	}
	l := f.NewShaper().Line("Ana 王 김", 10)
	var fonts []int
	for _, r := range l.Runs {
		fonts = append(fonts, r.Font)
	}
	if len(fonts) < 3 || fonts[0] != 0 || !containsAll(fonts, 1, 2) {
		t.Errorf("runs use fonts %v, want 0 then 1 and 2", fonts)
	}
}

func containsAll(xs []int, want ...int) bool {
	for _, w := range want {
		found := false
		for _, x := range xs {
			found = found || x == w
		}
		if !found {
			return false
		}
	}
	return true
}

func TestLongTextIsCutToFit(t *testing.T) {
	f := testFonts(t)
	s := f.NewShaper()
	t.Run("a long name is cut with an ellipsis", func(t *testing.T) {
		l := s.Truncate(strings.Repeat("Maximilian ", 10), 12, 100)
		if l.Width > 100 {
			t.Errorf("%.1f pt wide, want at most 100", l.Width)
		}
		last := l.Runs[len(l.Runs)-1]
		if g := last.Glyphs[len(last.Glyphs)-1]; string(g.Text) != string(Ellipsis) {
			t.Errorf("the line ends with %q, want an ellipsis", g.Text)
		}
	})
	t.Run("a short caption is left alone", func(t *testing.T) {
		if got := s.Truncate("Ana", 10, 100).Text; got != "Ana" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("a title wraps at spaces into at most three lines", func(t *testing.T) {
		lines := s.Wrap(strings.Repeat("Bartholomew ", 10), 30, 400, 3)
		if len(lines) != 3 {
			t.Fatalf("%d lines, want 3", len(lines))
		}
		for _, l := range lines[:2] {
			if strings.TrimSpace(strings.ReplaceAll(l.Text, "Bartholomew", "")) != "" || strings.HasSuffix(l.Text, "Bartholome") {
				t.Errorf("line %q is not made of whole words", l.Text)
			}
		}
		if !strings.HasSuffix(lines[2].Text, string(Ellipsis)) {
			t.Errorf("the last line %q does not end with an ellipsis", lines[2].Text)
		}
	})
	t.Run("a long title wraps to three lines and ends with an ellipsis", func(t *testing.T) {
		lines := s.Wrap(strings.Repeat("Anna and Marco ", 20), 30, 400, 3)
		if len(lines) != 3 {
			t.Fatalf("%d lines, want 3", len(lines))
		}
		for _, l := range lines {
			if l.Width > 400 {
				t.Errorf("a line is %.1f pt wide, wider than 400 pt", l.Width)
			}
		}
		last := lines[2].Runs[len(lines[2].Runs)-1]
		if g := last.Glyphs[len(last.Glyphs)-1]; string(g.Text) != string(Ellipsis) {
			t.Errorf("the last line ends with %q, want an ellipsis", g.Text)
		}
	})
	t.Run("a title without spaces breaks between characters", func(t *testing.T) {
		lines := s.Wrap(strings.Repeat("王", 40), 30, 400, 3)
		if len(lines) < 2 {
			t.Fatalf("%d lines", len(lines))
		}
		for _, r := range lines[0].Runs {
			if strings.Trim(string(r.Text), "王") != "" {
				t.Errorf("got %q", string(r.Text))
			}
		}
	})
}

func TestCleanText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"spaces fold and trim", "  Ana \t  Bo \n", "Ana Bo"},
		{"a decomposed accent is composed", "Zoe\u0308", "Zoë"},
		{"control and format characters go", "A\u0007n\u200ba", "Ana"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clean(tc.in); got != tc.want {
				t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
