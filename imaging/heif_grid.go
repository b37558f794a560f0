package imaging

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"eventbox/imaging/internal/planar"
)

// Limits on what a HEIF file may ask of the decoder. A phone's grid has 48
// (12 MP) to 192 (48 MP) tiles of 512×512, 768 for the 200 MP of the
// largest sensor; DefaultMaxPixels bounds the picture before this does.
const (
	maxGridTiles    = 1024
	maxTileDataSize = 16 << 20 // one tile's coded bytes
)

// heifItem is where an item's data is: extents in the file (construction
// method 0) or in the meta box's idat (method 1).
type heifItem struct {
	method  int64
	extents [][2]int64 // offset, length
}

// heifGrid is a grid image: rows × cols tiles of tileW × tileH, cropped to
// outW × outH, in the tiles' order (row by row).
type heifGrid struct {
	rows, cols   int
	outW, outH   int
	tileW, tileH int
	tiles        []int64
}

// readHEIFMeta walks the top-level boxes and parses the meta box; see
// checkHEIF.
func readHEIFMeta(r io.ReaderAt, size int64) (*heifMeta, error) {
	var meta []byte
	off := int64(0)
	for i := 0; off < size; i++ {
		if i >= maxChunks {
			return nil, fmt.Errorf("%w: more than %d boxes", ErrCorrupt, maxChunks)
		}
		h, err := readAt(r, off, 8, size)
		if err != nil {
			return nil, err
		}
		n, typ := be32(h), string(h[4:8])
		hdr := int64(8)
		switch n {
		case 0:
			n = size - off
		case 1:
			l, err := readAt(r, off+8, 8, size)
			if err != nil {
				return nil, err
			}
			n, hdr = be32(l)<<32|be32(l[4:]), 16
		}
		if n < hdr || off+n > size || n < 0 {
			return nil, fmt.Errorf("%w: box %q at %d runs past the end (truncated)", ErrCorrupt, typ, off)
		}
		if i == 0 && typ != "ftyp" {
			return nil, fmt.Errorf("%w: no ftyp box", ErrCorrupt)
		}
		if typ == "meta" {
			if meta != nil || n-hdr > maxMetaSize {
				return nil, fmt.Errorf("%w: meta box", ErrCorrupt)
			}
			if meta, err = readAt(r, off+hdr, int(n-hdr), size); err != nil {
				return nil, err
			}
		}
		off += n
	}
	if meta == nil {
		return nil, fmt.Errorf("%w: no meta box", ErrCorrupt)
	}
	m, err := parseHEIFMeta(meta)
	if err != nil {
		return nil, err
	}
	if m.fileEnd > size {
		return nil, fmt.Errorf("%w: item data runs past the end (truncated)", ErrCorrupt)
	}
	return m, nil
}

// itemData returns an item's bytes, at most limit of them.
func (m *heifMeta) itemData(r io.ReaderAt, size int64, id int64, limit int64) ([]byte, error) {
	it, ok := m.items[id]
	if !ok {
		return nil, fmt.Errorf("%w: item %d has no location", ErrCorrupt, id)
	}
	total := int64(0)
	for _, e := range it.extents {
		total += e[1]
		if e[1] < 0 || total > limit {
			return nil, fmt.Errorf("%w: item %d has more than %d bytes", ErrCorrupt, id, limit)
		}
	}
	out := make([]byte, 0, total)
	for _, e := range it.extents {
		switch it.method {
		case 0:
			b, err := readAt(r, e[0], int(e[1]), size)
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		case 1:
			if e[0] < 0 || e[0]+e[1] > int64(len(m.idat)) {
				return nil, fmt.Errorf("%w: item %d runs past idat", ErrCorrupt, id)
			}
			out = append(out, m.idat[e[0]:e[0]+e[1]]...)
		default:
			return nil, fmt.Errorf("%w: item %d stored by construction method %d", ErrUnsupported, id, it.method)
		}
	}
	return out, nil
}

// prop returns the first property of type typ associated with item id.
func (m *heifMeta) prop(id int64, typ string) ([]byte, bool) {
	for _, idx := range m.assoc[id] {
		if idx >= 1 && idx <= len(m.props) && m.props[idx-1].typ == typ {
			return m.props[idx-1].payload, true
		}
	}
	return nil, false
}

