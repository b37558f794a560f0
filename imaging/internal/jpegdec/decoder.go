package jpegdec

import (
	"context"
	"errors"
	"eventbox/imaging/internal/jpegspec"
	"fmt"
	"io"

	"eventbox/imaging/internal/planar"
)

var (
	// ErrUnsupported means the stream is a JPEG this decoder does not handle
	// (see the package documentation); another decoder may.
	ErrUnsupported = errors.New("jpegdec: unsupported JPEG")
	// ErrFormat means the stream is not a valid JPEG: damaged, truncated, or
	// not a JPEG at all.
	ErrFormat = errors.New("jpegdec: invalid JPEG")
)

// maxPixels bounds the frame size this decoder will allocate for, whatever
// the caller checked before.
const maxPixels = 1 << 28

// maxDC bounds a DC coefficient, quantized and dequantized: an 8-bit
// sample block's lies within ±1024, so this leaves twice the room.
const maxDC = 2048

type component struct {
	id     byte
	h, v   int // sampling factors
	tq     int // quantisation table
	td, ta int // Huffman tables of the current scan
	bw, bh int // blocks per row and column, padded to whole MCUs
	cw, ch int // component size in pixels at full scale
	plane  planar.Plane
	pred   int32
	seen   bool
}

type decoder struct {
	ctx    context.Context
	rd     *reader
	denom  int
	bs     int // output samples per block side: 8/denom
	w, h   int
	comps  []component
	hmax   int
	vmax   int
	mcusX  int
	mcusY  int
	frame  bool
	adobe  int // Adobe APP14 transform, -1 when absent
	rstInt int

	quant    [4][64]int32 // zig-zag order
	quantSet [4]bool
	dc, ac   [4]huffTable

	keep [64]bool // by zig-zag index: whether the IDCT at this scale reads it
	blk  [64]int32

	acc    uint64
	nbits  uint32
	marker bool
	eof    bool // the zero bytes are fed because the file ended
	zeros  int
}

// Decode decodes the JPEG of size bytes in r, scaled down by denom (1, 2, 4
// or 8), into planes of ceil(W/denom)×ceil(H/denom) pixels, where W×H is the
// frame size. Colour images keep the file's chroma subsampling. EXIF
// orientation is not applied. It fails with ErrUnsupported or ErrFormat
// (wrapped), with ctx's error when ctx ends, or with the read error.
func Decode(ctx context.Context, r io.ReaderAt, size int64, denom int) (planar.Image, error) {
	switch denom {
	case 1, 2, 4, 8:
	default:
		return planar.Image{}, fmt.Errorf("scale 1/%d is not 1/1, 1/2, 1/4 or 1/8", denom)
	}
	d := &decoder{ctx: ctx, rd: newReader(r, size), denom: denom, bs: 8 / denom, adobe: -1}
	for k, n := range jpegspec.Unzig {
		d.keep[k] = int(n%8) < d.bs && int(n/8) < d.bs
	}
	if err := d.run(); err != nil {
		return planar.Image{}, err
	}
	return d.image(), nil
}

func (d *decoder) image() planar.Image {
	w, h := (d.w+d.denom-1)/d.denom, (d.h+d.denom-1)/d.denom
	m := planar.Image{W: w, H: h, Y: d.comps[0].plane, SubX: 1, SubY: 1, Gray: len(d.comps) == 1}
	if !m.Gray {
		m.SubX, m.SubY = d.hmax/d.comps[1].h, d.vmax/d.comps[1].v
		m.Cb, m.Cr = d.comps[1].plane, d.comps[2].plane
	}
	return m
}

// nextMarker skips to the next marker and returns its code. Bytes between
// segments are skipped, as libjpeg does, including stuffed 0xFF 0x00 pairs.
func (d *decoder) nextMarker() (byte, error) {
	for {
		b, err := d.rd.readByte()
		if err != nil {
			return 0, err
		}
		if b != 0xff {
			continue
		}
		for b == 0xff {
			if b, err = d.rd.readByte(); err != nil {
				return 0, err
			}
		}
		if b != 0 {
			return b, nil
		}
	}
}

