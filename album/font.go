package album

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf16"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"eventbox/text"
)

// face is one font of the set as the PDF embeds it: its file, read
// through io.ReaderAt for the descriptor's metrics so it is never copied
// whole into memory, and the glyphs drawn with it.
type face struct {
	fsys   fs.FS
	file   string // name in fsys
	f      *sfnt.Font
	closer io.Closer
	size   int64
	upem   float64
	ps     string // PostScript name

	// used maps each glyph drawn to the characters it shows (for the
	// ToUnicode map) and its width (for /W), in text space units (1/1000
	// em).
	used map[uint16]glyphUse
	obj  int // the Type0 font object, 0 until a glyph is drawn
}

type glyphUse struct {
	text  []rune
	width int
}

// fontSet is the album's fonts: laid out by the shared text stack, and
// embedded face by face.
type fontSet struct {
	text   *text.Fonts
	shaper *text.Shaper
	faces  []*face
	buf    sfnt.Buffer
}

// openFonts opens the named fonts of fsys for embedding, and for layout
// uses tf, or the same fonts parsed anew when tf is nil.
func openFonts(fsys fs.FS, names []string, tf *text.Fonts) (*fontSet, error) {
	if tf == nil {
		var err error
		if tf, err = text.Open(fsys, names...); err != nil {
			return nil, fmt.Errorf("opening album fonts: %w", err)
		}
	}
	if tf.Len() != len(names) {
		return nil, fmt.Errorf("album: %d parsed fonts for %d font names", tf.Len(), len(names))
	}
	set := &fontSet{text: tf, shaper: tf.NewShaper()}
	for _, n := range names {
		fc, err := openFace(fsys, n, &set.buf)
		if err != nil {
			set.close()
			return nil, err
		}
		set.faces = append(set.faces, fc)
	}
	return set, nil
}

func openFace(fsys fs.FS, file string, buf *sfnt.Buffer) (*face, error) {
	src, err := fsys.Open(file)
	if err != nil {
		return nil, fmt.Errorf("opening font %s: %w", file, err)
	}
	st, err := src.Stat()
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("opening font %s: %w", file, err)
	}
	var ra io.ReaderAt
	if r, ok := src.(io.ReaderAt); ok {
		ra = r
	} else {
		// A file system without ReadAt: hold this font in memory.
		b, err := io.ReadAll(src)
		if err != nil {
			src.Close()
			return nil, fmt.Errorf("reading font %s: %w", file, err)
		}
		ra = bytes.NewReader(b)
	}
	f, err := sfnt.ParseReaderAt(ra)
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("parsing font %s: %w", file, err)
	}
	ps, err := f.Name(buf, sfnt.NameIDPostScript)
	if err != nil || ps == "" {
		ps = strings.TrimSuffix(file, ".ttf")
	}
	return &face{fsys: fsys, file: file, f: f, closer: src, size: st.Size(),
		upem: float64(f.UnitsPerEm()), ps: ps, used: map[uint16]glyphUse{}}, nil
}

func (set *fontSet) close() {
	for _, f := range set.faces {
		f.closer.Close()
	}
}

// truncate lays s out on one line at size, cut with an ellipsis to fit in
// max points.
func (set *fontSet) truncate(s string, size, max float64) text.Line {
	if set.shaper == nil {
		return text.Line{}
	}
	return set.shaper.Truncate(s, size, max)
}

// wrap lays s out in at most maxLines lines of at most max points at
// size; what does not fit ends with an ellipsis.
func (set *fontSet) wrap(s string, size, max float64, maxLines int) []text.Line {
	if set.shaper == nil {
		return nil
	}
	return set.shaper.Wrap(s, size, max, maxLines)
}