// ispe returns item id's coded size.
func (m *heifMeta) ispe(id int64) (int, int, bool) {
	p, ok := m.prop(id, "ispe")
	if !ok {
		return 0, 0, false
	}
	c := cursor{b: p}
	c.uint(4)
	w, h := c.uint(4), c.uint(4)
	if c.bad || w <= 0 || h <= 0 || w > 1<<16 || h > 1<<16 {
		return 0, 0, false
	}
	return int(w), int(h), true
}

// grid reads the primary grid item's descriptor and checks its tiles: as
// many HEVC items as the grid has cells, all of one size, covering the
// output.
func (m *heifMeta) grid(r io.ReaderAt, size int64) (heifGrid, error) {
	var g heifGrid
	d, err := m.itemData(r, size, m.primary, 64)
	if err != nil {
		return g, fmt.Errorf("reading grid descriptor: %w", err)
	}
	c := cursor{b: d}
	c.uint(1) // version
	flags := c.uint(1)
	g.rows, g.cols = int(c.uint(1))+1, int(c.uint(1))+1
	n := 2
	if flags&1 != 0 {
		n = 4
	}
	g.outW, g.outH = int(c.uint(n)), int(c.uint(n))
	if c.bad || g.outW <= 0 || g.outH <= 0 {
		return g, fmt.Errorf("%w: grid descriptor", ErrCorrupt)
	}
	g.tiles = m.dimg[m.primary]
	if len(g.tiles) != g.rows*g.cols || len(g.tiles) > maxGridTiles {
		return g, fmt.Errorf("%w: grid of %d×%d cells with %d tiles", ErrCorrupt, g.cols, g.rows, len(g.tiles))
	}
	for i, id := range g.tiles {
		if m.types[id] != "hvc1" {
			return g, fmt.Errorf("%w: grid tile of type %q", ErrUnsupported, m.types[id])
		}
		if _, ok := m.prop(id, "hvcC"); !ok {
			return g, fmt.Errorf("%w: grid tile without hvcC", ErrCorrupt)
		}
		w, h, ok := m.ispe(id)
		if !ok {
			return g, fmt.Errorf("%w: grid tile without a size", ErrCorrupt)
		}
		if i == 0 {
			g.tileW, g.tileH = w, h
		} else if w != g.tileW || h != g.tileH {
			return g, fmt.Errorf("%w: grid tiles of different sizes", ErrUnsupported)
		}
	}
	if g.cols*g.tileW < g.outW || g.rows*g.tileH < g.outH {
		return g, fmt.Errorf("%w: grid tiles do not cover %dx%d", ErrCorrupt, g.outW, g.outH)
	}
	// No whole row or column of tiles outside the output, and the output is
	// the size the item declares: the memory estimate is made from it.
	if g.cols*g.tileW-g.outW >= g.tileW || g.rows*g.tileH-g.outH >= g.tileH {
		return g, fmt.Errorf("%w: grid of %d×%d tiles for %dx%d", ErrCorrupt, g.cols, g.rows, g.outW, g.outH)
	}
	if w, h, ok := m.ispe(m.primary); !ok || w != g.outW || h != g.outH {
		return g, fmt.Errorf("%w: grid output %dx%d is not the item's size", ErrCorrupt, g.outW, g.outH)
	}
	return g, nil
}

// decodeHEICGrid reads the meta box again and decodes the primary grid
// image at 1/scale; see decodeHEIFGrid.
func decodeHEICGrid(ctx context.Context, r io.ReaderAt, size int64, scale int) (planar.Image, error) {
	m, err := readHEIFMeta(r, size)
	if err != nil {
		return planar.Image{}, err
	}
	g, err := m.grid(r, size)
	if err != nil {
		return planar.Image{}, err
	}
	return decodeHEIFGrid(ctx, r, size, m, g, scale)
}

