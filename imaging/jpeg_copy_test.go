package imaging

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"os"
	"testing"
	"time"

	"eventbox/imaging/imagingtest"
	"eventbox/internal/testtool"
)

func TestJPEGCopyOfHEICIsFullSize(t *testing.T) {
	t.Parallel()
	if !HEICSupported() {
		t.Skip("this build decodes no HEIC")
	}
	for _, name := range []string{"quadrants.heic", "portrait-exif6.heic"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile("testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			p := NewPool(PoolConfig{Workers: 1})
			info, err := p.Check(bytes.NewReader(raw), int64(len(raw)))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := p.JPEGCopy(context.Background(), bytes.NewReader(raw), int64(len(raw)), &out); err != nil {
				t.Fatal(err)
			}
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatalf("the copy is no JPEG: %v", err)
			}
			if cfg.Width != info.Width || cfg.Height != info.Height {
				t.Errorf("copy is %dx%d, the photo %dx%d as displayed", cfg.Width, cfg.Height, info.Width, info.Height)
			}
		})
	}
	t.Run("a JPEG gets no copy", func(t *testing.T) {
		raw, err := os.ReadFile("testdata/quadrants-progressive-exif6.jpg")
		if err != nil {
			t.Fatal(err)
		}
		err = NewPool(PoolConfig{}).JPEGCopy(context.Background(), bytes.NewReader(raw), int64(len(raw)), &bytes.Buffer{})
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("got %v, want ErrUnsupported", err)
		}
	})
}

// A grid HEIC (what phones write) is copied at full size with its irot
// applied, and the copy shows the picture its tiles code.
func TestJPEGCopyOfGridHEIC(t *testing.T) {
	testtool.Long(t, "grid HEICs encoded with heif-enc")
	testtool.Unraced(t, "decoding HEIC tiles")
	t.Parallel()
	testtool.Need(t, "libheif-examples", "heif-enc")
	if !HEICSupported() {
		t.Skip("this build decodes no HEIC")
	}
	for _, irot := range []int{1} {
		b, ref, err := imagingtest.GridPicture(t.TempDir(), 1000, 700, 2, irot)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		start := time.Now()
		if err := NewPool(PoolConfig{}).JPEGCopy(context.Background(), bytes.NewReader(b), int64(len(b)), &out); err != nil {
			t.Fatal(err)
		}
		t.Logf("irot %d: copy made in %v, %d KiB", irot, time.Since(start), out.Len()>>10)
		got, err := jpeg.Decode(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		want := ref
		if irot == 1 {
			want = rotateRefCCW(ref)
		}
		if got.Bounds() != want.Bounds() {
			t.Fatalf("irot %d: copy is %v, want %v", irot, got.Bounds(), want.Bounds())
		}
		if e := imagingtest.LumaError(got, want); e > 3 {
			t.Fatalf("irot %d: copy's luma is off by %.1f on average, want at most 3", irot, e)
		}
	}
}

// rotateRefCCW turns m's luma a quarter turn counter-clockwise (irot 1).
func rotateRefCCW(m *image.YCbCr) *image.YCbCr {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	r := image.NewYCbCr(image.Rect(0, 0, h, w), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			r.Y[(w-1-x)*r.YStride+y] = m.Y[y*m.YStride+x]
		}
	}
	return r
}
