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
		case m == 0xda:
			if !frame {
				return info, 0, fmt.Errorf("%w: scan before the frame header", ErrCorrupt)
			}
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
	switch nc := int(b[5]); {
	case nc != 1 && nc != 3 && nc != 4:
		return fmt.Errorf("%w: %d components", ErrUnsupported, nc)
	case n != 6+3*nc:
		return fmt.Errorf("%w: frame header length", ErrCorrupt)
	}
	return nil
}

// findEOI finds the EOI marker that ends the image data from off on and
// returns the offset just past it. It walks the entropy-coded data and any
// segments between scans (progressive JPEGs) a chunk at a time; bytes after
// the first EOI (data appended after the image, as motion photos do) are
// never read. A file without an EOI is truncated: ErrCorrupt.
func findEOI(r io.ReaderAt, off, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for off < size {
		n := int(min(int64(len(buf)), size-off))
		chunk, err := readInto(r, buf[:n], off, size)
		if err != nil {
			return 0, err
		}
		next, end, err := scanChunk(r, chunk, off, size)
		if err != nil || end > 0 {
			return end, err
		}
		off = next
	}
	return 0, fmt.Errorf("%w: no EOI marker after the image data (truncated)", ErrCorrupt)
}

// scanChunk looks for markers in chunk, read at off. It returns the offset
// past the EOI when it finds one, else where to read the next chunk from.
func scanChunk(r io.ReaderAt, chunk []byte, off, size int64) (next, end int64, err error) {
	n := len(chunk)
	i := 0
	for {
		k := bytes.IndexByte(chunk[i:], 0xff)
		if k < 0 {
			return off + int64(n), 0, nil
		}
		j := i + k + 1
		for j < n && chunk[j] == 0xff {
			j++
		}
		if j == n {
			if off+int64(j) >= size {
				return size, 0, nil
			}
			return off + int64(j-1), 0, nil // read again from the run's last 0xFF
		}
		switch m := chunk[j]; {
		case m == 0x00 || (m >= 0xd0 && m <= 0xd7): // stuffing, restart
			i = j + 1
		case m == 0xd9:
			return 0, off + int64(j) + 1, nil
		default: // a segment between scans: skip it by its length
			lb, err := readAt(r, off+int64(j+1), 2, size)
			if err != nil {
				return 0, 0, err
			}
			return off + int64(j+1) + int64(be16(lb)), 0, nil
		}
	}
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