func (d *decoder) run() error {
	var soi [2]byte
	if err := d.rd.readFull(soi[:]); err != nil {
		return err
	}
	if soi != [2]byte{0xff, 0xd8} {
		return fmt.Errorf("%w: no SOI marker", ErrFormat)
	}
	scans := 0
	for {
		m, err := d.nextMarker()
		if err != nil {
			if scans > 0 && errors.Is(err, ErrFormat) {
				// The last scan is complete; only the EOI is missing.
				break
			}
			return err
		}
		if m == 0xd9 { // EOI
			break
		}
		if m == 0x01 || (m >= 0xd0 && m <= 0xd7) { // TEM, stray RSTn
			continue
		}
		var lb [2]byte
		if err := d.rd.readFull(lb[:]); err != nil {
			return err
		}
		n := int(lb[0])<<8 | int(lb[1]) - 2
		if n < 0 {
			return fmt.Errorf("%w: segment length %d", ErrFormat, n+2)
		}
		switch {
		case m == 0xc0 || m == 0xc1:
			err = d.readFrame(n)
		case m == 0xc2:
			return fmt.Errorf("%w: progressive", ErrUnsupported)
		case m >= 0xc3 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc:
			return fmt.Errorf("%w: SOF%d coding", ErrUnsupported, m-0xc0)
		case m == 0xc4:
			err = d.readDHT(n)
		case m == 0xcc:
			return fmt.Errorf("%w: arithmetic coding", ErrUnsupported)
		case m == 0xdb:
			err = d.readDQT(n)
		case m == 0xdd:
			err = d.readDRI(n)
		case m == 0xdc:
			return fmt.Errorf("%w: DNL marker", ErrUnsupported)
		case m == 0xee:
			err = d.readAdobe(n)
		case m == 0xda:
			err = d.readScan(n)
			scans++
		default:
			err = d.rd.skip(n)
		}
		if err != nil {
			return err
		}
	}
	if !d.frame {
		return fmt.Errorf("%w: no frame", ErrFormat)
	}
	for i := range d.comps {
		if !d.comps[i].seen {
			return fmt.Errorf("%w: component %d has no scan", ErrFormat, i)
		}
	}
	return nil
}

func (d *decoder) readFrame(n int) error {
	if d.frame {
		return fmt.Errorf("%w: second frame header", ErrFormat)
	}
	if n < 6 {
		return fmt.Errorf("%w: short frame header", ErrFormat)
	}
	buf := make([]byte, n)
	if err := d.rd.readFull(buf); err != nil {
		return err
	}
	if buf[0] != 8 {
		return fmt.Errorf("%w: %d-bit samples", ErrUnsupported, buf[0])
	}
	d.h = int(buf[1])<<8 | int(buf[2])
	d.w = int(buf[3])<<8 | int(buf[4])
	nc := int(buf[5])
	if d.h == 0 {
		return fmt.Errorf("%w: height defined by DNL", ErrUnsupported)
	}
	if d.w == 0 || d.w*d.h > maxPixels {
		return fmt.Errorf("%w: frame of %dx%d", ErrFormat, d.w, d.h)
	}
	if nc != 1 && nc != 3 {
		return fmt.Errorf("%w: %d components", ErrUnsupported, nc)
	}
	if n != 6+3*nc {
		return fmt.Errorf("%w: frame header length", ErrFormat)
	}
	d.comps = make([]component, nc)
	for i := range d.comps {
		c := &d.comps[i]
		p := buf[6+3*i:]
		c.id, c.h, c.v, c.tq = p[0], int(p[1]>>4), int(p[1]&15), int(p[2])
		if c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 || c.tq > 3 {
			return fmt.Errorf("%w: component %d sampling %dx%d table %d", ErrFormat, i, c.h, c.v, c.tq)
		}
	}
	if nc == 1 {
		// A single component is never interleaved: one block per MCU.
		d.comps[0].h, d.comps[0].v = 1, 1
	} else {
		y, cb, cr := d.comps[0], d.comps[1], d.comps[2]
		if cb.h != cr.h || cb.v != cr.v || y.h%cb.h != 0 || y.v%cb.v != 0 {
			return fmt.Errorf("%w: sampling %dx%d,%dx%d,%dx%d", ErrUnsupported, y.h, y.v, cb.h, cb.v, cr.h, cr.v)
		}
		if y.id == 'R' && cb.id == 'G' && cr.id == 'B' {
			return fmt.Errorf("%w: RGB components", ErrUnsupported)
		}
	}
	d.hmax, d.vmax = d.comps[0].h, d.comps[0].v
	d.mcusX = (d.w + 8*d.hmax - 1) / (8 * d.hmax)
	d.mcusY = (d.h + 8*d.vmax - 1) / (8 * d.vmax)
	for i := range d.comps {
		c := &d.comps[i]
		c.bw, c.bh = d.mcusX*c.h, d.mcusY*c.v
		c.cw = (d.w*c.h + d.hmax - 1) / d.hmax
		c.ch = (d.h*c.v + d.vmax - 1) / d.vmax
		stride := c.bw * d.bs
		c.plane = planar.Plane{
			Pix:    make([]byte, stride*c.bh*d.bs),
			Stride: stride,
			W:      (c.cw + d.denom - 1) / d.denom,
			H:      (c.ch + d.denom - 1) / d.denom,
		}
	}
	d.frame = true
	return nil
}

