package imaging

import (
	"bytes"
	"encoding/binary"
)

// exifOrientation returns the Orientation tag (1 to 8) of an EXIF block: a
// TIFF structure, with or without the "Exif\0\0" prefix JPEG's APP1 uses. It
// returns 1 when the tag is absent, out of range or unreadable: a photo with
// a broken EXIF block is shown as stored rather than refused.
func exifOrientation(b []byte) int {
	b = bytes.TrimPrefix(b, []byte("Exif\x00\x00"))
	if len(b) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(b[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 1
	}
	ifd := int64(bo.Uint32(b[4:8]))
	if ifd < 8 || ifd+2 > int64(len(b)) {
		return 1
	}
	n := int64(bo.Uint16(b[ifd:]))
	for i := range n {
		e := ifd + 2 + 12*i
		if e+12 > int64(len(b)) {
			return 1
		}
		if bo.Uint16(b[e:]) != 0x0112 {
			continue
		}
		if bo.Uint16(b[e+2:]) != 3 || bo.Uint32(b[e+4:]) != 1 { // one SHORT
			return 1
		}
		o := int(bo.Uint16(b[e+8:]))
		if o < 1 || o > 8 {
			return 1
		}
		return o
	}
	return 1
}
