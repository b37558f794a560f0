package imaging

import (
	"bytes"
	"errors"
	"fmt"
	"image/jpeg"
	"io"

	"eventbox/imaging/internal/planar"
)

// The bounds of a camera's embedded preview that Preview accepts: phones
// write 160×120 (the DCF size) to 512×384 in a few to a few tens of KB.
const (
	previewMaxBytes = 96 << 10
	previewMaxSide  = 640
)

// ErrNoPreview: the image carries no embedded preview Preview can use.
var ErrNoPreview = errors.New("no embedded preview")

// exifThumbnail returns the JPEG thumbnail an EXIF block carries in IFD1
// (JPEGInterchangeFormat and its length), or nil.
func exifThumbnail(b []byte) []byte {
	t := parseTIFF(b)
	if t.ifd0 == nil {
		return nil
	}
	// IFD1 follows IFD0: its offset is the word after IFD0's entries.
	ifd0 := int64(t.bo.Uint32(b[4:8]))
	next := ifd0 + 2 + 12*int64(t.bo.Uint16(b[ifd0:]))
	if next+4 > int64(len(b)) {
		return nil
	}
	ifd1 := t.ifd(int64(t.bo.Uint32(b[next:])))
	off, okOff := ifd1[0x0201]
	n, okLen := ifd1[0x0202]
	if !okOff || !okLen || off.count != 1 || n.count != 1 {
		return nil
	}
	start, length := t.long(off), t.long(n)
	if length < 4 || length > previewMaxBytes || start < 8 || start+length > int64(len(b)) {
		return nil
	}
	return b[start : start+length]
}

// long reads the value of a one-value SHORT or LONG entry; -1 otherwise.
func (t tiff) long(e tiffEntry) int64 {
	switch e.typ {
	case 3:
		return int64(t.bo.Uint16(t.b[e.at:]))
	case 4:
		return int64(t.bo.Uint32(t.b[e.at:]))
	}
	return -1
}

// Preview returns the camera's own small preview of the JPEG photo of
// size bytes in r (the thumbnail of its EXIF block, IFD1), turned upright
// and encoded again as a JPEG at ThumbQuality, for the album to show
// while the thumb is being made. It reads the file's headers, a few
// kilobytes, and decodes the preview only (under a millisecond for a
// phone's 12 MP photo; unlike Check it does not look for the end of the
// image data, which the upload's check did). It answers ErrNoPreview,
// wrapped, when the file is not a JPEG or has no such preview, or one
// that is too large, broken, or of another shape than the photo (an
// editor that cropped the photo and left the camera's preview as it was).
// A preview of any chroma subsampling (4:4:4 too) is encoded as 4:2:0.
func Preview(r io.ReaderAt, size int64) ([]byte, error) {
	head, err := readAt(r, 0, int(min(size, 512)), size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPreview, err)
	}
	if f, _ := Sniff(head); f != JPEG {
		return nil, ErrNoPreview
	}
	info, _, err := jpegHeader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPreview, err)
	}
	blocks, err := jpegMeta(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the exif block: %w", ErrNoPreview, err)
	}
	var thumb []byte
	for _, b := range blocks {
		if b.kind == "exif" {
			thumb = exifThumbnail(b.data)
			break
		}
	}
	if thumb == nil {
		return nil, ErrNoPreview
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(thumb))
	if err != nil || cfg.Width < 1 || cfg.Height < 1 || cfg.Width > previewMaxSide || cfg.Height > previewMaxSide {
		return nil, ErrNoPreview
	}
	// The preview is stored like the photo, before its orientation: its
	// shape must be the stored photo's, within a pixel of rounding.
	if d := cfg.Width*info.storedH - cfg.Height*info.storedW; max(d, -d) > max(info.storedW, info.storedH) {
		return nil, ErrNoPreview
	}
	m, err := jpeg.Decode(bytes.NewReader(thumb))
	if err != nil {
		return nil, ErrNoPreview
	}
	img := planar.Orient(to420(planar.FromImage(m)), info.Orientation)
	out, err := encode(img, ThumbQuality)
	if err != nil {
		return nil, fmt.Errorf("encoding the preview: %w", err)
	}
	return out, nil
}

// to420 returns m with the 4:2:0 chroma the encoder writes: a preview in
// 4:4:4, 4:2:2 or another subsampling has its chroma resampled (a copy of
// a few hundred KB at most, at a preview's size); a grey or 4:2:0 one is
// returned as it is.
func to420(m planar.Image) planar.Image {
	if m.Gray || (m.SubX == 2 && m.SubY == 2) {
		return m
	}
	return planar.Resize(m, m.W, m.H)
}
