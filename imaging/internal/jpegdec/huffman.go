package jpegdec

import "fmt"

// lutBits is how many bits of lookahead the fast Huffman table covers; the
// codes that carry most of a photo's symbols are shorter than that.
const lutBits = 10

// huffTable is one Huffman table in canonical form (ITU T.81 Annex C and
// F.2.2.3) plus a lookup table for the short codes.
type huffTable struct {
	// lut maps the next lutBits bits to (code length << 8 | symbol), or 0
	// when the code is longer than lutBits.
	lut [1 << lutBits]uint16
	// fast maps the next lutBits bits, when they hold a whole AC code and
	// its value bits, to value<<16 | run<<8 | bits used; 0 otherwise.
	fast    [1 << lutBits]int32
	maxcode [18]int32 // largest code of each length, -1 when there is none
	valptr  [17]int32 // index in vals of the first symbol of each length
	mincode [17]int32 // smallest code of each length
	vals    [256]byte
	set     bool
}

// build fills t from the DHT counts of codes of each length 1..16 and the
// symbols in code order.
func (t *huffTable) build(counts [16]byte, vals []byte) error {
	*t = huffTable{set: true}
	copy(t.vals[:], vals)
	code, k := int32(0), int32(0)
	for l := 1; l <= 16; l++ {
		n := int32(counts[l-1])
		t.valptr[l] = k
		t.mincode[l] = code
		// Checked before the codes of this length fill the lookup
		// table: an over-subscribed length would write past its end.
		if code+n > 1<<l {
			return fmt.Errorf("%w: Huffman table is over-subscribed", ErrFormat)
		}
		if n == 0 {
			t.maxcode[l] = -1
		} else {
			t.maxcode[l] = code + n - 1
		}
		if l <= lutBits {
			for i := range n {
				c := code + i
				first := c << (lutBits - l)
				last := (c + 1) << (lutBits - l)
				for e := first; e < last; e++ {
					t.lut[e] = uint16(l)<<8 | uint16(vals[k+i])
				}
			}
		}
		code += n
		k += n
		code <<= 1
	}
	t.maxcode[17] = 0x7fffffff
	for i, e := range t.lut {
		l, sym := int(e>>8), int(e&0xff)
		run, size := sym>>4, sym&15
		if e == 0 || size == 0 || l+size > lutBits {
			continue
		}
		bits := int32(i>>(lutBits-l-size)) & (1<<size - 1)
		t.fast[i] = extend(bits, uint32(size))<<16 | int32(run)<<8 | int32(l+size)
	}
	return nil
}

// extend turns s received bits into the signed value they code (T.81
// F.2.2.1).
func extend(v int32, s uint32) int32 {
	if v < 1<<(s-1) {
		v += -1<<s + 1
	}
	return v
}

// slow decodes a code longer than lutBits from the top of acc, returning the
// symbol and the code length, or ok false for an invalid code.
func (t *huffTable) slow(acc uint64) (sym byte, l uint32, ok bool) {
	for n := lutBits + 1; n <= 16; n++ {
		code := int32(acc >> (64 - n))
		if code <= t.maxcode[n] {
			return t.vals[t.valptr[n]+code-t.mincode[n]], uint32(n), true
		}
	}
	return 0, 0, false
}

// refill runs fillBits on a copy of the bit state kept in registers.
func (d *decoder) refill(acc uint64, nbits uint32) (uint64, uint32) {
	d.acc, d.nbits = acc, nbits
	d.fillBits()
	return d.acc, d.nbits
}

// fillBits tops the bit accumulator up to more than 56 bits. Byte-stuffed
// 0xFF 0x00 pairs give one 0xFF; at a marker or the end of the file it feeds
// zero bytes and counts them, leaving the reader on the marker.
func (d *decoder) fillBits() {
	rd := d.rd
	for d.nbits <= 56 {
		if d.marker {
			d.zeros++
			d.nbits += 8
			continue
		}
		if rd.pos+1 >= rd.end {
			if !rd.more() || rd.pos+1 >= rd.end {
				// One byte or none left: either it is the file's last
				// byte or we are at the end.
				if rd.pos < rd.end && rd.buf[rd.pos] != 0xff {
					d.acc |= uint64(rd.buf[rd.pos]) << (56 - d.nbits)
					d.nbits += 8
					rd.pos++
					continue
				}
				d.marker = true
				d.eof = rd.pos >= rd.end
				continue
			}
		}
		b := rd.buf[rd.pos]
		if b == 0xff {
			if rd.buf[rd.pos+1] != 0 {
				d.marker = true
				continue
			}
			rd.pos += 2
		} else {
			rd.pos++
		}
		d.acc |= uint64(b) << (56 - d.nbits)
		d.nbits += 8
	}
}

// shortOfData reports whether the scan used bits past its end: the zero
// bytes fed after a marker, more of them than the padding allows.
func (d *decoder) shortOfData() bool {
	return d.marker && int(d.nbits) < 8*d.zeros
}

// resetBits drops the bits buffered for the scan that ended.
func (d *decoder) resetBits() {
	d.acc, d.nbits, d.marker, d.eof, d.zeros = 0, 0, false, false, 0
}