func (d *decoder) readAdobe(n int) error {
	buf := make([]byte, n)
	if err := d.rd.readFull(buf); err != nil {
		return err
	}
	if n >= 12 && string(buf[:5]) == "Adobe" {
		d.adobe = int(buf[11])
	}
	return nil
}

func (d *decoder) readDQT(n int) error {
	buf := make([]byte, n)
	if err := d.rd.readFull(buf); err != nil {
		return err
	}
	for len(buf) > 0 {
		pq, tq := buf[0]>>4, int(buf[0]&15)
		if tq > 3 || pq > 1 {
			return fmt.Errorf("%w: quantisation table %d/%d", ErrFormat, pq, tq)
		}
		buf = buf[1:]
		size := 64 << pq
		if len(buf) < size {
			return fmt.Errorf("%w: short quantisation table", ErrFormat)
		}
		for k := range 64 {
			if pq == 0 {
				d.quant[tq][k] = int32(buf[k])
			} else {
				d.quant[tq][k] = int32(buf[2*k])<<8 | int32(buf[2*k+1])
			}
		}
		d.quantSet[tq] = true
		buf = buf[size:]
	}
	return nil
}

func (d *decoder) readDHT(n int) error {
	buf := make([]byte, n)
	if err := d.rd.readFull(buf); err != nil {
		return err
	}
	for len(buf) > 0 {
		if len(buf) < 17 {
			return fmt.Errorf("%w: short Huffman table", ErrFormat)
		}
		tc, th := buf[0]>>4, int(buf[0]&15)
		if tc > 1 || th > 3 {
			return fmt.Errorf("%w: Huffman table %d/%d", ErrFormat, tc, th)
		}
		var counts [16]byte
		copy(counts[:], buf[1:17])
		total := 0
		for _, c := range counts {
			total += int(c)
		}
		buf = buf[17:]
		if total > 256 || len(buf) < total {
			return fmt.Errorf("%w: Huffman table with %d symbols", ErrFormat, total)
		}
		t := &d.dc[th]
		if tc == 1 {
			t = &d.ac[th]
		}
		if err := t.build(counts, buf[:total]); err != nil {
			return err
		}
		buf = buf[total:]
	}
	return nil
}

func (d *decoder) readDRI(n int) error {
	if n != 2 {
		return fmt.Errorf("%w: DRI length", ErrFormat)
	}
	var b [2]byte
	if err := d.rd.readFull(b[:]); err != nil {
		return err
	}
	d.rstInt = int(b[0])<<8 | int(b[1])
	return nil
}