// show returns the content-stream operators that draw line l, laid out at
// size, with its baseline starting at x, y, and marks the glyphs and faces
// used. Each glyph is placed where the shaper put it, in visual order.
//
// Text extraction reads glyphs by position and turns right-to-left
// letters back into logical order itself, so each glyph's ToUnicode entry
// gives the characters it shows, those of a right-to-left glyph (a
// lam-alef ligature) in the order they are drawn. A ToUnicode entry holds
// for every use of a glyph, so a cluster that it cannot describe (several
// glyphs for one syllable, as a Devanagari vowel sign drawn before its
// consonant, or a glyph already mapped otherwise, as a bracket mirrored in
// right-to-left text) is a marked-content span whose ActualText gives its
// characters instead.
func (set *fontSet) show(l text.Line, x, y, size float64, used map[int]bool) string {
	if len(l.Runs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("BT\n")
	cur := -1
	pen := x
	for _, r := range l.Runs {
		if r.Font < 0 {
			continue
		}
		fc := set.faces[r.Font]
		if r.Font != cur {
			cur = r.Font
			used[cur] = true
			fmt.Fprintf(&b, "/F%d %s Tf\n", cur, num(size))
		}
		for i := 0; i < len(r.Glyphs); {
			// A cluster: a glyph with characters and the glyphs
			// without that follow it.
			j := i + 1
			for j < len(r.Glyphs) && r.Glyphs[j].Text == nil {
				j++
			}
			chars := slices.Clone(r.Glyphs[i].Text)
			if r.RTL {
				slices.Reverse(chars)
			}
			span := j-i > 1
			for _, g := range r.Glyphs[i:j] {
				u, ok := fc.used[g.ID]
				if !ok || len(u.text) == 0 && !span {
					w := set.text.Advance(r.Font, g.ID) * 1000 / set.text.Upem(r.Font)
					u = glyphUse{width: int(w + 0.5)}
					if !span {
						u.text = chars
					}
					fc.used[g.ID] = u
				}
				if !span && !slices.Equal(u.text, chars) {
					span = true
				}
			}
			if span {
				fmt.Fprintf(&b, "/Span <</ActualText %s>> BDC\n", textString(string(chars)))
			}
			for _, g := range r.Glyphs[i:j] {
				fmt.Fprintf(&b, "1 0 0 1 %s %s Tm <%04X> Tj\n", num(pen+g.XOffset), num(y+g.YOffset), g.ID)
				pen += g.Advance
			}
			if span {
				b.WriteString("EMC\n")
			}
			i = j
		}
	}
	b.WriteString("ET\n")
	return b.String()
}

// write writes the font objects of every face that drew a glyph.
func (set *fontSet) write(o *objWriter) error {
	for _, fc := range set.faces {
		if fc.obj == 0 {
			continue
		}
		if err := fc.write(o, &set.buf); err != nil {
			return err
		}
	}
	return o.err
}

// write embeds the whole font file (FontFile2) as a CIDFontType2 with
// Identity encoding: the glyph ids in the text are the font's own.
func (fc *face) write(o *objWriter, buf *sfnt.Buffer) error {
	cid, desc, file, toUni := o.alloc(), o.alloc(), o.alloc(), o.alloc()
	base := name(fc.ps)
	o.object(fc.obj, fmt.Sprintf("<</Type /Font /Subtype /Type0 /BaseFont %s /Encoding /Identity-H /DescendantFonts [%d 0 R] /ToUnicode %d 0 R>>",
		base, cid, toUni))

	gids := make([]uint16, 0, len(fc.used))
	for g := range fc.used {
		gids = append(gids, g)
	}
	slices.Sort(gids)
	var w strings.Builder
	for _, g := range gids {
		fmt.Fprintf(&w, "%d [%d] ", g, fc.used[g].width)
	}
	o.object(cid, fmt.Sprintf("<</Type /Font /Subtype /CIDFontType2 /BaseFont %s /CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>> /FontDescriptor %d 0 R /DW 1000 /W [%s] /CIDToGIDMap /Identity>>",
		base, desc, strings.TrimSpace(w.String())))

	ppem := fixed.Int26_6(fc.f.UnitsPerEm()) << 6
	unit := func(v fixed.Int26_6) int { return int(float64(v) / 64 * 1000 / fc.upem) }
	m, err := fc.f.Metrics(buf, ppem, font.HintingNone)
	if err != nil {
		return fmt.Errorf("reading metrics of %s: %w", fc.file, err)
	}
	bb, err := fc.f.Bounds(buf, ppem, font.HintingNone)
	if err != nil {
		return fmt.Errorf("reading bounds of %s: %w", fc.file, err)
	}
	capHeight := unit(m.CapHeight)
	if capHeight == 0 {
		capHeight = unit(m.Ascent)
	}
	// sfnt's bounds grow downwards; PDF's y grows upwards.
	o.object(desc, fmt.Sprintf("<</Type /FontDescriptor /FontName %s /Flags 32 /FontBBox [%d %d %d %d] /ItalicAngle 0 /Ascent %d /Descent %d /CapHeight %d /StemV 80 /FontFile2 %d 0 R>>",
		base, unit(bb.Min.X), -unit(bb.Max.Y), unit(bb.Max.X), -unit(bb.Min.Y), unit(m.Ascent), -unit(m.Descent), capHeight, file))

	err = o.streamFrom(file, fmt.Sprintf("/Filter /FlateDecode /Length1 %d", fc.size), func(w io.Writer) error {
		src, err := fc.fsys.Open(fc.file)
		if err != nil {
			return fmt.Errorf("opening font %s: %w", fc.file, err)
		}
		defer src.Close()
		zw, err := zlib.NewWriterLevel(w, zlib.BestSpeed)
		if err != nil {
			return err
		}
		if _, err := io.Copy(zw, src); err != nil {
			return fmt.Errorf("embedding font %s: %w", fc.file, err)
		}
		return zw.Close()
	})
	if err != nil {
		return err
	}
	o.stream(toUni, "", fc.toUnicode(gids))
	return o.err
}

// toUnicode is the CMap that maps each glyph drawn back to its characters
// (several for a ligature or a conjunct), so a reader can search and copy
// the text. Glyphs that only complete a cluster map to nothing.
func (fc *face) toUnicode(gids []uint16) []byte {
	var b bytes.Buffer
	b.WriteString("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n" +
		"/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def\n" +
		"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n" +
		"1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n")
	mapped := slices.DeleteFunc(slices.Clone(gids), func(g uint16) bool { return len(fc.used[g].text) == 0 })
	for chunk := range slices.Chunk(mapped, 100) {
		fmt.Fprintf(&b, "%d beginbfchar\n", len(chunk))
		for _, g := range chunk {
			fmt.Fprintf(&b, "<%04X> <", g)
			for _, u := range utf16.Encode(fc.used[g].text) {
				fmt.Fprintf(&b, "%04X", u)
			}
			b.WriteString(">\n")
		}
		b.WriteString("endbfchar\n")
	}
	b.WriteString("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend")
	return b.Bytes()
}
