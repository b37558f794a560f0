package imaging

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// Format names an accepted image type. Its values are the lower-case names
// the daemon may store and show.
type Format string

// The accepted formats.
const (
	JPEG Format = "jpeg"
	PNG  Format = "png"
	GIF  Format = "gif"
	WebP Format = "webp"
	HEIC Format = "heic" // HEIF with HEVC-coded images, as phones write it
)

// SniffLen is how many leading bytes Sniff needs to see every signature,
// including a HEIF file's list of compatible brands.
const SniffLen = 64

// Errors returned by Check and Pool.Make, to be tested with errors.Is. The
// daemon answers all three with 415 invalid_image.
var (
	// ErrUnsupported: not one of the accepted formats, or a variant of one
	// that cannot be decoded (an animated WebP, an AVIF, a 12-bit JPEG, …).
	ErrUnsupported = errors.New("unsupported image type")
	// ErrCorrupt: the file claims an accepted format but is damaged or
	// truncated.
	ErrCorrupt = errors.New("corrupt image")
	// ErrTooLarge: more pixels than the configured maximum.
	ErrTooLarge = errors.New("image too large")
)

// Sniff recognises an accepted format from the first bytes of a file (pass
// at least SniffLen bytes when the file has them). It looks at signatures
// only, never at a name, and reports false for anything else.
func Sniff(head []byte) (Format, bool) {
	switch {
	case len(head) >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff:
		return JPEG, true
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, true
	case bytes.HasPrefix(head, []byte("GIF87a")) || bytes.HasPrefix(head, []byte("GIF89a")):
		return GIF, true
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return WebP, true
	case len(head) >= 12 && string(head[4:8]) == "ftyp" && heifBrands(head):
		return HEIC, true
	}
	return "", false
}

// heifBrands reports whether the ftyp box at the start of head announces
// HEVC-coded HEIF: an HEVC brand as the major brand or, under a structural
// brand such as mif1, among the compatible brands. AVIF is refused.
func heifBrands(head []byte) bool {
	size := int(binary.BigEndian.Uint32(head))
	if size < 16 {
		return false
	}
	end := min(size, len(head))
	major := string(head[8:12])
	if major == "avif" || major == "avis" {
		return false
	}
	if hevcBrand(major) {
		return true
	}
	for i := 16; i+4 <= end; i += 4 {
		if hevcBrand(string(head[i : i+4])) {
			return true
		}
	}
	return false
}

func hevcBrand(b string) bool {
	switch b {
	case "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs":
		return true
	}
	return false
}

// HEICSupported reports whether this build decodes HEIC. It is false only on
// 32-bit ARM (GOARCH=arm, see heic_arm.go); Check then refuses HEIC files
// with ErrUnsupported.
func HEICSupported() bool { return heicSupported }
