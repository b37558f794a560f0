package daemontest

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"mime/multipart"
	"testing"
)

// PhotoJPEG makes a w×h JPEG with some detail (so it is not trivially
// small), its pixels varied by seed, and, when orientation > 0, an EXIF
// block with that orientation and, when gps, a GPS block.
func PhotoJPEG(t testing.TB, w, h, orientation int, gps bool, seed int) []byte {
	t.Helper()
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Y[y*img.YStride+x] = uint8((x*7 + y*3 + seed*31) % 256)
		}
	}
	for i := range img.Cb {
		img.Cb[i] = uint8(100 + seed%50)
		img.Cr[i] = uint8(150 - seed%50)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	if orientation == 0 && !gps {
		return raw
	}
	app1 := exifSegment(orientation, gps)
	out := append([]byte{0xff, 0xd8}, app1...)
	return append(out, raw[2:]...)
}

// exifSegment builds an APP1 segment: "Exif\0\0", a big-endian TIFF header
// and IFD0 with Orientation and, when gps, a GPS IFD with a latitude ref.
func exifSegment(orientation int, gps bool) []byte {
	be := binary.BigEndian
	var tiff bytes.Buffer
	tiff.Write([]byte("MM\x00\x2a\x00\x00\x00\x08"))
	n := 1
	if gps {
		n = 2
	}
	ifd := make([]byte, 2+12*n+4)
	be.PutUint16(ifd[0:], uint16(n))
	e := ifd[2:]
	be.PutUint16(e[0:], 0x0112)
	be.PutUint16(e[2:], 3)
	be.PutUint32(e[4:], 1)
	be.PutUint16(e[8:], uint16(orientation))
	if gps {
		e = ifd[14:]
		be.PutUint16(e[0:], 0x8825)
		be.PutUint16(e[2:], 4)
		be.PutUint32(e[4:], 1)
		be.PutUint32(e[8:], uint32(8+len(ifd)))
	}
	tiff.Write(ifd)
	if gps {
		g := make([]byte, 2+12+4)
		be.PutUint16(g[0:], 1)
		be.PutUint16(g[2:], 0x0001)
		be.PutUint16(g[4:], 2)
		be.PutUint32(g[6:], 2)
		copy(g[10:], "N\x00")
		tiff.Write(g)
	}
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	seg := []byte{0xff, 0xe1, 0, 0}
	be.PutUint16(seg[2:], uint16(len(payload)+2))
	return append(seg, payload...)
}

// PNGWithAlpha makes a 64×48 PNG with a varying alpha channel.
func PNGWithAlpha(t testing.TB) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.NRGBA{R: uint8(x * 4), G: 80, B: uint8(y * 5), A: uint8(x * 4)})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// GIFImage makes a 40×30 two-colour GIF.
func GIFImage(t testing.TB) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, 40, 30), color.Palette{color.Black, color.White})
	img.Set(5, 5, color.White)
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// MultipartBody builds an upload form: the file under fileField, named
// fileName, and the text fields. It returns the form's Content-Type and
// body.
func MultipartBody(t testing.TB, fileField, fileName string, data []byte, fields map[string]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile(fileField, fileName)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(data)
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), buf.Bytes()
}
