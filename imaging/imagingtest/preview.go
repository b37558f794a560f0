package imagingtest

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

// EXIFWithPreview returns the payload of a JPEG APP1 segment as a phone
// camera writes it, cut to what the box reads: IFD0 with orientation o,
// and IFD1 with preview, a small JPEG of the picture as stored (before
// the orientation), little-endian.
func EXIFWithPreview(o int, preview []byte) []byte {
	le := binary.LittleEndian
	entry := func(b []byte, tag, typ uint16, value uint32) []byte {
		b = le.AppendUint16(b, tag)
		b = le.AppendUint16(b, typ)
		b = le.AppendUint32(b, 1)
		return le.AppendUint32(b, value)
	}
	// The TIFF header (8 bytes), IFD0 at 8 (2 + 12 + 4), IFD1 at 26
	// (2 + 3×12 + 4), the preview at 68.
	t := []byte("II*\x00\x08\x00\x00\x00")
	t = le.AppendUint16(t, 1)
	t = entry(t, 0x0112, 3, uint32(o)) // Orientation
	t = le.AppendUint32(t, 26)
	t = le.AppendUint16(t, 3)
	t = entry(t, 0x0103, 3, 6)                    // Compression: JPEG
	t = entry(t, 0x0201, 4, 68)                   // JPEGInterchangeFormat
	t = entry(t, 0x0202, 4, uint32(len(preview))) // JPEGInterchangeFormatLength
	t = le.AppendUint32(t, 0)
	t = append(t, preview...)
	return append([]byte("Exif\x00\x00"), t...)
}

// PreviewOf is a w×h copy of m (nearest pixel) as a JPEG of quality 80,
// the kind of preview a camera writes into its photos.
func PreviewOf(m image.Image, w, h int) []byte {
	small := image.NewRGBA(image.Rect(0, 0, w, h))
	b := m.Bounds()
	for y := range h {
		for x := range w {
			small.Set(x, y, m.At(b.Min.X+x*b.Dx()/w, b.Min.Y+y*b.Dy()/h))
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, small, &jpeg.Options{Quality: 80}); err != nil {
		panic(err) // encoding into memory does not fail
	}
	return buf.Bytes()
}

// WithAPP1 returns the JPEG b with payload inserted as an APP1 segment
// right after its SOI marker.
func WithAPP1(b, payload []byte) []byte {
	out := make([]byte, 0, len(b)+len(payload)+4)
	out = append(out, b[:2]...)
	out = append(out, 0xff, 0xe1, byte((len(payload)+2)>>8), byte(len(payload)+2))
	out = append(out, payload...)
	return append(out, b[2:]...)
}

// PhoneJPEG is an 800×600 photo carrying, as a phone camera's do, a
// 160×120 preview of itself in its EXIF block. With badHuffman its
// Huffman tables are damaged: the file passes the upload's check but its
// variants cannot be made (the attempt fails and waits for its retry).
func PhoneJPEG(t testing.TB, badHuffman bool) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for y := range 600 {
		for x := range 800 {
			m.Set(x, y, color.RGBA{uint8(x / 4), uint8(y / 3), 120, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if badHuffman {
		DamageHuffman(b)
	}
	return WithAPP1(b, EXIFWithPreview(1, PreviewOf(m, 160, 120)))
}

// DamageHuffman damages the Huffman tables of the JPEG b in place: every
// DHT segment's first count says 200 codes of one bit. The file still
// passes the upload's check, but its image data cannot be decoded.
func DamageHuffman(b []byte) {
	for i := 2; i+5 < len(b) && b[i] == 0xff && b[i+1] != 0xda; {
		if b[i+1] == 0xc4 {
			b[i+5] = 200
		}
		i += 2 + int(binary.BigEndian.Uint16(b[i+2:]))
	}
}

// WithOwnPreview returns the JPEG b carrying a copy of itself as its
// camera's preview in an EXIF block with orientation o, so the preview has
// b's size and chroma subsampling (a 4:4:4 file made by cjpeg gives a
// 4:4:4 preview, which image/jpeg's encoder cannot write). With
// badHuffman the photo's own tables are damaged (DamageHuffman), not the
// preview's.
func WithOwnPreview(b []byte, o int, badHuffman bool) []byte {
	photo := bytes.Clone(b)
	if badHuffman {
		DamageHuffman(photo)
	}
	return WithAPP1(photo, EXIFWithPreview(o, b))
}
