package text

import (
	"io/fs"
	"testing"

	"eventbox/assets"
)

// parsed reports which fonts of f are parsed so far.
func parsed(f *Fonts) []bool {
	out := make([]bool, len(f.fonts))
	for i, l := range f.fonts {
		out[i] = l.font != nil || l.err != nil
	}
	return out
}

// TestFallbackFontsAreParsedWhenATextNeedsThem: opening the caption fonts
// parses none of them; a Latin caption parses the first, and a caption in
// a fallback's script the fonts up to that one.
func TestFallbackFontsAreParsedWhenATextNeedsThem(t *testing.T) {
	names := assets.CaptionFonts()
	f := testFonts(t)
	if len(names) < 3 {
		t.Fatalf("want at least three caption fonts, have %v", names)
	}
	want := func(step string, n int) {
		t.Helper()
		for i, p := range parsed(f) {
			if p != (i < n) {
				t.Fatalf("after %s: font %d (%s) parsed = %v, want the first %d parsed", step, i, names[i], p, n)
			}
		}
	}
	want("opening", 0)
	f.WithShaper(func(s *Shaper) { s.Line("Chez Lucie (table 4)", 24) })
	want("a Latin caption", 1)
	// The second caption font is the CJK one.
	var l Line
	f.WithShaper(func(s *Shaper) { l = s.Line("王さんの席", 24) })
	want("a Japanese caption", 2)
	glyphs := 0
	for _, r := range l.Runs {
		if r.Font != 1 {
			t.Fatalf("Japanese caption laid out as %+v, want every run in font 1", l.Runs)
		}
		glyphs += len(r.Glyphs)
	}
	if glyphs != 5 {
		t.Fatalf("Japanese caption has %d glyphs, want 5", glyphs)
	}
	if err := f.Load(); err != nil {
		t.Fatalf("loading every caption font: %v", err)
	}
	want("Load", len(names))
}

// TestAFallbackThatDoesNotParseIsLeftOut: a fallback whose table directory
// reads but whose tables do not is refused by Load and covers nothing, and
// the text still lays out with the others; a file that is no font at all is
// refused by Parse.
func TestAFallbackThatDoesNotParseIsLeftOut(t *testing.T) {
	sans, err := fs.ReadFile(assets.Fonts(), assets.CaptionFonts()[0])
	if err != nil {
		t.Fatal(err)
	}
	// The table directory whole, every table cut away.
	numTables := int(sans[4])<<8 | int(sans[5])
	broken := sans[:12+16*numTables]
	f, err := Parse(sans, broken)
	if err != nil {
		t.Fatalf("parsing a sound font and a cut one: %v", err)
	}
	if err := f.Load(); err == nil {
		t.Fatal("Load accepted a font whose tables are cut away")
	}
	if i := f.FontFor('王'); i != -1 {
		t.Fatalf("FontFor('王') = %d, want -1", i)
	}
	if i := f.FontFor('a'); i != 0 {
		t.Fatalf("FontFor('a') = %d, want 0", i)
	}
	var l Line
	f.WithShaper(func(s *Shaper) { l = s.Line("a王b", 24) })
	if l.Text != "a王b" || len(l.Runs) == 0 || l.Width <= 0 {
		t.Fatalf("line = %+v", l)
	}
	if _, err := Parse(sans, []byte("not a font at all")); err == nil {
		t.Fatal("Parse accepted a file that is no font")
	}
	if _, err := Open(assets.Fonts(), "no-such-font.ttf"); err == nil {
		t.Fatal("Open accepted a font that is not there")
	}
}

// BenchmarkOpenCaptionFonts is what a daemon's start spends on its fonts.
func BenchmarkOpenCaptionFonts(b *testing.B) {
	for b.Loop() {
		if _, err := Open(assets.Fonts(), assets.CaptionFonts()...); err != nil {
			b.Fatal(err)
		}
	}
}
