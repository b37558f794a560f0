package imaging

import (
	"fmt"
	"io"
	"math"
)

// maxMetaSize bounds the HEIF meta box read into memory; a phone's is a few
// kilobytes.
const maxMetaSize = 4 << 20

// boxIter walks ISO-BMFF boxes in a byte slice.
type boxIter struct {
	b   []byte
	err error
}

// next returns the type and payload of the next box, or ok false at the end
// or on a malformed box (then err is set).
func (it *boxIter) next() (typ string, payload []byte, ok bool) {
	if len(it.b) == 0 || it.err != nil {
		return "", nil, false
	}
	if len(it.b) < 8 {
		it.err = fmt.Errorf("%w: %d stray bytes after the last box", ErrCorrupt, len(it.b))
		return "", nil, false
	}
	size, hdr := be32(it.b), int64(8)
	typ = string(it.b[4:8])
	switch size {
	case 0:
		size = int64(len(it.b))
	case 1:
		if len(it.b) < 16 {
			it.err = fmt.Errorf("%w: short box header", ErrCorrupt)
			return "", nil, false
		}
		size, hdr = be32(it.b[8:])<<32|be32(it.b[12:]), 16
	}
	if size < hdr || size > int64(len(it.b)) {
		it.err = fmt.Errorf("%w: box %q of %d bytes in %d", ErrCorrupt, typ, size, len(it.b))
		return "", nil, false
	}
	payload, it.b = it.b[hdr:size], it.b[size:]
	return typ, payload, true
}

// cursor reads big-endian fields from a box payload; a read past the end
// sets bad instead of panicking.
type cursor struct {
	b   []byte
	bad bool
}

func (c *cursor) uint(n int) int64 {
	if n == 0 {
		return 0
	}
	if n > len(c.b) || n > 8 {
		c.bad = true
		c.b = nil
		return 0
	}
	var v int64
	for _, x := range c.b[:n] {
		v = v<<8 | int64(x)
	}
	c.b = c.b[n:]
	return v
}

type heifMeta struct {
	primary  int64
	pictures bool // hdlr is 'pict'
	types    map[int64]string
	props    []heifProp
	assoc    map[int64][]int // 1-based property indices, in order
	fileEnd  int64           // end of the furthest file-based item extent
	items    map[int64]heifItem
	dimg     map[int64][]int64 // derived image to its inputs, in order
	// thumbs lists, for an item, the items that are its thumbnails
	// ('thmb' references, from the thumbnail to what it shows), in the
	// order the file gives them.
	thumbs map[int64][]int64
	idat   []byte
}

type heifProp struct {
	typ     string
	payload []byte
}

// checkHEIF walks the top-level boxes by their sizes (a truncated file has a
// box, or an item's data, running past the end), then reads from the meta box
// the primary item's type, size (ispe, clap) and transforms (irot, imir).
func checkHEIF(r io.ReaderAt, size int64) (Info, error) {
	info := Info{Orientation: 1}
	m, err := readHEIFMeta(r, size)
	if err != nil {
		return info, err
	}
	if !m.pictures {
		return info, fmt.Errorf("%w: not a picture", ErrUnsupported)
	}
	switch t := m.types[m.primary]; t {
	case "hvc1", "iden", "iovl":
	case "grid":
		g, err := m.grid(r, size)
		if err != nil {
			return info, err
		}
		info.heifTile = g.tileW * g.tileH
	default:
		return info, fmt.Errorf("%w: primary item of type %q", ErrUnsupported, t)
	}
	return m.primaryInfo(info)
}

func parseHEIFMeta(meta []byte) (*heifMeta, error) {
	if len(meta) < 4 {
		return nil, fmt.Errorf("%w: short meta box", ErrCorrupt)
	}
	m := &heifMeta{primary: -1, types: map[int64]string{}, assoc: map[int64][]int{},
		items: map[int64]heifItem{}, dimg: map[int64][]int64{}, thumbs: map[int64][]int64{}}
	it := boxIter{b: meta[4:]} // after version and flags
	for typ, p, ok := it.next(); ok; typ, p, ok = it.next() {
		var err error
		switch typ {
		case "hdlr":
			m.pictures = len(p) >= 12 && string(p[8:12]) == "pict"
		case "pitm":
			c := cursor{b: p}
			if c.uint(1) == 0 {
				c.uint(3)
				m.primary = c.uint(2)
			} else {
				c.uint(3)
				m.primary = c.uint(4)
			}
			if c.bad {
				err = fmt.Errorf("%w: pitm box", ErrCorrupt)
			}
		case "iinf":
			err = m.parseIINF(p)
		case "iloc":
			err = m.parseILOC(p)
		case "iprp":
			err = m.parseIPRP(p)
		case "iref":
			err = m.parseIREF(p)
		case "idat":
			m.idat = p
		}
		if err != nil {
			return nil, err
		}
	}
	if it.err != nil {
		return nil, it.err
	}
	if m.primary < 0 {
		return nil, fmt.Errorf("%w: no primary item", ErrCorrupt)
	}
	return m, nil
}

