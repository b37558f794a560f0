package text

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"unicode"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
)

// Fonts is an ordered list of fonts: each character is drawn with the first
// font that has it. It is immutable and safe for concurrent use.
//
// A font is parsed when a text first needs it, not when the list is made.
// The fallbacks for other scripts (CJK, Hangul, Devanagari) are megabytes
// of outlines that most events never draw, and no text is drawn while the
// daemon starts: parsing the caption fonts up front took a daemon's start
// 29 ms and 26 MB of allocations on the build machine, several times that
// on a Pi ([BenchmarkOpenCaptionFonts]).
type Fonts struct {
	fonts []*lazyFont
	// shapers keeps Shapers between uses: a new one spends tens of
	// milliseconds preparing the fonts' shaping tables.
	shapers sync.Pool
}

// lazyFont is one font, parsed on first use.
type lazyFont struct {
	name string
	// open returns the font file to parse, and closes it afterwards.
	open func() (ot.Resource, func(), error)
	once sync.Once
	font *font.Font
	err  error
}

// get parses the font on first call; a font that does not parse is nil
// and covers nothing.
func (l *lazyFont) get() *font.Font {
	l.once.Do(func() {
		r, done, err := l.open()
		if err != nil {
			l.err = fmt.Errorf("reading font %s: %w", l.name, err)
			return
		}
		defer done()
		face, err := font.ParseTTF(r)
		if err != nil {
			l.err = fmt.Errorf("parsing font %s: %w", l.name, err)
			return
		}
		l.font = face.Font
	})
	return l.font
}

// check reads the font's table directory: enough to refuse a file that is
// no font at all, without parsing its tables.
func (l *lazyFont) check() error {
	r, done, err := l.open()
	if err != nil {
		return fmt.Errorf("reading font %s: %w", l.name, err)
	}
	defer done()
	if _, err := ot.NewLoader(r); err != nil {
		return fmt.Errorf("parsing font %s: %w", l.name, err)
	}
	return nil
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
//
// Parse reads only each file's table directory; a font's tables are parsed
// when a text first needs it, and a font whose tables do not parse is left
// out of every text. [Fonts.Load] parses them all at once and says which
// does not parse.
func Parse(files ...[]byte) (*Fonts, error) {
	f := &Fonts{}
	for i, b := range files {
		f.fonts = append(f.fonts, &lazyFont{
			name: fmt.Sprint(i),
			open: func() (ot.Resource, func(), error) { return bytes.NewReader(b), func() {}, nil },
		})
	}
	return f, f.check()
}

// Open is [Parse] with the fonts read from fsys by name. A font is read
// again from fsys when it is first parsed, straight from the file where
// fsys's files can seek (an embedded file system's can), so that an
// embedded font is not copied.
func Open(fsys fs.FS, names ...string) (*Fonts, error) {
	f := &Fonts{}
	for _, name := range names {
		f.fonts = append(f.fonts, &lazyFont{name: name, open: func() (ot.Resource, func(), error) {
			file, err := fsys.Open(name)
			if err != nil {
				return nil, nil, err
			}
			if r, ok := file.(ot.Resource); ok {
				return r, func() { file.Close() }, nil
			}
			b, err := io.ReadAll(file)
			file.Close()
			if err != nil {
				return nil, nil, err
			}
			return bytes.NewReader(b), func() {}, nil
		}})
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("opening fonts %v: %w", names, err)
	}
	return f, nil
}

// check reads every font's table directory.
func (f *Fonts) check() error {
	for _, l := range f.fonts {
		if err := l.check(); err != nil {
			return err
		}
	}
	return nil
}

// Load parses every font now, and reports the first that does not parse
// (a font that does not parse is otherwise left out of every text).
func (f *Fonts) Load() error {
	for _, l := range f.fonts {
		if l.get() == nil {
			return l.err
		}
	}
	return nil
}

// font returns font i, parsed, or nil when it does not parse.
func (f *Fonts) font(i int) *font.Font { return f.fonts[i].get() }

// Len returns the number of fonts.
func (f *Fonts) Len() int { return len(f.fonts) }

// Upem returns font i's units per em.
func (f *Fonts) Upem(i int) float64 {
	if ft := f.font(i); ft != nil {
		return float64(ft.Upem())
	}
	return 1000
}

// Advance returns the advance of glyph gid of font i in font units, as
// its horizontal metrics give it (before any shaping).
func (f *Fonts) Advance(i int, gid uint16) float64 {
	ft := f.font(i)
	if ft == nil {
		return 0
	}
	return float64(font.NewFace(ft).HorizontalAdvance(font.GID(gid)))
}

// FontFor returns the index of the first font that has a glyph for r, or
// -1 when none has.
func (f *Fonts) FontFor(r rune) int {
	for i, l := range f.fonts {
		ft := l.get()
		if ft == nil {
			continue
		}
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
