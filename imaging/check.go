package imaging

import (
	"errors"
	"fmt"
	"io"
)

// DefaultMaxPixels is the pixel count (width × height) above which Check
// refuses an image with ErrTooLarge, whatever its format: 201 MP, just over
// the largest phone sensor's 200 MP (16320×12240; others make 12, 48, 50
// and 108 MP). Under it each decoder path is still held to the memory
// budget: a baseline JPEG or a grid HEIC, decoded at 1/8 scale, fits up to
// this cap; the full-size decoders have lower caps (memoryEstimate).
const DefaultMaxPixels = 201_000_000

// MaxOutOfProcessPixels is the largest image, in pixels, that is decoded in
// a process of its own when its decoding would not fit the daemon's memory
// budget (see CheckUpload and PoolConfig.OutOfProcess): 8064×6048, 48 MP.
// Those are files decoded at full size (a progressive JPEG, a 16-bit PNG, a
// single-coded HEIC); a phone's 50 to 200 MP photos are baseline JPEGs or
// grid HEICs, decoded at reduced scale within the budget.
const MaxOutOfProcessPixels = 8064 * 6048

// Info describes a checked image.
type Info struct {
	// Format is the type sniffed from the bytes.
	Format Format
	// Width and Height are the size as displayed, in pixels: after the
	// orientation is applied, so a portrait photo is taller than wide.
	Width, Height int
	// Orientation is the EXIF-style orientation, 1 to 8 (1: as stored), that
	// Make applies. For HEIC it is derived from the irot and imir
	// properties, which the HEIF decoder itself applies; an EXIF
	// orientation inside a HEIC is ignored, as the HEIF standard requires.
	Orientation int
	// End is the offset just past the image in the file. For a JPEG it
	// follows the first EOI marker: what comes after (a motion photo's
	// video, the second image of an MPO, padding) is not part of the
	// image, and a caller may cut it off. For other formats it is the
	// file's size.
	End int64

	storedW, storedH int  // size as coded, before orientation
	progressive      bool // JPEG: progressive coding
	deep             bool // PNG: 16 bits per sample
	interlaced       bool // PNG: Adam7
	lossless         bool // WebP: VP8L
	heifTile         int  // HEIC: pixels in one grid tile; 0 when not a grid
	outOfProcess     bool // its decoding does not fit the in-process budget
	// JPEG: a layout internal/jpegdec refuses (CMYK, RGB, unusual
	// chroma), which image/jpeg decodes at full size.
	fullJPEG   bool
	components int // JPEG: components in the frame
	// JPEG: image/jpeg's full-size decode fits the budget the image was
	// checked against (or the image is for a process of its own), so a
	// file jpegdec refuses only once its scan is read may fall back to it.
	fullJPEGFits bool
}

// OutOfProcess reports whether the image's decoding would not fit the
// daemon's memory budget, so that only a process of its own may decode it
// (CheckUpload accepts such an image; Check refuses it).
func (i Info) OutOfProcess() bool { return i.outOfProcess }

// Pixels returns Width × Height.
func (i Info) Pixels() int { return i.Width * i.Height }

// Check validates the image file of size bytes in r without decoding it, with
// DefaultMaxPixels as the limit. See Pool.Check.
func Check(r io.ReaderAt, size int64) (Info, error) {
	return check(r, size, DefaultMaxPixels, DefaultMemoryBytes, false, nil)
}

// CheckUpload validates an uploaded photo as Check does, but accepts an
// image whose decoding would not fit the memory budget when it has at most
// MaxOutOfProcessPixels: its Info says OutOfProcess, and a Pool with an
// OutOfProcess maker decodes it in a process of its own. It is for photos
// only, whose variants come later from the pool; whatever decodes an image
// in the daemon itself (a logo, a video's poster) uses Check. end, when
// not nil, has been written the whole file as it was received: a JPEG's
// end is then taken from it instead of read again (it may be nil).
func CheckUpload(r io.ReaderAt, size int64, end *JPEGEnd) (Info, error) {
	return check(r, size, DefaultMaxPixels, DefaultMemoryBytes, true, end)
}

