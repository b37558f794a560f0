// Package jpegenc writes baseline JPEGs from planar images: grey, or
// YCbCr with 4:2:0 chroma as the variants are made. It does what
// image/jpeg's encoder does with an *image.YCbCr, with the same tables and
// quality scale, about twice as fast: it reads the chroma planes as they
// are instead of averaging full-size chroma back down, quantizes by
// multiplying with reciprocals instead of dividing, and writes bits
// through a 64-bit accumulator (docs/decisions/images.md, "A JPEG encoder
// of our own").
package jpegenc

import (
	"errors"
	"fmt"
	"math/bits"

	"eventbox/imaging/internal/jpegspec"
	"eventbox/imaging/internal/planar"
)

// baseQuant are the example quantization tables of the JPEG standard
// (ITU T.81, Annex K.1), luminance then chrominance, in zig-zag order.
var baseQuant = [2][64]uint8{{
	16, 11, 12, 14, 12, 10, 16, 14,
	13, 14, 18, 17, 16, 19, 24, 40,
	26, 24, 22, 22, 24, 49, 35, 37,
	29, 40, 58, 51, 61, 60, 57, 51,
	56, 55, 64, 72, 92, 78, 64, 68,
	87, 69, 55, 56, 80, 109, 81, 87,
	95, 98, 103, 104, 103, 62, 77, 113,
	121, 112, 100, 120, 92, 101, 103, 99,
}, {
	17, 18, 18, 24, 21, 24, 47, 26,
	26, 47, 99, 66, 56, 66, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
}}

// huffSpec is a Huffman table as a DHT segment carries it: how many codes
// of each length from 1 to 16 bits, and the symbols in code order.
type huffSpec struct {
	counts [16]uint8
	values []uint8
}

