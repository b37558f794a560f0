package imaging

import (
	"bufio"
	"fmt"
	"io"
)

// checkGIF reads the logical screen size, then walks every block and
// sub-block to the trailer. Only the first frame will be shown; it must lie
// inside the screen and have a colour table.
func checkGIF(r io.ReaderAt, size int64) (Info, error) {
	info := Info{Orientation: 1}
	h, err := readAt(r, 0, 13, size)
	if err != nil {
		return info, err
	}
	info.storedW, info.storedH = le16(h[6:]), le16(h[8:])
	global := h[10]&0x80 != 0
	off := int64(13)
	if global {
		off += 3 << (h[10]&7 + 1)
	}
	if off > size {
		return info, fmt.Errorf("%w: colour table runs past the end", ErrCorrupt)
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, off, size-off), 16<<10)
	frames := 0
	for {
		b, err := br.ReadByte()
		if err != nil {
			return info, gifEOF(err)
		}
		switch b {
		case 0x21: // extension: label, then sub-blocks
			if _, err := br.ReadByte(); err != nil {
				return info, gifEOF(err)
			}
			if err := skipSubBlocks(br); err != nil {
				return info, err
			}
		case 0x2c: // image descriptor
			var d [9]byte
			if _, err := io.ReadFull(br, d[:]); err != nil {
				return info, gifEOF(err)
			}
			if frames == 0 {
				x, y, w, h := le16(d[0:]), le16(d[2:]), le16(d[4:]), le16(d[6:])
				if x+w > info.storedW || y+h > info.storedH {
					return info, fmt.Errorf("%w: first frame outside the screen", ErrCorrupt)
				}
				if !global && d[8]&0x80 == 0 {
					return info, fmt.Errorf("%w: first frame has no colour table", ErrCorrupt)
				}
			}
			if d[8]&0x80 != 0 {
				if _, err := br.Discard(3 << (d[8]&7 + 1)); err != nil {
					return info, gifEOF(err)
				}
			}
			if _, err := br.ReadByte(); err != nil { // LZW code size
				return info, gifEOF(err)
			}
			if err := skipSubBlocks(br); err != nil {
				return info, err
			}
			frames++
		case 0x3b: // trailer
			if frames == 0 {
				return info, fmt.Errorf("%w: no image", ErrCorrupt)
			}
			return info, nil
		default:
			return info, fmt.Errorf("%w: unknown block 0x%02x", ErrCorrupt, b)
		}
	}
}

func skipSubBlocks(br *bufio.Reader) error {
	for {
		n, err := br.ReadByte()
		if err != nil {
			return gifEOF(err)
		}
		if n == 0 {
			return nil
		}
		if _, err := br.Discard(int(n)); err != nil {
			return gifEOF(err)
		}
	}
}

func gifEOF(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: no trailer (truncated)", ErrCorrupt)
	}
	return fmt.Errorf("reading: %w", err)
}