// decodeHEIFGrid decodes a grid image tile by tile, each tile reduced by
// scale (1, 2, 4 or 8) straight into the output planes, so memory depends
// on the tiles being decoded and the reduced output, never on the whole
// picture. The result is as stored: the grid's irot and imir are left to
// the caller.
//
// One decoder works through the tiles in order; when the pool lends spare
// capacity (spare.go), more decoders take tiles beside it, each in a
// module instance of its own whose memory is reserved from the pool's
// budget. A helper takes no tile while goroutines wait for a core (an
// upload, a request, the garbage collector): it looks again every
// helperPause, and the first decoder goes on meanwhile, as it would have
// without help.
func decodeHEIFGrid(ctx context.Context, r io.ReaderAt, size int64, m *heifMeta, g heifGrid, scale int) (planar.Image, error) {
	img, _, err := decodeHEIFGridWith(ctx, r, size, m, g, scale, spareFor(ctx))
	return img, err
}

// helperPause is how often a helper decoder, waiting for a free core,
// looks again: the pace at which image work gives way to uploads
// (docs/decisions/images.md, "Image work gives way to uploads").
const helperPause = 25 * time.Millisecond

// decodeHEIFGridWith is decodeHEIFGrid with the spare capacity given; it
// also answers how many decoders took tiles (for the tests).
func decodeHEIFGridWith(ctx context.Context, r io.ReaderAt, size int64, m *heifMeta, g heifGrid, scale int, spare *spareCapacity) (planar.Image, int, error) {
	if g.tileW%(2*scale) != 0 || g.tileH%(2*scale) != 0 {
		scale = 1
		if g.tileW%2 != 0 || g.tileH%2 != 0 {
			return planar.Image{}, 0, fmt.Errorf("%w: odd grid tile size %dx%d", ErrUnsupported, g.tileW, g.tileH)
		}
	}
	tw, th := g.tileW/scale, g.tileH/scale
	out := planar.NewImage(g.cols*tw, g.rows*th, 2, 2, false)

	// tile decodes tile i into its place in out; tiles never overlap, so
	// decoders may place theirs at once.
	tile := func(dec *tileDecoder, i int) error {
		id := g.tiles[i]
		data, err := m.itemData(r, size, id, maxTileDataSize)
		if err != nil {
			return fmt.Errorf("reading tile %d: %w", i, err)
		}
		hvcC, _ := m.prop(id, "hvcC")
		img, err := dec.decode(singleHEIF(hvcC, g.tileW, g.tileH, data))
		if errors.Is(err, ErrUnsupported) {
			return err
		}
		if err != nil {
			return fmt.Errorf("%w: decoding tile %d: %w", ErrCorrupt, i, err)
		}
		if img.W != g.tileW || img.H != g.tileH {
			return fmt.Errorf("%w: tile %d decodes to %dx%d, not %dx%d", ErrCorrupt, i, img.W, img.H, g.tileW, g.tileH)
		}
		t := tilePlanes(img)
		for t.W > tw {
			t = planar.Halve(t)
		}
		x0, y0 := i%g.cols*tw, i/g.cols*th
		place(out.Y, t.Y, x0, y0)
		place(out.Cb, t.Cb, x0/2, y0/2)
		place(out.Cr, t.Cr, x0/2, y0/2)
		return nil
	}

	work, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	pause := pauseFor(ctx)
	var next atomic.Int64
	var used atomic.Int32
	// run takes tiles until none is left or one fails; a helper also stops
	// when the cores are wanted elsewhere.
	run := func(dec *tileDecoder, helper bool) {
		took := false
		for {
			// A helper waits while goroutines wait for a core, looking
			// every helperPause, and leaves once no tile is left.
			for helper && !spare.coresFree() {
				if int(next.Load()) >= len(g.tiles) {
					return
				}
				select {
				case <-time.After(helperPause):
				case <-work.Done():
					return
				}
			}
			if pause != nil {
				pause(work)
			}
			i := int(next.Add(1)) - 1
			if i >= len(g.tiles) || work.Err() != nil {
				break
			}
			if !took {
				took = true
				used.Add(1)
			}
			if err := tile(dec, i); err != nil {
				cancel(err)
				break
			}
		}
	}
	helpers, release := spare.extraDecoders(len(g.tiles)-1, heicInstanceBytes)
	defer release()
	var wg sync.WaitGroup
	for range helpers {
		wg.Go(func() {
			dec := newTileDecoder(work)
			defer dec.Close()
			run(dec, true)
		})
	}
	dec := newTileDecoder(work)
	run(dec, false)
	dec.Close()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return planar.Image{}, 0, err
	}
	if err := context.Cause(work); err != nil {
		return planar.Image{}, 0, err
	}

	// Crop to the output size; the strides stay.
	w, h := ceilDiv(g.outW, scale), ceilDiv(g.outH, scale)
	out.W, out.H = w, h
	out.Y.W, out.Y.H = w, h
	out.Cb.W, out.Cb.H = ceilDiv(w, 2), ceilDiv(h, 2)
	out.Cr.W, out.Cr.H = out.Cb.W, out.Cb.H
	return out, int(used.Load()), nil
}