// The typical Huffman tables of the JPEG standard (Annex K.3): luminance
// DC and AC, chrominance DC and AC.
var specs = [4]huffSpec{
	{[16]uint8{0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
		[]uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
	{[16]uint8{0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125}, []uint8{
		0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
		0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
		0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
		0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
		0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
		0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
		0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
		0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
		0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
		0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
		0xf9, 0xfa,
	}},
	{[16]uint8{0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
		[]uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
	{[16]uint8{0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119}, []uint8{
		0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
		0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0,
		0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
		0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
		0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
		0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
		0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
		0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
		0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
		0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
		0xf9, 0xfa,
	}},
}

// huffCode is one table's codes by symbol: the code in the low bits,
// its length in bits above them (length<<16 | code).
type huffCode [256]uint32

// codes builds the codes of s, as the standard assigns them (Annex C).
func (s huffSpec) codes() huffCode {
	var h huffCode
	code, k := uint32(0), 0
	for n, count := range s.counts {
		for range count {
			h[s.values[k]] = uint32(n+1)<<16 | code
			code++
			k++
		}
		code <<= 1
	}
	return h
}

// recipShift is the precision of the quantizers' reciprocals: for a
// magnitude a below 2^32/divisor (every coefficient's is), a times
// ceil(2^recipShift/divisor), shifted right by recipShift, is a divided
// by the divisor exactly, rounded down ("division by invariant
// integers"): the same result as image/jpeg's division, without one.
const recipShift = 32

// tables are what an encoding at one quality uses.
type tables struct {
	quant [2][64]uint8 // zig-zag order, as written in DQT
	// recip and half are by zig-zag index: ceil(2^recipShift / div) and
	// div/2, where div is 8·quant.
	recip [2][64]uint64
	half  [2][64]uint32
}

// codes are specs' codes, the same at every quality; never written.
var codes = [4]huffCode{specs[0].codes(), specs[1].codes(), specs[2].codes(), specs[3].codes()}

// newTables scales the standard quantization tables to quality (1 to 100),
// as the IJG library and image/jpeg do.
func newTables(quality int) *tables {
	quality = min(max(quality, 1), 100)
	scale := 200 - 2*quality
	if quality < 50 {
		scale = 5000 / quality
	}
	t := &tables{}
	for i := range baseQuant {
		for k, b := range baseQuant[i] {
			q := min(max((int(b)*scale+50)/100, 1), 255)
			t.quant[i][k] = uint8(q)
			// The forward DCT's output is eight times the coefficient.
			div := uint64(8 * q)
			t.recip[i][k] = (1<<recipShift + div - 1) / div
			t.half[i][k] = uint32(div / 2)
		}
	}
	return t
}

// ErrFormat: the image cannot be written as a baseline JPEG by this
// package (chroma other than 4:2:0, or sides over 65,535 px).
var ErrFormat = errors.New("jpegenc: unsupported image")

// Append appends the JPEG encoding of m at quality (1 to 100) to dst. m
// must be grey or 4:2:0; its planes must be valid (planar.Image.Validate).
func Append(dst []byte, m planar.Image, quality int) ([]byte, error) {
	if m.W <= 0 || m.H <= 0 || m.W > 0xffff || m.H > 0xffff {
		return dst, fmt.Errorf("%w: %dx%d", ErrFormat, m.W, m.H)
	}
	if !m.Gray && (m.SubX != 2 || m.SubY != 2) {
		return dst, fmt.Errorf("%w: chroma subsampling %dx%d is not 4:2:0", ErrFormat, m.SubX, m.SubY)
	}
	t := newTables(quality)
	dst = writeHeaders(dst, m, t)
	e := encoder{t: t, w: bitWriter{buf: dst}}
	if m.Gray {
		e.gray(m.Y)
	} else {
		e.color(m)
	}
	dst = e.w.finish()
	return append(dst, 0xff, 0xd9), nil // EOI
}

// writeHeaders appends SOI, the quantization tables, the frame header,
// the Huffman tables and the scan header.
func writeHeaders(b []byte, m planar.Image, t *tables) []byte {
	// Grey has one component, with the luma tables only.
	nq, nc, nh := 2, 3, 4
	if m.Gray {
		nq, nc, nh = 1, 1, 2
	}
	b = append(b, 0xff, 0xd8) // SOI
	b = append(b, 0xff, 0xdb) // DQT
	b = be16(b, 2+65*nq)
	for i := range nq {
		b = append(b, uint8(i))
		b = append(b, t.quant[i][:]...)
	}
	b = append(b, 0xff, 0xc0) // SOF0
	b = be16(b, 8+3*nc)
	b = append(b, 8)
	b = be16(b, m.H)
	b = be16(b, m.W)
	b = append(b, uint8(nc))
	if m.Gray {
		b = append(b, 1, 0x11, 0)
	} else {
		b = append(b, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1)
	}
	n := 2
	for _, s := range specs[:nh] {
		n += 17 + len(s.values)
	}
	b = append(b, 0xff, 0xc4) // DHT
	b = be16(b, n)
	for i, s := range specs[:nh] {
		b = append(b, uint8(i&1)<<4|uint8(i>>1)) // class (DC 0, AC 1), id
		b = append(b, s.counts[:]...)
		b = append(b, s.values...)
	}
	b = append(b, 0xff, 0xda) // SOS
	b = be16(b, 6+2*nc)
	b = append(b, uint8(nc))
	if m.Gray {
		b = append(b, 1, 0x00)
	} else {
		b = append(b, 1, 0x00, 2, 0x11, 3, 0x11)
	}
	return append(b, 0, 63, 0)
}

func be16(b []byte, v int) []byte { return append(b, uint8(v>>8), uint8(v)) }

// encoder writes the entropy-coded scan.
type encoder struct {
	t   *tables
	w   bitWriter
	blk [64]int32
}

// gray writes the blocks of a grey image, left to right, top to bottom.
func (e *encoder) gray(y planar.Plane) {
	var dc int32
	for by := 0; by < y.H; by += 8 {
		for bx := 0; bx < y.W; bx += 8 {
			load(&e.blk, y, bx, by)
			dc = e.block(0, dc)
		}
	}
}

// color writes the MCUs of a 4:2:0 image: four luma blocks of 16×16
// pixels, then one block of each chroma plane.
func (e *encoder) color(m planar.Image) {
	var dcY, dcCb, dcCr int32
	for my := 0; my < m.H; my += 16 {
		for mx := 0; mx < m.W; mx += 16 {
			for _, o := range [4][2]int{{0, 0}, {8, 0}, {0, 8}, {8, 8}} {
				load(&e.blk, m.Y, mx+o[0], my+o[1])
				dcY = e.block(0, dcY)
			}
			load(&e.blk, m.Cb, mx/2, my/2)
			dcCb = e.block(1, dcCb)
			load(&e.blk, m.Cr, mx/2, my/2)
			dcCr = e.block(1, dcCr)
		}
	}
}

// load puts the 8×8 samples of p at (x0, y0), less 128, in blk; rows and
// columns past p's edge repeat its last ones.
func load(blk *[64]int32, p planar.Plane, x0, y0 int) {
	x0 = min(x0, p.W-1)
	y0 = min(y0, p.H-1)
	for y := range 8 {
		sy := min(y0+y, p.H-1)
		row := p.Pix[sy*p.Stride : sy*p.Stride+p.W]
		out := blk[y*8 : y*8+8 : y*8+8]
		if x0+8 <= len(row) {
			s := row[x0 : x0+8 : x0+8]
			out[0], out[1], out[2], out[3] = int32(s[0])-128, int32(s[1])-128, int32(s[2])-128, int32(s[3])-128
			out[4], out[5], out[6], out[7] = int32(s[4])-128, int32(s[5])-128, int32(s[6])-128, int32(s[7])-128
			continue
		}
		for x := range 8 {
			out[x] = int32(row[min(x0+x, len(row)-1)]) - 128
		}
	}
}

// block transforms, quantizes and writes e.blk with the tables of class
// c (0 luma, 1 chroma), whose component's previous DC was prev; it
// returns this block's DC.
func (e *encoder) block(c int, prev int32) int32 {
	fdct(&e.blk)
	recip, half := &e.t.recip[c], &e.t.half[c]
	// q is the block quantized, in zig-zag order, rounded half away from
	// zero as image/jpeg rounds; bit k of nz says q[k] is not zero.
	var q [64]int32
	var nz uint64
	for k := range 64 {
		v := e.blk[jpegspec.Unzig[k]&63]
		sign := v >> 31
		a := uint32((v ^ sign) - sign)
		m := int32(uint64(a+half[k]) * recip[k] >> recipShift)
		q[k] = (m ^ sign) - sign
		if m != 0 {
			nz |= 1 << k
		}
	}
	dcTab, acTab := &codes[2*c], &codes[2*c+1]
	diff := q[0] - prev
	size := magnitude(diff)
	e.w.code(dcTab[size&255])
	if size > 0 {
		e.w.bits(amplitude(diff), size)
	}
	// The AC coefficients: each nonzero one after its run of zeros.
	next := 1
	for nz &^= 1; nz != 0; nz &= nz - 1 {
		k := bits.TrailingZeros64(nz)
		run := k - next
		for ; run > 15; run -= 16 {
			e.w.code(acTab[0xf0]) // sixteen zeros
		}
		v := q[k&63]
		size := magnitude(v)
		e.w.code(acTab[(uint32(run)<<4|size)&255])
		e.w.bits(amplitude(v), size)
		next = k + 1
	}
	if next < 64 {
		e.w.code(acTab[0x00]) // end of block
	}
	return q[0]
}

// magnitude is the number of bits of |v|: its category in the standard.
func magnitude(v int32) uint32 {
	if v < 0 {
		v = -v
	}
	return uint32(bits.Len32(uint32(v)))
}

// amplitude is v's bits as the standard writes them after its category:
// a negative value as v-1, in the category's low bits.
func amplitude(v int32) uint32 {
	if v < 0 {
		v--
	}
	return uint32(v)
}

// bitWriter appends bits to buf most significant first, stuffing a zero
// byte after each 0xff byte.
type bitWriter struct {
	buf []byte
	acc uint64
	n   uint32 // bits held in acc's low end
}

// code writes a Huffman code (length<<16 | code).
func (w *bitWriter) code(c uint32) { w.bits(c&0xffff, c>>16) }

// bits writes the n low bits of v.
func (w *bitWriter) bits(v, n uint32) {
	w.acc = w.acc<<n | uint64(v&(1<<n-1))
	w.n += n
	if w.n >= 32 {
		w.flush()
	}
}

// flush moves acc's whole bytes to buf.
func (w *bitWriter) flush() {
	for w.n >= 8 {
		w.n -= 8
		b := uint8(w.acc >> w.n)
		w.buf = append(w.buf, b)
		if b == 0xff {
			w.buf = append(w.buf, 0)
		}
	}
}

// finish pads the last byte with one bits and returns buf.
func (w *bitWriter) finish() []byte {
	if pad := (8 - w.n%8) % 8; pad > 0 {
		w.bits(1<<pad-1, pad)
	}
	w.flush()
	return w.buf
}
