package imaging_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"testing"

	"eventbox/imaging"
	"eventbox/imaging/internal/testimg"
)

// TestFitDecodesUprightAtThePrintsSize decodes photos for a print: every
// orientation comes upright at the asked longest side, and a photo is
// never made larger than it is.
func TestFitDecodesUprightAtThePrintsSize(t *testing.T) {
	pool := imaging.NewPool(imaging.PoolConfig{})
	for o := 1; o <= 8; o++ {
		data := quadrantsJPEG(t, o)
		m, err := pool.Fit(context.Background(), bytes.NewReader(data), int64(len(data)), 80)
		if err != nil {
			t.Fatalf("orientation %d: %v", o, err)
		}
		if got := m.Bounds().Size(); got != image.Pt(80, 60) {
			t.Fatalf("orientation %d: %v, want 80×60", o, got)
		}
		wantQuadrants(t, m, testimg.Red, testimg.Green, testimg.Blue, testimg.White)
	}
	data := quadrantsJPEG(t, 1)
	m, err := pool.Fit(context.Background(), bytes.NewReader(data), int64(len(data)), 4000)
	if err != nil || m.Bounds().Size() != image.Pt(qw, qh) {
		t.Fatalf("asked larger than the photo: %v, %v; want %d×%d", m.Bounds(), err, qw, qh)
	}
	// A large JPEG is decoded scaled: a 4000×3000 photo for a 1000 px print.
	big := image.NewGray(image.Rect(0, 0, 4000, 3000))
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, big, nil); err != nil {
		t.Fatal(err)
	}
	m, err = pool.Fit(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()), 1000)
	if err != nil || m.Bounds().Size() != image.Pt(1000, 750) {
		t.Fatalf("a 4000×3000 photo for 1000 px: %v, %v", m.Bounds(), err)
	}
}