func (m *heifMeta) parseIINF(p []byte) error {
	c := cursor{b: p}
	v := c.uint(1)
	c.uint(3)
	if v == 0 {
		c.uint(2)
	} else {
		c.uint(4)
	}
	if c.bad {
		return fmt.Errorf("%w: iinf box", ErrCorrupt)
	}
	it := boxIter{b: c.b}
	for typ, e, ok := it.next(); ok; typ, e, ok = it.next() {
		if typ != "infe" {
			continue
		}
		ec := cursor{b: e}
		ev := ec.uint(1)
		ec.uint(3)
		if ev < 2 {
			continue // legacy entries carry no item type
		}
		id := ec.uint(2)
		if ev >= 3 {
			id = id<<16 | ec.uint(2)
		}
		ec.uint(2) // protection index
		t := ec.b
		if ec.bad || len(t) < 4 {
			return fmt.Errorf("%w: infe box", ErrCorrupt)
		}
		m.types[id] = string(t[:4])
	}
	return it.err
}

func (m *heifMeta) parseILOC(p []byte) error {
	c := cursor{b: p}
	v := c.uint(1)
	c.uint(3)
	sizes := c.uint(1)
	offSize, lenSize := int(sizes>>4), int(sizes&15)
	sizes = c.uint(1)
	baseSize, idxSize := int(sizes>>4), int(sizes&15)
	if v == 0 {
		idxSize = 0
	}
	for _, s := range []int{offSize, lenSize, baseSize, idxSize} {
		if s != 0 && s != 4 && s != 8 {
			return fmt.Errorf("%w: iloc field size %d", ErrCorrupt, s)
		}
	}
	count := c.uint(2)
	if v >= 2 {
		count = count<<16 | c.uint(2)
	}
	for range count {
		var id int64
		if v < 2 {
			id = c.uint(2)
		} else {
			id = c.uint(4)
		}
		method := int64(0)
		if v == 1 || v == 2 {
			method = c.uint(2) & 15
		}
		c.uint(2) // data reference index
		base := c.uint(baseSize)
		extents := c.uint(2)
		item := heifItem{method: method}
		for range extents {
			c.uint(idxSize)
			o, l := c.uint(offSize), c.uint(lenSize)
			if c.bad {
				break
			}
			item.extents = append(item.extents, [2]int64{base + o, l})
			if method == 0 && l > 0 && base >= 0 && o >= 0 && l >= 0 {
				m.fileEnd = max(m.fileEnd, base+o+l)
			}
		}
		if c.bad {
			break
		}
		m.items[id] = item
	}
	if c.bad {
		return fmt.Errorf("%w: iloc box", ErrCorrupt)
	}
	return nil
}

// maxThumbRefs bounds the items one thumbnail reference may name (a
// phone's names one: the primary image).
const maxThumbRefs = 16

// parseIREF reads the dimg references (a grid's tiles, in order) and the
// thmb ones (which items a thumbnail shows).
func (m *heifMeta) parseIREF(p []byte) error {
	c := cursor{b: p}
	n := 2
	if c.uint(1) != 0 {
		n = 4
	}
	c.uint(3)
	if c.bad {
		return fmt.Errorf("%w: iref box", ErrCorrupt)
	}
	it := boxIter{b: c.b}
	for typ, b, ok := it.next(); ok; typ, b, ok = it.next() {
		if typ == "thmb" {
			if err := m.parseThumbRef(b, n); err != nil {
				return err
			}
			continue
		}
		if typ != "dimg" {
			continue
		}
		rc := cursor{b: b}
		from := rc.uint(n)
		count := rc.uint(2)
		if rc.bad || count > maxGridTiles || len(m.dimg[from]) > 0 {
			return fmt.Errorf("%w: dimg reference", ErrCorrupt)
		}
		for range count {
			m.dimg[from] = append(m.dimg[from], rc.uint(n))
		}
		if rc.bad {
			return fmt.Errorf("%w: dimg reference", ErrCorrupt)
		}
	}
	return it.err
}

