package text

import (
	"bytes"
	"fmt"
	"io/fs"
	"sync"
	"unicode"

	"github.com/go-text/typesetting/font"
)

// Fonts is an ordered list of fonts: each character is drawn with the first
// font that has it. It is immutable and safe for concurrent use.
type Fonts struct {
	fonts []*font.Font
	// shapers keeps Shapers between uses: a new one spends tens of
	// milliseconds preparing the fonts' shaping tables.
	shapers sync.Pool
}

// WithShaper calls fn with a Shaper that only fn uses, taken from those
// kept between calls, and keeps it again afterwards. fn must not keep it.
func (f *Fonts) WithShaper(fn func(*Shaper)) {
	s, ok := f.shapers.Get().(*Shaper)
	if !ok {
		s = f.NewShaper()
	}
	fn(s)
	f.shapers.Put(s)
}

// Parse reads fonts from TrueType or OpenType file contents, in the order
// they are tried. With no fonts every text lays out empty. The byte slices
// must not be modified afterwards.
func Parse(files ...[]byte) (*Fonts, error) {
	fs := &Fonts{}
	for i, b := range files {
		face, err := font.ParseTTF(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("parsing font %d: %w", i, err)
		}
		fs.fonts = append(fs.fonts, face.Font)
	}
	return fs, nil
}

// Open is [Parse] with the fonts read from fsys by name.
func Open(fsys fs.FS, names ...string) (*Fonts, error) {
	files := make([][]byte, 0, len(names))
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("reading font %s: %w", name, err)
		}
		files = append(files, b)
	}
	f, err := Parse(files...)
	if err != nil {
		return nil, fmt.Errorf("opening fonts %v: %w", names, err)
	}
	return f, nil
}

// Len returns the number of fonts.
func (f *Fonts) Len() int { return len(f.fonts) }

// Upem returns font i's units per em.
func (f *Fonts) Upem(i int) float64 { return float64(f.fonts[i].Upem()) }

// Advance returns the advance of glyph gid of font i in font units, as
// its horizontal metrics give it (before any shaping).
func (f *Fonts) Advance(i int, gid uint16) float64 {
	return float64(font.NewFace(f.fonts[i]).HorizontalAdvance(font.GID(gid)))
}

// FontFor returns the index of the first font that has a glyph for r, or
// -1 when none has.
func (f *Fonts) FontFor(r rune) int {
	for i, ft := range f.fonts {
		if g, ok := ft.NominalGlyph(r); ok && g != 0 {
			return i
		}
	}
	return -1
}

// Covers reports whether every letter of s (ignoring spaces, controls and
// format characters) has a glyph in one of the fonts.
func (f *Fonts) Covers(s string) bool {
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		if f.FontFor(r) < 0 {
			return false
		}
	}
	return true
}
