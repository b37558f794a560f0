package imaging

import (
	"fmt"
	"io"
)

// checkWebP checks that the RIFF container fits the file and walks its
// chunks, reading the size from the VP8, VP8L or VP8X chunk and the
// orientation from an EXIF chunk.
func checkWebP(r io.ReaderAt, size int64) (Info, error) {
	info := Info{Orientation: 1}
	h, err := readAt(r, 0, 12, size)
	if err != nil {
		return info, err
	}
	riffEnd := 8 + le32(h[4:])
	if riffEnd < 12+8 || riffEnd > size {
		return info, fmt.Errorf("%w: RIFF size %d for a file of %d bytes (truncated)", ErrCorrupt, riffEnd-8, size)
	}
	off := int64(12)
	extended, bitstream := false, false
	for i := 0; off < riffEnd; i++ {
		if i >= maxChunks {
			return info, fmt.Errorf("%w: more than %d chunks", ErrCorrupt, maxChunks)
		}
		c, err := readAt(r, off, 8, riffEnd)
		if err != nil {
			return info, err
		}
		n := le32(c[4:])
		data, end := off+8, off+8+n+n&1
		if data+n > riffEnd {
			return info, fmt.Errorf("%w: chunk %q runs past the RIFF end", ErrCorrupt, c[:4])
		}
		fourcc := string(c[:4])
		if i == 0 && fourcc != "VP8 " && fourcc != "VP8L" && fourcc != "VP8X" {
			return info, fmt.Errorf("%w: first chunk %q", ErrCorrupt, fourcc)
		}
		switch fourcc {
		case "VP8X":
			if i != 0 || n < 10 {
				return info, fmt.Errorf("%w: misplaced VP8X chunk", ErrCorrupt)
			}
			b, err := readAt(r, data, 10, riffEnd)
			if err != nil {
				return info, err
			}
			if b[0]&0x02 != 0 {
				return info, fmt.Errorf("%w: animated WebP", ErrUnsupported)
			}
			extended = true
			info.storedW, info.storedH = 1+le24(b[4:]), 1+le24(b[7:])
		case "VP8 ":
			if bitstream {
				return info, fmt.Errorf("%w: two image chunks", ErrCorrupt)
			}
			b, err := readAt(r, data, 10, data+n)
			if err != nil {
				return info, err
			}
			if b[0]&1 != 0 || b[3] != 0x9d || b[4] != 0x01 || b[5] != 0x2a {
				return info, fmt.Errorf("%w: bad VP8 frame header", ErrCorrupt)
			}
			// The frame tag's 19-bit size of the first partition must fit
			// in the chunk after the 10-byte header, or the decoder runs
			// out of data after the upload was accepted.
			if first := int64(uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16) >> 5; first > n-10 {
				return info, fmt.Errorf("%w: VP8 first partition longer than its chunk", ErrCorrupt)
			}
			bitstream = true
			if !extended {
				info.storedW, info.storedH = le16(b[6:])&0x3fff, le16(b[8:])&0x3fff
			}
		case "VP8L":
			if bitstream {
				return info, fmt.Errorf("%w: two image chunks", ErrCorrupt)
			}
			b, err := readAt(r, data, 5, data+n)
			if err != nil {
				return info, err
			}
			if b[0] != 0x2f {
				return info, fmt.Errorf("%w: bad VP8L signature", ErrCorrupt)
			}
			bitstream = true
			info.lossless = true
			if !extended {
				v := le32(b[1:])
				info.storedW, info.storedH = int(1+v&0x3fff), int(1+v>>14&0x3fff)
			}
		case "EXIF":
			if n <= 1<<16 {
				b, err := readAt(r, data, int(n), riffEnd)
				if err != nil {
					return info, err
				}
				info.Orientation = exifOrientation(b)
			}
		}
		off = end
	}
	if !bitstream {
		return info, fmt.Errorf("%w: no image chunk", ErrCorrupt)
	}
	return info, nil
}