// check validates the file; outOfProcess accepts, up to
// MaxOutOfProcessPixels, an image over the memory budget memBytes; end
// may be nil (see CheckUpload).
func check(r io.ReaderAt, size int64, maxPixels int, memBytes int64, outOfProcess bool, end *JPEGEnd) (Info, error) {
	head, err := readAt(r, 0, int(min(size, 512)), size)
	if err != nil {
		return Info{}, err
	}
	f, ok := Sniff(head)
	if !ok {
		return Info{}, ErrUnsupported
	}
	var info Info
	switch f {
	case JPEG:
		info, err = checkJPEG(r, size, end)
	case PNG:
		info, err = checkPNG(r, size)
	case GIF:
		info, err = checkGIF(r, size)
	case WebP:
		info, err = checkWebP(r, size)
	case HEIC:
		if !heicSupported {
			return Info{}, fmt.Errorf("checking %s: %w: not in this build", f, ErrUnsupported)
		}
		info, err = checkHEIF(r, size)
	}
	if err != nil {
		return Info{}, fmt.Errorf("checking %s: %w", f, err)
	}
	info.Format = f
	if info.End == 0 {
		info.End = size
	}
	if info.storedW <= 0 || info.storedH <= 0 {
		return Info{}, fmt.Errorf("checking %s: %w: size %dx%d", f, ErrCorrupt, info.storedW, info.storedH)
	}
	if int64(info.storedW)*int64(info.storedH) > int64(maxPixels) {
		return Info{}, fmt.Errorf("checking %s: %w: %dx%d is more than %d pixels", f, ErrTooLarge, info.storedW, info.storedH, maxPixels)
	}
	if f == JPEG {
		info.fullJPEGFits = fullJPEGEstimate(info) <= memBytes
	}
	if need := memoryEstimate(info); need > memBytes {
		if outOfProcess && int64(info.storedW)*int64(info.storedH) <= MaxOutOfProcessPixels {
			info.outOfProcess, info.fullJPEGFits = true, true
			return oriented(info), nil
		}
		return Info{}, fmt.Errorf("checking %s: %w: decoding %dx%d needs about %d MiB, more than the %d MiB budget",
			f, ErrTooLarge, info.storedW, info.storedH, need>>20, memBytes>>20)
	}
	return oriented(info), nil
}

// oriented fills in the size as displayed.
func oriented(info Info) Info {
	if info.Orientation < 1 || info.Orientation > 8 {
		info.Orientation = 1
	}
	info.Width, info.Height = info.storedW, info.storedH
	if info.Orientation >= 5 {
		info.Width, info.Height = info.storedH, info.storedW
	}
	return info
}

// readAt reads n bytes at off. Bytes beyond size, the end of the file, mean a
// truncated file: ErrCorrupt.
func readAt(r io.ReaderAt, off int64, n int, size int64) ([]byte, error) {
	if off < 0 || n < 0 || off+int64(n) > size {
		return nil, fmt.Errorf("%w: %d bytes at %d run past the end (%d)", ErrCorrupt, n, off, size)
	}
	b := make([]byte, n)
	got, err := r.ReadAt(b, off)
	if got == n {
		return b, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: file ends at %d", ErrCorrupt, off+int64(got))
	}
	return nil, fmt.Errorf("reading at %d: %w", off, err)
}

func be16(b []byte) int { return int(b[0])<<8 | int(b[1]) }
func be32(b []byte) int64 {
	return int64(b[0])<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3])
}
func le16(b []byte) int { return int(b[0]) | int(b[1])<<8 }
func le24(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }
func le32(b []byte) int64 {
	return int64(b[0]) | int64(b[1])<<8 | int64(b[2])<<16 | int64(b[3])<<24
}
