package imaging_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"sync"
	"testing"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/internal/testtool"
)

// lumaError is the mean absolute difference between got's luma and want's
// luma reduced to got's size by area averaging.
func lumaError(t *testing.T, got image.Image, want *image.YCbCr) float64 {
	t.Helper()
	g, ok := got.(*image.YCbCr)
	if !ok {
		t.Fatalf("display is %T, not Y'CbCr", got)
	}
	return imagingtest.LumaError(g, want)
}

// TestGridHEICMakesVariantsTileByTile makes the variants of grid HEICs
// (512×512 tiles, the iPhone's layout, cropped by the grid's output size)
// and compares the display with the picture the tiles code. The 12 MP and
// 48 MP phone sizes go through the daemon in
// TestImageBombsStayWithinTheMemoryBudget.
func TestGridHEICMakesVariantsTileByTile(t *testing.T) {
	testtool.Long(t, "grid HEICs encoded with heif-enc")
	testtool.Unraced(t, "decoding HEIC tiles")
	testtool.Need(t, "libheif-examples", "heif-enc")
	if !imaging.HEICSupported() {
		t.Skip("no HEIC in this build")
	}
	tests := []struct {
		name string
		w, h int
		irot int
		dw   int
	}{
		{"a grid cropped to its output size", 2016, 1512, 0, 1920},
		{"a grid turned a quarter counter-clockwise by irot", 2016, 1512, 1, 1440},
		{"a grid smaller than the display keeps its size", 1000, 700, 0, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ref, err := imagingtest.GridPicture(t.TempDir(), tt.w, tt.h, 4, tt.irot)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := imaging.Check(bytes.NewReader(b), int64(len(b))); err != nil {
				t.Fatal(err)
			}
			v, err := imaging.NewPool(imaging.PoolConfig{}).Make(context.Background(), bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if v.Width != tt.dw {
				t.Fatalf("display %dx%d, want width %d", v.Width, v.Height, tt.dw)
			}
			disp, err := jpeg.Decode(bytes.NewReader(v.Display))
			if err != nil {
				t.Fatal(err)
			}
			want := ref
			if tt.irot == 1 {
				want = rotateCCW(ref)
			}
			if e := lumaError(t, disp, want); e > 3 {
				t.Fatalf("display's luma is off by %.1f on average, want at most 3", e)
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

// TestCheckRefusesAGridLargerThanItsItem: the memory estimate is made from
// the item's size, so tiles beyond it, or an output of another size, are
// refused rather than decoded.
func TestCheckRefusesAGridLargerThanItsItem(t *testing.T) {
	testtool.Need(t, "libheif-examples", "heif-enc")
	tile, err := imagingtest.HEIFEnc(t.TempDir(), image.NewGray(image.Rect(0, 0, 512, 512)), 50)
	if err != nil {
		t.Fatal(err)
	}
	cells := make([]int, 16)
	tests := []struct {
		name       string
		cols, rows int
		w, h       int
		want       error
	}{
		{"a grid its tiles just cover is accepted", 4, 4, 2000, 1900, nil},
		{"a grid with a column of tiles past its output is corrupt", 4, 4, 1500, 2048, imaging.ErrCorrupt},
		{"a grid with a row of tiles past its output is corrupt", 4, 4, 2048, 1500, imaging.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := imagingtest.HEICGrid([][]byte{tile}, cells, tt.cols, tt.rows, tt.w, tt.h, 512, 512, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = imaging.Check(bytes.NewReader(b), int64(len(b)))
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("Check: %v, want %v", err, tt.want)
			}
		})
	}
}

// TestGridHEICWaitsInPauseBeforeEachTile: work made with WithPause (a
// HEIC being sharpened while new photos come) calls it before each tile
// of a grid, and decodes no tile while it waits there.
func TestGridHEICWaitsInPauseBeforeEachTile(t *testing.T) {
	testtool.Unraced(t, "decoding HEIC tiles")
	testtool.Need(t, "libheif-examples", "heif-enc")
	if !imaging.HEICSupported() {
		t.Skip("no HEIC in this build")
	}
	b, _, err := imagingtest.GridPicture(t.TempDir(), 1024, 1024, 2, 0) // 2×2 tiles
	if err != nil {
		t.Fatal(err)
	}
	p := imaging.NewPool(imaging.PoolConfig{Workers: 1})
	held := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	pauses := 0
	ctx := imaging.WithPause(t.Context(), func(ctx context.Context) {
		mu.Lock()
		pauses++
		n := pauses
		mu.Unlock()
		if n == 3 { // before the third tile
			close(held)
			<-release
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := p.MakeAside(ctx, bytes.NewReader(b), int64(len(b)))
		done <- err
	}()
	<-held
	select {
	case err := <-done:
		t.Fatalf("the variants were made while the work waited in pause (%v)", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if pauses < 4 {
		t.Errorf("pause called %d times for 4 tiles", pauses)
	}
}