// parseThumbRef reads one thmb reference (item ids of n bytes): the
// thumbnail item, then the items it is a thumbnail of.
func (m *heifMeta) parseThumbRef(b []byte, n int) error {
	rc := cursor{b: b}
	from := rc.uint(n)
	count := rc.uint(2)
	if rc.bad || count > maxThumbRefs {
		return fmt.Errorf("%w: thmb reference", ErrCorrupt)
	}
	for range count {
		to := rc.uint(n)
		if rc.bad {
			return fmt.Errorf("%w: thmb reference", ErrCorrupt)
		}
		if len(m.thumbs[to]) < maxThumbRefs {
			m.thumbs[to] = append(m.thumbs[to], from)
		}
	}
	return nil
}

func (m *heifMeta) parseIPRP(p []byte) error {
	it := boxIter{b: p}
	for typ, b, ok := it.next(); ok; typ, b, ok = it.next() {
		switch typ {
		case "ipco":
			pi := boxIter{b: b}
			for pt, pp, ok := pi.next(); ok; pt, pp, ok = pi.next() {
				m.props = append(m.props, heifProp{pt, pp})
			}
			if pi.err != nil {
				return pi.err
			}
		case "ipma":
			c := cursor{b: b}
			v := c.uint(1)
			flags := c.uint(3)
			n := c.uint(4)
			for range n {
				id := c.uint(2)
				if v >= 1 {
					id = id<<16 | c.uint(2)
				}
				k := c.uint(1)
				for range k {
					idx := c.uint(1) & 0x7f
					if flags&1 != 0 {
						idx = (idx<<8 | c.uint(1)) & 0x7fff
					}
					m.assoc[id] = append(m.assoc[id], int(idx))
				}
				if c.bad {
					return fmt.Errorf("%w: ipma box", ErrCorrupt)
				}
			}
		}
	}
	return it.err
}

// primaryInfo applies the primary item's properties in their order: ispe
// gives the coded size, clap crops, irot turns, imir mirrors.
func (m *heifMeta) primaryInfo(info Info) (Info, error) {
	w, h := int64(-1), int64(-1)
	var o orientation
	for _, idx := range m.assoc[m.primary] {
		if idx < 1 || idx > len(m.props) {
			continue
		}
		p := m.props[idx-1]
		c := cursor{b: p.payload}
		switch p.typ {
		case "ispe":
			c.uint(4)
			w, h = c.uint(4), c.uint(4)
		case "clap":
			wn, wd, hn, hd := c.uint(4), c.uint(4), c.uint(4), c.uint(4)
			if wd > 0 && hd > 0 && !c.bad {
				cw := int64(math.Round(float64(int32(wn)) / float64(int32(wd))))
				ch := int64(math.Round(float64(int32(hn)) / float64(int32(hd))))
				if cw > 0 && ch > 0 && (o.rot%2 == 0 && cw <= w && ch <= h || o.rot%2 == 1 && cw <= h && ch <= w) {
					w, h = cw, ch
					if o.rot%2 == 1 {
						w, h = ch, cw
					}
				}
			}
		case "irot", "imir":
			o = o.transformed(&c, p.typ)
		}
		if c.bad {
			return info, fmt.Errorf("%w: %s property", ErrCorrupt, p.typ)
		}
	}
	if w <= 0 || h <= 0 {
		return info, fmt.Errorf("%w: primary item has no size", ErrCorrupt)
	}
	info.storedW, info.storedH = int(min(w, 1<<30)), int(min(h, 1<<30))
	info.Orientation = o.exif()
	return info, nil
}

// orientation is a mirror (left-right, applied first) followed by rot
// clockwise quarter turns: the group of the eight EXIF orientations.
type orientation struct {
	rot    int
	mirror bool
}

// transformed is o followed by the HEIF transform property typ (irot or
// imir) whose payload c holds; c.bad says when it is short.
func (o orientation) transformed(c *cursor, typ string) orientation {
	switch typ {
	case "irot":
		a := c.uint(1) & 3 // counter-clockwise quarter turns
		return o.turnCW((4 - int(a)) % 4)
	case "imir":
		if c.uint(1)&1 == 0 {
			return o.flipTopBottom()
		}
		return o.flipLeftRight()
	}
	return o
}

func (o orientation) turnCW(q int) orientation {
	o.rot = (o.rot + q) % 4
	return o
}

// flipLeftRight composes a left-right mirror after o: M·R^r·M^f = R^-r·M^(1-f).
func (o orientation) flipLeftRight() orientation {
	return orientation{rot: (4 - o.rot) % 4, mirror: !o.mirror}
}

// flipTopBottom composes a top-bottom mirror, which is a left-right mirror
// followed by a half turn.
func (o orientation) flipTopBottom() orientation {
	return o.flipLeftRight().turnCW(2)
}

// exif returns the EXIF Orientation value of o.
func (o orientation) exif() int {
	if !o.mirror {
		return [4]int{1, 6, 3, 8}[o.rot]
	}
	return [4]int{2, 7, 4, 5}[o.rot]
}
