package imaging

import (
	"bytes"
	"fmt"
	"io"
)

// maxSegments bounds the header walk, so a file of empty segments cannot make
// Check slow.
const maxSegments = 4096

// checkJPEG walks the marker segments up to the first scan, reading the frame
// size and the orientation from the first EXIF APP1, then makes sure an EOI
// marker follows the scan data: the one end found while the file streamed
// in when it has (end may be nil), else by reading the data again.
func checkJPEG(r io.ReaderAt, size int64, end *JPEGEnd) (Info, error) {
	info, scan, err := jpegHeader(r, size)
	if err != nil {
		return info, err
	}
	if end != nil {
		if s, e := end.Found(); s == scan && e >= 2 && e <= size {
			if b, err := readAt(r, e-2, 2, size); err == nil && b[0] == 0xff && b[1] == 0xd9 {
				info.End = e
				return info, nil
			}
		}
	}
	info.End, err = findEOI(r, scan, size)
	return info, err
}

// jpegHeader walks the marker segments up to the first scan, reading the
// frame size and the orientation from the first EXIF APP1, and answers
// where the scan data starts.
func jpegHeader(r io.ReaderAt, size int64) (Info, int64, error) {
	info := Info{Format: JPEG, Orientation: 1}
	frame, exif := false, false
	adobe := -1 // the Adobe APP14 transform, -1 when absent
	off := int64(2)
	for range maxSegments {
		hdr, err := readAt(r, off, 2, size)
		if err != nil {
			return info, 0, err
		}
		if hdr[0] != 0xff {
			return info, 0, fmt.Errorf("%w: no marker at %d", ErrCorrupt, off)
		}
		m := hdr[1]
		switch {
		case m == 0xff: // fill byte
			off++
			continue
		case m == 0x01 || (m >= 0xd0 && m <= 0xd7):
			off += 2
			continue
		case m == 0xd8 || m == 0xd9:
			return info, 0, fmt.Errorf("%w: marker 0x%02x before the image data", ErrCorrupt, m)
		}
		lb, err := readAt(r, off+2, 2, size)
		if err != nil {
			return info, 0, err
		}
		n := be16(lb)
		if n < 2 {
			return info, 0, fmt.Errorf("%w: segment length %d", ErrCorrupt, n)
		}
		body, end := off+4, off+2+int64(n)
		if end > size {
			return info, 0, fmt.Errorf("%w: segment at %d runs past the end", ErrCorrupt, off)
		}
		switch {
		case m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc:
			if m > 0xc2 {
				return info, 0, fmt.Errorf("%w: SOF%d coding", ErrUnsupported, m-0xc0)
			}
			if frame {
				return info, 0, fmt.Errorf("%w: second frame header", ErrCorrupt)
			}
			if err := readSOF(r, body, n-2, size, &info); err != nil {
				return info, 0, err
			}
			info.progressive = m == 0xc2
			frame = true
		case m == 0xe1 && !exif && n-2 >= 14:
			seg, err := readAt(r, body, n-2, size)
			if err != nil {
				return info, 0, err
			}
			if bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
				exif = true
				info.Orientation = exifOrientation(seg)
			}
		case m == 0xee && n-2 >= 12:
			seg, err := readAt(r, body, 12, size)
			if err != nil {
				return info, 0, err
			}
			if bytes.HasPrefix(seg, []byte("Adobe")) {
				adobe = int(seg[11])
			}
		case m == 0xda:
			if !frame {
				return info, 0, fmt.Errorf("%w: scan before the frame header", ErrCorrupt)
			}
			// internal/jpegdec refuses three components with Adobe's
			// "no transform" (RGB), as it does RGB component ids.
			info.fullJPEG = info.fullJPEG || adobe == 0 && !info.progressive && info.components == 3
			return info, end, nil
		}
		off = end
	}
	return info, 0, fmt.Errorf("%w: more than %d segments before the image data", ErrCorrupt, maxSegments)
}

func readSOF(r io.ReaderAt, off int64, n int, size int64, info *Info) error {
	if n < 6 {
		return fmt.Errorf("%w: short frame header", ErrCorrupt)
	}
	b, err := readAt(r, off, 6, size)
	if err != nil {
		return err
	}
	if b[0] != 8 {
		return fmt.Errorf("%w: %d-bit samples", ErrUnsupported, b[0])
	}
	info.storedH, info.storedW = be16(b[1:]), be16(b[3:])
	if info.storedH == 0 {
		return fmt.Errorf("%w: height given by a DNL marker", ErrUnsupported)
	}
	nc := int(b[5])
	switch {
	case nc != 1 && nc != 3 && nc != 4:
		return fmt.Errorf("%w: %d components", ErrUnsupported, nc)
	case n != 6+3*nc:
		return fmt.Errorf("%w: frame header length", ErrCorrupt)
	}
	comps, err := readAt(r, off+6, 3*nc, size)
	if err != nil {
		return err
	}
	info.components = nc
	info.fullJPEG = !jpegdecLayout(comps)
	return nil
}

// jpegdecLayout reports whether internal/jpegdec decodes a frame of these
// components (3 bytes each: id, sampling, table), as its readFrame
// decides: one component, or three as Y'CbCr whose chroma components
// share a sampling that divides the luma's. Any other layout is decoded
// by image/jpeg at full size, so its memory is estimated as such. A
// sampling factor out of 1–4, which both decoders refuse, counts as
// jpegdec's.
func jpegdecLayout(comps []byte) bool {
	switch len(comps) / 3 {
	case 1:
		return true
	case 3:
	default:
		return false
	}
	var h, v [3]int
	for i := range 3 {
		h[i], v[i] = int(comps[3*i+1]>>4), int(comps[3*i+1]&15)
		if h[i] < 1 || h[i] > 4 || v[i] < 1 || v[i] > 4 {
			return true
		}
	}
	if h[1] != h[2] || v[1] != v[2] || h[0]%h[1] != 0 || v[0]%v[1] != 0 {
		return false
	}
	return !(comps[0] == 'R' && comps[3] == 'G' && comps[6] == 'B')
}

// findEOI finds the EOI marker that ends the image data from off (where
// the first scan's data starts) on and returns the offset just past it,
// walking the entropy-coded data and any segments between scans
// (progressive JPEGs) with a JPEGEnd a chunk at a time; bytes after the
// first EOI (data appended after the image, as motion photos do) are
// never read. A file without an EOI is truncated: ErrCorrupt.
func findEOI(r io.ReaderAt, off, size int64) (int64, error) {
	e := JPEGEnd{off: off, scan: off, state: endData}
	buf := make([]byte, 64<<10)
	for off < size && e.state != endDone {
		n := int(min(int64(len(buf)), size-off))
		chunk, err := readInto(r, buf[:n], off, size)
		if err != nil {
			return 0, err
		}
		e.Write(chunk)
		off += int64(n)
	}
	if _, end := e.Found(); end > 0 {
		return end, nil
	}
	return 0, fmt.Errorf("%w: no EOI marker after the image data (truncated)", ErrCorrupt)
}

func readInto(r io.ReaderAt, b []byte, off, size int64) ([]byte, error) {
	got, err := r.ReadAt(b, off)
	if got == len(b) {
		return b, nil
	}
	if err == nil || err == io.EOF {
		return nil, fmt.Errorf("%w: file ends at %d of %d", ErrCorrupt, off+int64(got), size)
	}
	return nil, fmt.Errorf("reading at %d: %w", off, err)
}
