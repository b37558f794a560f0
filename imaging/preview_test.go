package imaging_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/imaging/internal/testimg"
)

// withPreview is a 1600×1200 quadrants photo stored for orientation o,
// carrying as its camera's preview the stored picture at pw×ph (or, with
// other, another picture of that size).
func withPreview(t *testing.T, o, pw, ph int, edit func([]byte) []byte) []byte {
	t.Helper()
	q := testimg.Quadrants(1600, 1200)
	stored := testimg.Stored(q, o)
	if o >= 5 {
		pw, ph = ph, pw
	}
	prev := imagingtest.PreviewOf(stored, pw, ph)
	app1 := imagingtest.EXIFWithPreview(o, prev)
	if edit != nil {
		app1 = edit(app1)
	}
	b, err := testimg.JPEG(stored, 85, app1)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPreviewIsTheCamerasOwnUpright checks that a photo's embedded
// preview comes out upright at its own size, and that every preview the
// album must not show (none, another shape than the photo, too large,
// pointing outside its block, not a JPEG photo) answers ErrNoPreview
// without decoding the photo.
func TestPreviewIsTheCamerasOwnUpright(t *testing.T) {
	for o := 1; o <= 8; o++ {
		t.Run("orientation "+string(rune('0'+o))+" comes out upright", func(t *testing.T) {
			b := withPreview(t, o, 160, 120, nil)
			out, err := imaging.Preview(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatalf("Preview: %v", err)
			}
			m := decodeJPEG(t, out)
			if got := m.Bounds().Size(); got != image.Pt(160, 120) {
				t.Fatalf("preview is %v, want 160×120", got)
			}
			wantQuadrants(t, m, testimg.Red, testimg.Green, testimg.Blue, testimg.White)
		})
	}
	noPreview := []struct {
		name string
		file func(t *testing.T) []byte
	}{
		{"a photo without an EXIF block", func(t *testing.T) []byte {
			b, err := testimg.JPEG(testimg.Quadrants(1600, 1200), 85, nil)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}},
		{"a photo whose EXIF block has no IFD1", func(t *testing.T) []byte {
			b, err := testimg.JPEG(testimg.Quadrants(1600, 1200), 85, testimg.EXIF(1, true))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}},
		{"a cropped photo that kept the camera's preview", func(t *testing.T) []byte {
			return withPreview(t, 1, 160, 90, nil)
		}},
		{"a preview larger than a camera writes", func(t *testing.T) []byte {
			return withPreview(t, 1, 1200, 900, nil)
		}},
		{"a preview whose length runs past the block", func(t *testing.T) []byte {
			return withPreview(t, 1, 160, 120, func(app1 []byte) []byte {
				// IFD1's third entry (the length) is at 6 + 26 + 2 + 24; its value 8 on.
				binary.LittleEndian.PutUint32(app1[6+26+2+24+8:], 60000)
				return app1
			})
		}},
		{"a preview whose bytes are not a JPEG", func(t *testing.T) []byte {
			return withPreview(t, 1, 160, 120, func(app1 []byte) []byte {
				copy(app1[6+68:], "not a jpeg")
				return app1
			})
		}},
		{"a PNG", func(t *testing.T) []byte { return quadrantsPNG(t, false) }},
	}
	for _, c := range noPreview {
		t.Run(c.name+" has none", func(t *testing.T) {
			b := c.file(t)
			out, err := imaging.Preview(bytes.NewReader(b), int64(len(b)))
			if !errors.Is(err, imaging.ErrNoPreview) {
				t.Fatalf("Preview answered %d bytes and %v, want ErrNoPreview", len(out), err)
			}
		})
	}
}

// TestPreviewOfA444Camera: a camera preview in 4:4:4 (chroma at full
// resolution; image/jpeg decodes it as such) comes out upright at its own
// size, in the colours of the preview, like a 4:2:0 one. It failed with
// "chroma subsampling 1x1 is not 4:2:0" (issue 39). The file is cjpeg's
// 4:4:4 fixture (internal/jpegdec/testdata/README.md) carrying itself as
// its preview.
func TestPreviewOfA444Camera(t *testing.T) {
	b444, err := os.ReadFile(filepath.Join("internal", "jpegdec", "testdata", "chroma-444.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := jpeg.Decode(bytes.NewReader(b444))
	if err != nil {
		t.Fatal(err)
	}
	if ycc, ok := want.(*image.YCbCr); !ok || ycc.SubsampleRatio != image.YCbCrSubsampleRatio444 {
		t.Fatalf("the fixture decodes as %T, want 4:4:4 Y'CbCr", want)
	}
	tests := []struct {
		name string
		o    int
		size image.Point
	}{
		{"as stored", 1, image.Pt(133, 91)},
		{"turned a quarter (orientation 6)", 6, image.Pt(91, 133)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := imagingtest.WithOwnPreview(b444, tc.o, false)
			out, err := imaging.Preview(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatalf("Preview: %v", err)
			}
			m := decodeJPEG(t, out)
			if got := m.Bounds().Size(); got != tc.size {
				t.Fatalf("preview is %v, want %v", got, tc.size)
			}
			if tc.o != 1 {
				return
			}
			if e := imagingtest.LumaError(m, want.(*image.YCbCr)); e > 3 {
				t.Errorf("preview's luma is %.1f levels off the camera's", e)
			}
			g, w := meanRGB(m), meanRGB(want)
			for i := range g {
				if d := g[i] - w[i]; d > 3 || d < -3 {
					t.Errorf("preview's mean colour %v, the camera's %v", g, w)
					break
				}
			}
		})
	}
}

// meanRGB is the mean red, green and blue of m, 0 to 255.
func meanRGB(m image.Image) [3]float64 {
	var sum [3]float64
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := m.At(x, y).RGBA()
			sum[0], sum[1], sum[2] = sum[0]+float64(r>>8), sum[1]+float64(g>>8), sum[2]+float64(bl>>8)
		}
	}
	n := float64(b.Dx() * b.Dy())
	return [3]float64{sum[0] / n, sum[1] / n, sum[2] / n}
}
