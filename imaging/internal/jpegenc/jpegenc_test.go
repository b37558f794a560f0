package jpegenc

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"testing"

	"eventbox/imaging/internal/jpegdec"
	"eventbox/imaging/internal/planar"
	"eventbox/imaging/internal/testimg"
)

// Each image is written by Append and by image/jpeg from the same planes
// at the same quality: both decode (with image/jpeg and with jpegdec) to
// the same size, ours as close to the source as image/jpeg's (PSNR within
// a tenth of a decibel) and about as large (within 2 %): the same
// tables and quality scale (image/jpeg's transform is another
// factorization, so a coefficient may round the other way). Odd sizes
// cover the blocks and MCUs that stick out of the picture.
func TestAppendWritesWhatImageJPEGWrites(t *testing.T) {
	for _, tc := range []struct {
		name    string
		w, h    int
		gray    bool
		quality int
	}{
		{"display, landscape", 1920, 1440, false, 85},
		{"display, portrait", 1440, 1920, false, 85},
		{"thumb", 400, 300, false, 80},
		{"odd sides", 333, 217, false, 85},
		{"one MCU and a bit", 17, 9, false, 85},
		{"one pixel", 1, 1, false, 85},
		{"grey", 401, 299, true, 85},
		{"low quality", 640, 480, false, 10},
		{"top quality", 640, 480, false, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := planar.FromImage(testimg.Photo(tc.w, tc.h, 3))
			if tc.gray {
				src = planar.Image{W: src.W, H: src.H, Y: src.Y, SubX: 1, SubY: 1, Gray: true}
			}
			ours, err := Append(nil, src, tc.quality)
			if err != nil {
				t.Fatal(err)
			}
			std, err := src.Std()
			if err != nil {
				t.Fatal(err)
			}
			var theirs bytes.Buffer
			if err := jpeg.Encode(&theirs, std, &jpeg.Options{Quality: tc.quality}); err != nil {
				t.Fatal(err)
			}
			a, b := decode(t, ours), decode(t, theirs.Bytes())
			if a.Bounds() != std.Bounds() {
				t.Fatalf("decoded to %v, want %v", a.Bounds(), std.Bounds())
			}
			pa, pb := psnr(std, a), psnr(std, b)
			if pa < pb-0.1 {
				t.Errorf("PSNR %.2f dB, image/jpeg's %.2f dB", pa, pb)
			}
			if r := float64(len(ours)) / float64(theirs.Len()); r < 0.98 || r > 1.02 {
				t.Errorf("%d bytes, image/jpeg's %d (%.3f×)", len(ours), theirs.Len(), r)
			}
			planes, err := jpegdec.Decode(t.Context(), bytes.NewReader(ours), int64(len(ours)), 1)
			if err != nil {
				t.Fatalf("jpegdec: %v", err)
			}
			if planes.W != tc.w || planes.H != tc.h {
				t.Fatalf("jpegdec decoded %dx%d", planes.W, planes.H)
			}
		})
	}
}

// The integer transform is the DCT: on random blocks and on the extremes
// (flat black, flat white, a checkerboard), each output is within a
// quarter of a coefficient of eight times the exact DCT-II computed in
// floating point.
func TestFDCTIsTheDCT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	blocks := [][64]int32{}
	var black, white, checker [64]int32
	for i := range 64 {
		black[i], white[i] = -128, 127
		checker[i] = int32(255*((i/8+i%8)%2)) - 128
	}
	blocks = append(blocks, black, white, checker)
	for range 1000 {
		var b [64]int32
		for i := range b {
			b[i] = int32(rng.IntN(256)) - 128
		}
		blocks = append(blocks, b)
	}
	for n, in := range blocks {
		got := in
		fdct(&got)
		for v := range 8 {
			for u := range 8 {
				var sum float64
				for y := range 8 {
					for x := range 8 {
						sum += float64(in[y*8+x]) * math.Cos(float64(2*x+1)*float64(u)*math.Pi/16) * math.Cos(float64(2*y+1)*float64(v)*math.Pi/16)
					}
				}
				cu, cv := 1.0, 1.0
				if u == 0 {
					cu = 1 / math.Sqrt2
				}
				if v == 0 {
					cv = 1 / math.Sqrt2
				}
				want := 8 * sum * cu * cv / 4
				if d := math.Abs(float64(got[v*8+u]) - want); d > 2 {
					t.Fatalf("block %d, coefficient (%d,%d): %d, want %.2f", n, u, v, got[v*8+u], want)
				}
			}
		}
	}
}

// A picture Append cannot write is refused with ErrFormat, not written
// wrong.
func TestAppendRefusesWhatBaselineCannotHold(t *testing.T) {
	for _, m := range []planar.Image{
		planar.NewImage(16, 16, 1, 1, false), // 4:4:4
		planar.NewImage(16, 16, 2, 1, false), // 4:2:2
		{W: 70000, H: 1, Gray: true},
		{},
	} {
		if b, err := Append(nil, m, 85); err == nil {
			t.Errorf("%dx%d %dx%d: %d bytes, want ErrFormat", m.W, m.H, m.SubX, m.SubY, len(b))
		}
	}
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	m, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("image/jpeg cannot read it: %v", err)
	}
	return m
}

// psnr compares the luma and chroma of two images of the same size.
func psnr(a, b image.Image) float64 {
	var sum float64
	n := 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			for _, d := range []float64{float64(ar>>8) - float64(br>>8), float64(ag>>8) - float64(bg>>8), float64(ab>>8) - float64(bb>>8)} {
				sum += d * d
				n++
			}
		}
	}
	if sum == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(sum/float64(n)))
}

// BenchmarkAppendDisplay and BenchmarkImageJPEGDisplay write a 1920×1440
// display image at quality 85, side by side.
func BenchmarkAppendDisplay(b *testing.B) {
	src := planar.FromImage(testimg.Photo(1920, 1440, 3))
	var buf []byte
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], src, 85); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImageJPEGDisplay(b *testing.B) {
	src := planar.FromImage(testimg.Photo(1920, 1440, 3))
	std, err := src.Std()
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := jpeg.Encode(&buf, std, &jpeg.Options{Quality: 85}); err != nil {
			b.Fatal(err)
		}
	}
}
