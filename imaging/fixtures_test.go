package imaging_test

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"eventbox/imaging"
	"eventbox/imaging/internal/testimg"
)

// Quadrants pictures are this size unless a test says otherwise.
const qw, qh = 160, 120

// mustBytes returns a function that fails the test on an error and
// otherwise passes the bytes through: mustBytes(t)(os.ReadFile(name)).
func mustBytes(t *testing.T) func([]byte, error) []byte {
	return func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// quadrantsJPEG is the Quadrants picture stored as a camera would under
// orientation o, with EXIF (orientation and GPS).
func quadrantsJPEG(t *testing.T, o int) []byte {
	t.Helper()
	return mustBytes(t)(testimg.JPEG(testimg.Stored(testimg.Quadrants(qw, qh), o), 95, testimg.EXIF(o, true)))
}

func quadrantsPNG(t *testing.T, transparentRight bool) []byte {
	t.Helper()
	m := testimg.Quadrants(qw, qh)
	if transparentRight {
		for y := range qh {
			for x := qw / 2; x < qw; x++ {
				m.Pix[y*m.Stride+4*x+3] = 0
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func quadrantsGIF(t *testing.T) []byte {
	t.Helper()
	src := testimg.Quadrants(qw, qh)
	pal := color.Palette{testimg.Red, testimg.Green, testimg.Blue, testimg.White}
	m := image.NewPaletted(src.Bounds(), pal)
	for y := range qh {
		for x := range qw {
			m.Set(x, y, src.At(x, y))
		}
	}
	var b bytes.Buffer
	if err := gif.Encode(&b, m, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	return mustBytes(t)(os.ReadFile(filepath.Join("testdata", name)))
}

// cut returns the first fraction of b.
func cut(b []byte, fraction float64) []byte {
	return bytes.Clone(b[:int(float64(len(b))*fraction)])
}

// decodeJPEG decodes a variant and fails the test if it is not a JPEG.
func decodeJPEG(t *testing.T, b []byte) image.Image {
	t.Helper()
	m, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("variant is not a JPEG: %v", err)
	}
	return m
}

// wantQuadrants checks the colour at the centre of each quadrant of m.
func wantQuadrants(t *testing.T, m image.Image, tl, tr, bl, br color.NRGBA) {
	t.Helper()
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	for _, q := range []struct {
		name string
		x, y int
		want color.NRGBA
	}{
		{"top left", w / 4, h / 4, tl},
		{"top right", 3 * w / 4, h / 4, tr},
		{"bottom left", w / 4, 3 * h / 4, bl},
		{"bottom right", 3 * w / 4, 3 * h / 4, br},
	} {
		r, g, bl, _ := m.At(b.Min.X+q.x, b.Min.Y+q.y).RGBA()
		got := [3]int{int(r >> 8), int(g >> 8), int(bl >> 8)}
		want := [3]int{int(q.want.R), int(q.want.G), int(q.want.B)}
		for i := range 3 {
			if d := got[i] - want[i]; d > 40 || d < -40 {
				t.Errorf("%s quadrant is %v, want about %v", q.name, got, want)
				break
			}
		}
	}
}

// skipHEICUnlessSupported skips a case about a HEIC file on a build that
// does not decode HEIC (32-bit ARM).
func skipHEICUnlessSupported(t *testing.T, data []byte) {
	t.Helper()
	if f, ok := imaging.Sniff(data[:min(len(data), imaging.SniffLen)]); ok && f == imaging.HEIC && !imaging.HEICSupported() {
		t.Skip("this build does not decode HEIC (32-bit ARM)")
	}
}
