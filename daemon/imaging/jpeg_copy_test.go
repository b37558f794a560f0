package imaging

import (
	"bytes"
	"context"
	"errors"
	"image/jpeg"
	"os"
	"testing"
)

func TestJPEGCopyOfHEICIsFullSize(t *testing.T) {
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
