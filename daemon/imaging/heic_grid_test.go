package imaging_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"math"
	"os/exec"
	"testing"

	"eventbox/daemon/imaging"
	"eventbox/daemon/imaging/imagingtest"
)

// lumaError is the mean absolute difference between got's luma and want's
// luma reduced to got's size by area averaging.
func lumaError(t *testing.T, got image.Image, want *image.YCbCr) float64 {
	t.Helper()
	g, ok := got.(*image.YCbCr)
	if !ok {
		t.Fatalf("display is %T, not Y'CbCr", got)
	}
	gw, gh := g.Rect.Dx(), g.Rect.Dy()
	ww, wh := want.Rect.Dx(), want.Rect.Dy()
	var sum float64
	for y := range gh {
		y0, y1 := y*wh/gh, max((y+1)*wh/gh, y*wh/gh+1)
		for x := range gw {
			x0, x1 := x*ww/gw, max((x+1)*ww/gw, x*ww/gw+1)
			var s, n int
			for yy := y0; yy < y1; yy++ {
				for xx := x0; xx < x1; xx++ {
					s += int(want.Y[yy*want.YStride+xx])
					n++
				}
			}
			sum += math.Abs(float64(g.Y[y*g.YStride+x]) - float64(s)/float64(n))
		}
	}
	return sum / float64(gw*gh)
}

// TestGridHEICMakesVariantsTileByTile makes the variants of phone-sized grid
// HEICs (12 MP and 48 MP, 512×512 tiles, the iPhone's layout) and compares
// the display with the picture the tiles code.
func TestGridHEICMakesVariantsTileByTile(t *testing.T) {
	if _, err := exec.LookPath("heif-enc"); err != nil {
		t.Skip("heif-enc is not installed (Debian package libheif-examples)")
	}
	if !imaging.HEICSupported() {
		t.Skip("no HEIC in this build")
	}
	tests := []struct {
		name string
		w, h int
		irot int
		dw   int
	}{
		{"a 12 MP grid like an iPhone's", 4032, 3024, 0, 1920},
		{"a 12 MP grid turned by irot", 4032, 3024, 1, 1440},
		{"a 48 MP grid like an iPhone's", 8064, 6048, 0, 1920},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ref, err := imagingtest.GridPicture(t.TempDir(), tt.w, tt.h, 4, tt.irot)
			if err != nil {
				t.Fatal(err)
			}
			info, err := imaging.Check(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			v, err := imaging.NewPool(imaging.PoolConfig{}).Make(context.Background(), bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if v.Width != tt.dw || info.Width*1920 != info.Height*1920*info.Width/info.Height {
				t.Fatalf("display %dx%d for %dx%d, want width %d", v.Width, v.Height, info.Width, info.Height, tt.dw)
			}
			disp, err := jpeg.Decode(bytes.NewReader(v.Display))
			if err != nil {
				t.Fatal(err)
			}
			want := ref
			if tt.irot == 1 {
				want = rotateCCW(ref)
			}
			if e := lumaError(t, disp, want); e > 4 {
				t.Fatalf("display's luma is off by %.1f on average, want at most 4", e)
			}
		})
	}
}

// rotateCCW turns m's luma a quarter turn counter-clockwise (irot 1).
func rotateCCW(m *image.YCbCr) *image.YCbCr {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	r := image.NewYCbCr(image.Rect(0, 0, h, w), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			r.Y[(w-1-x)*r.YStride+y] = m.Y[y*m.YStride+x]
		}
	}
	return r
}
