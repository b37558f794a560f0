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
)

// face is one TrueType font of the set, read through io.ReaderAt so the
// font file is never copied whole into memory.
type face struct {
	fsys   fs.FS
	file   string // name in fsys
	f      *sfnt.Font
	closer io.Closer
	size   int64
	upem   float64
	ps     string // PostScript name

	// used maps each glyph drawn to the character it shows (for the
	// ToUnicode map) and width (for /W), in text space units (1/1000 em).
	used map[sfnt.GlyphIndex]glyphUse
	obj  int // the Type0 font object, 0 until a glyph is drawn
}

type glyphUse struct {
	r     rune
	width int
}

// glyph is where a character is drawn from: face index (-1: no font has
// it), glyph id and advance in 1/1000 em.
type glyph struct {
	face  int
	gid   sfnt.GlyphIndex
	width float64
}

// fontSet picks, for each character, the first face that has it.
type fontSet struct {
	faces  []*face
	buf    sfnt.Buffer
	glyphs map[rune]glyph
}

func openFonts(fsys fs.FS, names []string) (*fontSet, error) {
	set := &fontSet{glyphs: map[rune]glyph{}}
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
		upem: float64(f.UnitsPerEm()), ps: ps, used: map[sfnt.GlyphIndex]glyphUse{}}, nil
}

func (set *fontSet) close() {
	for _, f := range set.faces {
		f.closer.Close()
	}
}

// lookup finds the glyph for r, remembering the answer.
func (set *fontSet) lookup(r rune) glyph {
	if g, ok := set.glyphs[r]; ok {
		return g
	}
	g := glyph{face: -1}
	for i, fc := range set.faces {
		gid, err := fc.f.GlyphIndex(&set.buf, r)
		if err != nil || gid == 0 {
			continue
		}
		adv, err := fc.f.GlyphAdvance(&set.buf, gid, fixed.Int26_6(fc.f.UnitsPerEm())<<6, font.HintingNone)
		if err != nil {
			continue
		}
		g = glyph{face: i, gid: gid, width: float64(adv) / 64 * 1000 / fc.upem}
		break
	}
	set.glyphs[r] = g
	return g
}

// width is the advance of s in points at size.
func (set *fontSet) width(s []rune, size float64) float64 {
	w := 0.0
	for _, r := range s {
		w += set.lookup(r).width
	}
	return w * size / 1000
}

// show returns the content-stream operators that draw s (visual order)
// starting at x, y (baseline) at size, and marks the glyphs and faces
// used. Characters no font has are left out.
func (set *fontSet) show(s []rune, x, y, size float64, used map[int]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BT\n%s %s Td\n", num(x), num(y))
	cur := -1
	for _, r := range s {
		g := set.lookup(r)
		if g.face < 0 {
			continue
		}
		if g.face != cur {
			if cur >= 0 {
				b.WriteString("> Tj\n")
			}
			cur = g.face
			used[cur] = true
			fmt.Fprintf(&b, "/F%d %s Tf\n<", cur, num(size))
		}
		fc := set.faces[g.face]
		if _, ok := fc.used[g.gid]; !ok {
			fc.used[g.gid] = glyphUse{r: r, width: int(g.width + 0.5)}
		}
		fmt.Fprintf(&b, "%04X", uint16(g.gid))
	}
	if cur >= 0 {
		b.WriteString("> Tj\n")
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

	gids := make([]sfnt.GlyphIndex, 0, len(fc.used))
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

// toUnicode is the CMap that maps each glyph drawn back to its character,
// so a reader can search and copy the text.
func (fc *face) toUnicode(gids []sfnt.GlyphIndex) []byte {
	var b bytes.Buffer
	b.WriteString("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n" +
		"/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def\n" +
		"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n" +
		"1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n")
	for chunk := range slices.Chunk(gids, 100) {
		fmt.Fprintf(&b, "%d beginbfchar\n", len(chunk))
		for _, g := range chunk {
			fmt.Fprintf(&b, "<%04X> <", uint16(g))
			for _, u := range utf16.Encode([]rune{fc.used[g].r}) {
				fmt.Fprintf(&b, "%04X", u)
			}
			b.WriteString(">\n")
		}
		b.WriteString("endbfchar\n")
	}
	b.WriteString("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend")
	return b.Bytes()
}
