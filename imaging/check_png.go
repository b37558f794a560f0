package imaging

import (
	"fmt"
	"io"
)

// maxChunks bounds the PNG chunk walk; real files have a few hundred.
const maxChunks = 1 << 17

// checkPNG walks the chunks from IHDR to IEND by their lengths, reading only
// their headers (CRCs are left to the decoder), plus an eXIf chunk for the
// orientation.
func checkPNG(r io.ReaderAt, size int64) (Info, error) {
	info := Info{Orientation: 1}
	ihdr, err := readAt(r, 8, 8+13, size)
	if err != nil {
		return info, err
	}
	if be32(ihdr) != 13 || string(ihdr[4:8]) != "IHDR" {
		return info, fmt.Errorf("%w: first chunk is not IHDR", ErrCorrupt)
	}
	w, h := be32(ihdr[8:]), be32(ihdr[12:])
	if w <= 0 || h <= 0 || w > 1<<31-1 || h > 1<<31-1 {
		return info, fmt.Errorf("%w: size %dx%d", ErrCorrupt, w, h)
	}
	depth, ctype := ihdr[16], ihdr[17]
	if !pngDepthOK(ctype, depth) {
		return info, fmt.Errorf("%w: colour type %d with depth %d", ErrCorrupt, ctype, depth)
	}
	info.storedW, info.storedH = int(min(w, 1<<30)), int(min(h, 1<<30))
	info.deep, info.interlaced = depth == 16, ihdr[20] != 0
	off := int64(8 + 12 + 13)
	idat := false
	for range maxChunks {
		hdr, err := readAt(r, off, 8, size)
		if err != nil {
			return info, err
		}
		n := be32(hdr)
		end := off + 12 + n
		if n > 1<<31-1 || end > size {
			return info, fmt.Errorf("%w: chunk %q at %d runs past the end", ErrCorrupt, hdr[4:8], off)
		}
		switch string(hdr[4:8]) {
		case "IDAT":
			idat = true
		case "eXIf":
			if n <= 1<<16 {
				b, err := readAt(r, off+8, int(n), size)
				if err != nil {
					return info, err
				}
				info.Orientation = exifOrientation(b)
			}
		case "IEND":
			if !idat {
				return info, fmt.Errorf("%w: no IDAT chunk", ErrCorrupt)
			}
			return info, nil
		}
		off = end
	}
	return info, fmt.Errorf("%w: more than %d chunks", ErrCorrupt, maxChunks)
}

func pngDepthOK(ctype, depth byte) bool {
	switch ctype {
	case 0:
		return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16
	case 3:
		return depth == 1 || depth == 2 || depth == 4 || depth == 8
	case 2, 4, 6:
		return depth == 8 || depth == 16
	}
	return false
}