// tilePlanes returns a decoded tile as 4:2:0 planes: a grey tile gets
// neutral chroma.
func tilePlanes(t planar.Image) planar.Image {
	if !t.Gray {
		return t
	}
	c := planar.NewImage(t.W, t.H, 2, 2, false)
	for y := range t.H {
		copy(c.Y.Row(y), t.Y.Row(y))
	}
	for i := range c.Cb.Pix {
		c.Cb.Pix[i], c.Cr.Pix[i] = 128, 128
	}
	return c
}

// place copies src into dst at (x0, y0), clipped to dst.
func place(dst, src planar.Plane, x0, y0 int) {
	for y := 0; y < src.H && y0+y < dst.H; y++ {
		if x0 >= dst.W {
			return
		}
		n := min(src.W, dst.W-x0)
		copy(dst.Row(y0 + y)[x0:x0+n], src.Row(y)[:n])
	}
}

// singleHEIF writes a minimal HEIF file holding one HEVC-coded image: ftyp,
// a meta box (hdlr, pitm, iinf, iloc, iprp with hvcC and ispe) and an mdat
// with the coded data. It lets the decoder see one grid tile at a time.
func singleHEIF(hvcC []byte, w, h int, data []byte) []byte {
	box := func(typ string, parts ...[]byte) []byte {
		n := 8
		for _, p := range parts {
			n += len(p)
		}
		b := binary.BigEndian.AppendUint32(make([]byte, 0, n), uint32(n))
		b = append(b, typ...)
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	full := []byte{0, 0, 0, 0} // version 0, flags 0
	u16 := func(v int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
	u32 := func(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

	ftyp := box("ftyp", []byte("heic"), u32(0), []byte("mif1heic"))
	hdlr := box("hdlr", full, u32(0), []byte("pict"), make([]byte, 12), []byte{0})
	pitm := box("pitm", full, u16(1))
	infe := box("infe", []byte{2, 0, 0, 0}, u16(1), u16(0), []byte("hvc1"), []byte{0})
	iinf := box("iinf", full, u16(1), infe)
	ispe := box("ispe", full, u32(w), u32(h))
	ipco := box("ipco", box("hvcC", hvcC), ispe)
	ipma := box("ipma", full, u32(1), u16(1), []byte{2, 0x81, 0x02})
	iprp := box("iprp", ipco, ipma)
	// iloc v0: 4-byte offsets and lengths, no base offset; the offset is
	// patched once the meta box's size is known.
	iloc := box("iloc", full, []byte{0x44, 0x00}, u16(1), u16(1), u16(0), u16(1), u32(0), u32(len(data)))
	meta := box("meta", full, hdlr, pitm, iinf, iloc, iprp)
	dataOff := len(ftyp) + len(meta) + 8
	// The extent offset is iloc's last 8 bytes but 4.
	locAt := len(ftyp) + 8 + 4 + len(hdlr) + len(pitm) + len(iinf) + len(iloc) - 8
	out := make([]byte, 0, dataOff+len(data))
	out = append(out, ftyp...)
	out = append(out, meta...)
	binary.BigEndian.PutUint32(out[locAt:], uint32(dataOff))
	out = append(out, box("mdat", data)...)
	return out
}