func (d *decoder) readScan(n int) error {
	if !d.frame {
		return fmt.Errorf("%w: scan before frame", ErrFormat)
	}
	if d.adobe == 0 && len(d.comps) == 3 {
		return fmt.Errorf("%w: Adobe RGB transform", ErrUnsupported)
	}
	buf := make([]byte, n)
	if err := d.rd.readFull(buf); err != nil {
		return err
	}
	if n < 1 {
		return fmt.Errorf("%w: empty scan header", ErrFormat)
	}
	ns := int(buf[0])
	if ns < 1 || ns > len(d.comps) || n != 4+2*ns {
		return fmt.Errorf("%w: scan header", ErrFormat)
	}
	scan := make([]*component, ns)
	blocks := 0
	for i := range ns {
		id, tables := buf[1+2*i], buf[2+2*i]
		var c *component
		for j := range d.comps {
			if d.comps[j].id == id {
				c = &d.comps[j]
			}
		}
		if c == nil {
			return fmt.Errorf("%w: scan names unknown component %d", ErrFormat, id)
		}
		c.td, c.ta = int(tables>>4), int(tables&15)
		if c.td > 3 || c.ta > 3 || !d.dc[c.td].set || !d.ac[c.ta].set || !d.quantSet[c.tq] {
			return fmt.Errorf("%w: scan uses a missing table", ErrFormat)
		}
		c.seen = true
		c.pred = 0
		scan[i] = c
		blocks += c.h * c.v
	}
	if ns > 1 && blocks > 10 {
		return fmt.Errorf("%w: %d blocks per MCU", ErrFormat, blocks)
	}
	d.resetBits()
	var err error
	if ns == 1 {
		err = d.decodeSingle(scan[0])
	} else {
		err = d.decodeInterleaved(scan)
	}
	if err != nil {
		return err
	}
	if d.shortOfData() && d.eof {
		return fmt.Errorf("%w: scan data ends early", ErrFormat)
	}
	d.resetBits()
	return nil
}

// ranShort reports whether the MCU just decoded needed scan data that is
// not there: the scan's data stops at a marker (an EOI, typically) before
// the frame is complete, as in a file whose frame header claims more pixels
// than it codes. Like libjpeg, the decoder then keeps what it decoded and
// fills the rest grey; a file that simply ends is refused instead.
func (d *decoder) ranShort() bool {
	return d.marker && !d.eof && d.shortOfData()
}

// fillGrey paints c grey (sample 128, a zero block) from block (bx, by) to
// the end of its block row, and every block row after it.
func (d *decoder) fillGrey(c *component, bx, by, rows int) {
	p := &c.plane
	bs := d.bs
	for y := by * bs; y < c.bh*bs; y++ {
		x0 := 0
		if y < (by+rows)*bs {
			x0 = bx * bs
		}
		row := p.Pix[y*p.Stride : y*p.Stride+c.bw*bs]
		for x := x0; x < len(row); x++ {
			row[x] = 128
		}
	}
}

// decodeInterleaved decodes a scan of several components, MCU by MCU.
func (d *decoder) decodeInterleaved(scan []*component) error {
	mcu := 0
	for my := range d.mcusY {
		if err := d.ctx.Err(); err != nil {
			return err
		}
		for mx := range d.mcusX {
			if err := d.restartIfDue(mcu, scan); err != nil {
				return err
			}
			mcu++
			for _, c := range scan {
				for by := range c.v {
					for bx := range c.h {
						if err := d.decodeBlock(c, mx*c.h+bx, my*c.v+by); err != nil {
							return err
						}
					}
				}
			}
			if d.ranShort() {
				for _, c := range scan {
					d.fillGrey(c, mx*c.h, my*c.v, c.v)
				}
				return nil
			}
		}
	}
	return nil
}

// decodeSingle decodes a scan of one component, whose MCU is one block and
// which covers only the blocks inside the component.
func (d *decoder) decodeSingle(c *component) error {
	bw, bh := (c.cw+7)/8, (c.ch+7)/8
	mcu := 0
	for by := range bh {
		if err := d.ctx.Err(); err != nil {
			return err
		}
		for bx := range bw {
			if err := d.restartIfDue(mcu, []*component{c}); err != nil {
				return err
			}
			mcu++
			if err := d.decodeBlock(c, bx, by); err != nil {
				return err
			}
			if d.ranShort() {
				d.fillGrey(c, bx, by, 1)
				return nil
			}
		}
	}
	return nil
}

// restartIfDue handles the RSTn marker that precedes MCU number mcu when a
// restart interval is set.
func (d *decoder) restartIfDue(mcu int, scan []*component) error {
	if d.rstInt == 0 || mcu == 0 || mcu%d.rstInt != 0 {
		return nil
	}
	if d.shortOfData() {
		return fmt.Errorf("%w: restart interval ends early", ErrFormat)
	}
	d.resetBits()
	m, err := d.nextMarker()
	if err != nil {
		return err
	}
	if m < 0xd0 || m > 0xd7 {
		return fmt.Errorf("%w: marker 0x%02x where a restart was due", ErrFormat, m)
	}
	for _, c := range scan {
		c.pred = 0
	}
	return nil
}

