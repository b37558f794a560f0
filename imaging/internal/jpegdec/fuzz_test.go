package jpegdec_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"eventbox/imaging/internal/jpegdec"
	"eventbox/imaging/internal/planar"
	"eventbox/imaging/internal/testimg"
)

// fuzzMaxPixels is the largest frame, summed over every frame header in the
// input, that FuzzDecode decodes: bigger ones only cost the fuzzer memory and
// time (the size limits themselves are the imaging package's business).
const fuzzMaxPixels = 1 << 22

// FuzzDecode feeds arbitrary bytes to Decode at every scale. It must never
// panic, must fail only with ErrFormat or ErrUnsupported, must allocate little
// beyond the planes its frame header asks for, and where image/jpeg decodes
// the same bytes the sizes must agree and the pixels stay close: at 1/1
// against image/jpeg's, at 1/2, 1/4 and 1/8 against image/jpeg's box-averaged
// down.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jpg"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed fixtures in testdata: %v", err)
	}
	var seeds [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	photo := testimg.Photo(37, 29, 5)
	gray := image.NewGray(photo.Bounds())
	for y := range photo.Rect.Dy() {
		copy(gray.Pix[y*gray.Stride:], photo.Y[y*photo.YStride:y*photo.YStride+photo.Rect.Dx()])
	}
	for _, m := range []image.Image{photo, gray} {
		b, err := testimg.JPEG(m, 75, testimg.EXIF(6, true))
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, b := range seeds {
		for scale := range uint8(4) {
			f.Add(b, scale)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, scale uint8) {
		denom := 1 << (scale % 4)
		frame := declaredPixels(b)
		if frame > fuzzMaxPixels {
			t.Skip("frame too large to fuzz cheaply")
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := jpegdec.Decode(context.Background(), bytes.NewReader(b), int64(len(b)), denom)
		runtime.ReadMemStats(&after)
		// Planes padded to whole MCUs of up to 32×32 pixels, three of them,
		// plus the read buffer, one segment and the decoder itself.
		limit := 3*frame + 1<<20 + 2*uint64(len(b))
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit {
			t.Fatalf("Decode 1/%d of %d bytes allocated %d bytes; its frame headers allow at most %d", denom, len(b), alloc, limit)
		}
		if err != nil {
			if !errors.Is(err, jpegdec.ErrFormat) && !errors.Is(err, jpegdec.ErrUnsupported) {
				t.Fatalf("Decode 1/%d: %v, want ErrFormat or ErrUnsupported", denom, err)
			}
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("Decode 1/%d gave inconsistent planes: %v", denom, err)
		}
		m, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			return
		}
		want := planar.FromImage(m)
		if w, h := (want.W+denom-1)/denom, (want.H+denom-1)/denom; got.W != w || got.H != h {
			t.Fatalf("Decode 1/%d: %dx%d, want %dx%d (image/jpeg's %dx%d scaled)", denom, got.W, got.H, w, h, want.W, want.H)
		}
		if got.Gray != want.Gray {
			t.Fatalf("Decode 1/%d: grey %v, image/jpeg's %v", denom, got.Gray, want.Gray)
		}
		planes := [][2]planar.Plane{{got.Y, want.Y}}
		if !got.Gray && got.SubX == want.SubX && got.SubY == want.SubY {
			planes = append(planes, [2]planar.Plane{got.Cb, want.Cb}, [2]planar.Plane{got.Cr, want.Cr})
		}
		for i, p := range planes {
			if denom > 1 {
				if db, worst := scaledPSNR(p[0], p[1], denom); db < 30 {
					t.Errorf("Decode 1/%d plane %d: PSNR %.1f dB, worst error %d against image/jpeg's box-filtered; want at least 30 dB", denom, i, db, worst)
				}
				continue
			}
			ref, minPSNR, maxErr := p[1], 45.0, 4
			if db, worst := psnr(t, p[0], ref); db < minPSNR || worst > maxErr {
				t.Errorf("Decode 1/%d plane %d: PSNR %.1f dB, worst error %d against image/jpeg; want at least %.0f dB and at most %d", denom, i, db, worst, minPSNR, maxErr)
			}
		}
	})
}

// declaredPixels sums width × height, rounded up to whole 32×32 MCUs, over
// everything in b that could be a frame header (FF C0 to FF CF but DHT, JPG
// and DAC): an upper bound on the frame Decode may allocate planes for.
func declaredPixels(b []byte) uint64 {
	var n uint64
	for i := 0; i+9 <= len(b); i++ {
		if b[i] != 0xff || b[i+1] < 0xc0 || b[i+1] > 0xcf || b[i+1] == 0xc4 || b[i+1] == 0xc8 || b[i+1] == 0xcc {
			continue
		}
		h := uint64(b[i+5])<<8 | uint64(b[i+6])
		w := uint64(b[i+7])<<8 | uint64(b[i+8])
		n += (w + 31) / 32 * 32 * ((h + 31) / 32 * 32)
	}
	return n
}

// scaledPSNR compares a plane decoded at 1/denom with full, image/jpeg's
// at full size, box-filtered, over the pixels whose box holds no clipped
// pixel of full (0 or 255): the full-size decode clamps each pixel before
// the box averages them, the scaled IDCT clamps the average, so where the
// picture clips the two differ by design (a fuzzed JPEG found 0.7 % of a
// chroma plane clipped and an error of 145 there). No pixel to compare
// answers +Inf.
func scaledPSNR(dec, full planar.Plane, denom int) (float64, int) {
	var se float64
	n, worst := 0, 0
	for y := range dec.H {
		row := dec.Row(y)
	pixels:
		for x := range row {
			sum, k := 0, 0
			for yy := y * denom; yy < min((y+1)*denom, full.H); yy++ {
				for xx := x * denom; xx < min((x+1)*denom, full.W); xx++ {
					v := full.Pix[yy*full.Stride+xx]
					if v == 0 || v == 255 {
						continue pixels
					}
					sum += int(v)
					k++
				}
			}
			if k == 0 {
				continue
			}
			d := int(row[x]) - (sum+k/2)/k
			se += float64(d * d)
			worst = max(worst, d, -d)
			n++
		}
	}
	if n == 0 || se == 0 {
		return math.Inf(1), 0
	}
	return 10 * math.Log10(255*255/(se/float64(n))), worst
}
