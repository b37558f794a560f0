package imaging_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"testing"

	"eventbox/daemon/imaging"
	"eventbox/daemon/imaging/imagingtest"
	"eventbox/daemon/imaging/internal/testimg"
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