// decodeBlock decodes one block of c and writes its samples at block
// position (bx, by). The bit state lives in locals for the whole block: this
// loop is where a decode spends most of its time.
func (d *decoder) decodeBlock(c *component, bx, by int) error {
	q := &d.quant[c.tq]
	blk := &d.blk
	keep := &d.keep
	dcT, acT := &d.dc[c.td], &d.ac[c.ta]
	acc, nbits := d.acc, d.nbits

	if nbits < 32 {
		acc, nbits = d.refill(acc, nbits)
	}
	var s uint32
	if e := dcT.lut[acc>>(64-lutBits)]; e != 0 {
		l := uint32(e >> 8)
		acc <<= l
		nbits -= l
		s = uint32(e & 0xff)
	} else {
		sym, l, ok := dcT.slow(acc)
		if !ok {
			return fmt.Errorf("%w: bad Huffman code", ErrFormat)
		}
		acc <<= l
		nbits -= l
		s = uint32(sym)
	}
	if s > 11 {
		return fmt.Errorf("%w: DC magnitude %d", ErrFormat, s)
	}
	if s != 0 {
		c.pred += extend(int32(acc>>(64-s)), s)
		acc <<= s
		nbits -= s
		// An 8-bit JPEG's DC coefficient lies within ±1024, give or take
		// half a quantization step. Differences that add up beyond that
		// only come from a damaged file, and would overflow the inverse
		// DCT's arithmetic: leave such a file to image/jpeg, whose
		// garbage then stays what it always was.
		if dc := int64(c.pred) * int64(q[0]); c.pred > maxDC || c.pred < -maxDC || dc > maxDC+int64(q[0]) || dc < -maxDC-int64(q[0]) {
			return fmt.Errorf("%w: DC coefficient %d outside the 8-bit range", ErrUnsupported, dc)
		}
	}
	blk[0] = c.pred * q[0]
	hasAC := false
	for k := 1; k < 64; k++ {
		if nbits < 32 {
			acc, nbits = d.refill(acc, nbits)
		}
		if f := acT.fast[acc>>(64-lutBits)]; f != 0 {
			n := uint32(f & 0xff)
			acc <<= n
			nbits -= n
			k += int(f >> 8 & 15)
			if k > 63 {
				return fmt.Errorf("%w: coefficient index past 63", ErrFormat)
			}
			if keep[k&63] {
				blk[jpegspec.Unzig[k&63]] = (f >> 16) * q[k&63]
				hasAC = true
			}
			continue
		}
		var rs byte
		if e := acT.lut[acc>>(64-lutBits)]; e != 0 {
			l := uint32(e >> 8)
			acc <<= l
			nbits -= l
			rs = byte(e)
		} else {
			sym, l, ok := acT.slow(acc)
			if !ok {
				return fmt.Errorf("%w: bad Huffman code", ErrFormat)
			}
			acc <<= l
			nbits -= l
			rs = sym
		}
		r, s := int(rs>>4), uint32(rs&15)
		if s == 0 {
			if r != 15 {
				break
			}
			k += 15
			continue
		}
		k += r
		if k > 63 {
			return fmt.Errorf("%w: coefficient index past 63", ErrFormat)
		}
		v := extend(int32(acc>>(64-s)), s)
		acc <<= s
		nbits -= s
		if keep[k&63] {
			blk[jpegspec.Unzig[k&63]] = v * q[k&63]
			hasAC = true
		}
	}
	d.acc, d.nbits = acc, nbits

	p := &c.plane
	bs := d.bs
	dst := p.Pix[by*bs*p.Stride+bx*bs:]
	switch {
	case !hasAC || bs == 1:
		fill(dst, p.Stride, bs, clampSample((blk[0]+4)>>3))
	case bs == 8:
		idct8(blk, dst, p.Stride)
	case bs == 4:
		idct4(blk, dst, p.Stride)
	default:
		idct2(blk, dst, p.Stride)
	}
	if hasAC {
		if bs == 8 {
			*blk = [64]int32{}
		} else {
			for y := range bs {
				clear(blk[y*8 : y*8+bs])
			}
		}
	}
	blk[0] = 0
	return nil
}
