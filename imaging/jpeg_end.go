package imaging

import "bytes"

// JPEGEnd finds where a JPEG's image data ends while the file streams in,
// so that the check of an upload need not read the whole file again for
// it: it walks the same marker segments as the check, up to the first
// scan, then the entropy-coded data and the segments between scans, to
// the first EOI marker (the check's own walk of the data, findEOI, is
// this one). Write it the file's bytes in order; it never
// fails, and gives up (Found answers zeros) on anything it does not
// follow, leaving the check to read the file as it would without it.
// The zero value is ready to use.
type JPEGEnd struct {
	off   int64 // bytes written so far
	state endState
	mark  byte  // the header segment's marker
	seg   int   // a segment length being read
	skip  int64 // bytes left of a segment's body
	scan  int64 // where the first scan's data starts; 0 until known
	end   int64 // just past the EOI; 0 until found
}

type endState uint8

const (
	endSOI0    endState = iota // wants the 0xFF of SOI
	endSOI1                    // wants the 0xD8 of SOI
	endMarker0                 // header: wants a marker's 0xFF
	endMarker1                 // header: wants the marker (0xFF: fill)
	endLen0                    // header: the segment length's high byte
	endLen1                    // header: its low byte
	endBody                    // header: skipping the segment body
	endData                    // entropy-coded data: looking for 0xFF
	endDataFF                  // entropy-coded data: after 0xFF
	endSegLen0                 // between scans: a segment length's high byte
	endSegLen1                 // its low byte
	endSegBody                 // between scans: skipping the body
	endDone                    // found the end, or gave up
)

// Write implements io.Writer; it never fails.
func (e *JPEGEnd) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && e.state != endDone {
		switch e.state {
		case endData:
			k := bytes.IndexByte(p, 0xff)
			if k < 0 {
				e.off += int64(len(p))
				return n, nil
			}
			e.off += int64(k + 1)
			p = p[k+1:]
			e.state = endDataFF
			continue
		case endBody, endSegBody:
			k := min(e.skip, int64(len(p)))
			e.skip -= k
			e.off += k
			p = p[k:]
			if e.skip == 0 {
				e.bodyRead(e.off)
			}
			continue
		}
		e.step(p[0])
		e.off++
		p = p[1:]
	}
	return n, nil
}

// step takes the byte at e.off in the states that read one at a time.
func (e *JPEGEnd) step(b byte) {
	switch e.state {
	case endSOI0:
		e.expect(b == 0xff, endSOI1)
	case endSOI1:
		e.expect(b == 0xd8, endMarker0)
	case endMarker0:
		e.expect(b == 0xff, endMarker1)
	case endMarker1:
		switch {
		case b == 0xff: // fill byte
		case b == 0x01 || (b >= 0xd0 && b <= 0xd7): // no length
			e.state = endMarker0
		case b == 0xd8 || b == 0xd9:
			e.state = endDone
		default:
			e.mark, e.state = b, endLen0
		}
	case endLen0, endSegLen0:
		e.seg = int(b) << 8
		e.state++
	case endLen1, endSegLen1:
		e.seg |= int(b)
		switch {
		case e.seg < 2 && e.state == endLen1:
			e.state = endDone // the check refuses such a header
		case e.seg < 2:
			// Between scans the walk goes on from inside the length,
			// whose bytes (0 or 1) are data without a marker.
			e.state = endData
		default:
			e.skip = int64(e.seg - 2)
			e.state++
			if e.skip == 0 {
				e.bodyRead(e.off + 1)
			}
		}
	case endDataFF:
		switch {
		case b == 0xff:
		case b == 0x00 || (b >= 0xd0 && b <= 0xd7): // stuffing, restart
			e.state = endData
		case b == 0xd9:
			e.end = e.off + 1
			e.state = endDone
		default: // a segment between scans
			e.state = endSegLen0
		}
	}
}

// bodyRead moves on from a segment body that ended at off: to the next
// marker in the header, or into the scan data (which starts at off after
// the SOS header).
func (e *JPEGEnd) bodyRead(off int64) {
	switch {
	case e.state == endSegBody:
		e.state = endData
	case e.mark == 0xda:
		e.scan, e.state = off, endData
	default:
		e.state = endMarker0
	}
}

func (e *JPEGEnd) expect(ok bool, next endState) {
	if ok {
		e.state = next
	} else {
		e.state = endDone
	}
}

// Found answers where the first scan's data starts and the offset just
// past the first EOI marker that follows it, as the check finds them;
// zeros when the bytes written do not show them.
func (e *JPEGEnd) Found() (scan, end int64) {
	if e.end == 0 {
		return 0, 0
	}
	return e.scan, e.end
}
