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
	"testing"

	"eventbox/imaging/internal/jpegdec"
	"eventbox/imaging/internal/planar"
	"eventbox/imaging/internal/testimg"
)

// stdPlanes decodes b with image/jpeg and returns its planes.
func stdPlanes(t *testing.T, b []byte) planar.Image {
	t.Helper()
	m, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("image/jpeg: %v", err)
	}
	return planar.FromImage(m)
}

// boxDown averages denom×denom blocks of p (partial edge blocks over what
// exists), which is what a scaled IDCT approximates.
func boxDown(p planar.Plane, denom int) planar.Plane {
	w, h := (p.W+denom-1)/denom, (p.H+denom-1)/denom
	d := planar.NewPlane(w, h)
	for y := range h {
		for x := range w {
			sum, n := 0, 0
			for yy := y * denom; yy < min((y+1)*denom, p.H); yy++ {
				for xx := x * denom; xx < min((x+1)*denom, p.W); xx++ {
					sum += int(p.Pix[yy*p.Stride+xx])
					n++
				}
			}
			d.Pix[y*d.Stride+x] = byte((sum + n/2) / n)
		}
	}
	return d
}

func psnr(t *testing.T, a, b planar.Plane) (float64, int) {
	t.Helper()
	if a.W != b.W || a.H != b.H {
		t.Fatalf("planes differ in size: %dx%d and %dx%d", a.W, a.H, b.W, b.H)
	}
	var se float64
	worst := 0
	for y := range a.H {
		ra, rb := a.Row(y), b.Row(y)
		for x := range ra {
			d := int(ra[x]) - int(rb[x])
			se += float64(d * d)
			worst = max(worst, d, -d)
		}
	}
	mse := se / float64(a.W*a.H)
	if mse == 0 {
		return math.Inf(1), 0
	}
	return 10 * math.Log10(255*255/mse), worst
}

func decode(t *testing.T, b []byte, denom int) planar.Image {
	t.Helper()
	m, err := jpegdec.Decode(context.Background(), bytes.NewReader(b), int64(len(b)), denom)
	if err != nil {
		t.Fatalf("Decode 1/%d: %v", denom, err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("Decode 1/%d gave inconsistent planes: %v", denom, err)
	}
	return m
}

func TestDecodeMatchesImageJPEG(t *testing.T) {
	photo := testimg.Photo(203, 141, 7) // odd sizes: partial MCUs on both edges
	gray := image.NewGray(photo.Bounds())
	copy(gray.Pix, photo.Y[:len(gray.Pix)])
	for y := range photo.Rect.Dy() {
		copy(gray.Pix[y*gray.Stride:], photo.Y[y*photo.YStride:y*photo.YStride+photo.Rect.Dx()])
	}
	tests := []struct {
		name string
		m    image.Image
	}{
		{"a 4:2:0 colour photo decodes like image/jpeg", photo},
		{"a grey photo decodes like image/jpeg", gray},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := testimg.JPEG(tt.m, 90, testimg.EXIF(1, true))
			if err != nil {
				t.Fatal(err)
			}
			want := stdPlanes(t, b)
			for _, denom := range []int{1, 2, 4, 8} {
				got := decode(t, b, denom)
				if got.Gray != want.Gray {
					t.Fatalf("1/%d: grey %v, want %v", denom, got.Gray, want.Gray)
				}
				planes := [][2]planar.Plane{{got.Y, want.Y}}
				if !got.Gray {
					planes = append(planes, [2]planar.Plane{got.Cb, want.Cb}, [2]planar.Plane{got.Cr, want.Cr})
				}
				for i, p := range planes {
					ref := p[1]
					minPSNR, maxErr := 30.0, 255
					if denom == 1 {
						minPSNR, maxErr = 45, 4
					} else {
						ref = boxDown(ref, denom)
					}
					if denom == 8 {
						// 1/8 is each block's mean before clamping, so it
						// strays only where the full decode clips.
						minPSNR, maxErr = 45, 8
					}
					db, worst := psnr(t, p[0], ref)
					if db < minPSNR || worst > maxErr {
						t.Errorf("1/%d plane %d: PSNR %.1f dB, worst error %d; want at least %.0f dB and at most %d", denom, i, db, worst, minPSNR, maxErr)
					}
				}
			}
		})
	}
}

func TestDecodeRefusesBrokenFiles(t *testing.T) {
	b, err := testimg.JPEG(testimg.Photo(256, 192, 3), 90, nil)
	if err != nil {
		t.Fatal(err)
	}
	sos := bytes.Index(b, []byte{0xff, 0xda})
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"a file cut in the middle of its scan is invalid", b[:len(b)/2], jpegdec.ErrFormat},
		{"a file cut inside its headers is invalid", b[:sos-20], jpegdec.ErrFormat},
		{"a file that is not a JPEG is invalid", []byte("hello, this is text and not a photo"), jpegdec.ErrFormat},
		{"an empty file is invalid", nil, jpegdec.ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jpegdec.Decode(context.Background(), bytes.NewReader(tt.data), int64(len(tt.data)), 2)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Decode: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestDecodeStopsWhenContextEnds(t *testing.T) {
	b, err := testimg.JPEG(testimg.Photo(256, 192, 3), 90, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := jpegdec.Decode(ctx, bytes.NewReader(b), int64(len(b)), 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Decode with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestDecodeCjpegVariants covers what image/jpeg's encoder never writes:
// restart markers, 4:4:4 and 4:2:2 chroma, and progressive files (refused
// with ErrUnsupported so the caller falls back). The files are fixtures made
// by cjpeg (see testdata/README.md).
func TestDecodeCjpegVariants(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		wantErr error
	}{
		{"restart markers every MCU row decode like image/jpeg", "restart-every-row.jpg", nil},
		{"restart markers every 3 MCUs decode like image/jpeg", "restart-every-3-mcus.jpg", nil},
		{"4:4:4 chroma decodes like image/jpeg", "chroma-444.jpg", nil},
		{"4:2:2 chroma decodes like image/jpeg", "chroma-422.jpg", nil},
		{"optimised Huffman tables decode like image/jpeg", "optimized.jpg", nil},
		{"a progressive file is left to another decoder", "progressive.jpg", jpegdec.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := jpegdec.Decode(context.Background(), bytes.NewReader(b), int64(len(b)), 1)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Decode: %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			want := stdPlanes(t, b)
			for i, p := range [][2]planar.Plane{{got.Y, want.Y}, {got.Cb, want.Cb}, {got.Cr, want.Cr}} {
				if db, worst := psnr(t, p[0], p[1]); db < 45 || worst > 4 {
					t.Errorf("plane %d: PSNR %.1f dB, worst error %d against image/jpeg", i, db, worst)
				}
			}
		})
	}
}

// claimSize rewrites the frame header of a JPEG to claim w×h.
func claimSize(t *testing.T, b []byte, w, h int) []byte {
	t.Helper()
	b = bytes.Clone(b)
	i := bytes.Index(b, []byte{0xff, 0xc0})
	if i < 0 {
		t.Fatal("no SOF0")
	}
	b[i+5], b[i+6], b[i+7], b[i+8] = byte(h>>8), byte(h), byte(w>>8), byte(w)
	return b
}

func TestDecodeFillsMissingScanDataGrey(t *testing.T) {
	b, err := testimg.JPEG(testimg.Photo(640, 480, 3), 90, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The frame header claims 7000×7000; the scan codes 640×480 worth
	// of MCUs and stops at the EOI.
	big := claimSize(t, b, 7000, 7000)
	for _, denom := range []int{1, 2} {
		m, err := jpegdec.Decode(context.Background(), bytes.NewReader(big), int64(len(big)), denom)
		if err != nil {
			t.Fatalf("1/%d: %v", denom, err)
		}
		if m.W != 7000/denom || m.H != 7000/denom {
			t.Fatalf("1/%d: %dx%d", denom, m.W, m.H)
		}
		// Far past the coded data: grey, as libjpeg and browsers show it.
		for _, p := range []planar.Plane{m.Y, m.Cb, m.Cr} {
			for _, xy := range [][2]int{{p.W - 1, p.H - 1}, {p.W / 2, p.H / 2}, {0, p.H - 1}} {
				if v := p.Pix[xy[1]*p.Stride+xy[0]]; v != 128 {
					t.Fatalf("1/%d: sample at %v is %d, want 128", denom, xy, v)
				}
			}
		}
	}
	// A file that ends inside its scan is still refused.
	cut := claimSize(t, b[:len(b)-2], 7000, 7000)
	if _, err := jpegdec.Decode(context.Background(), bytes.NewReader(cut), int64(len(cut)), 2); !errors.Is(err, jpegdec.ErrFormat) {
		t.Fatalf("a file cut in its scan: %v, want ErrFormat", err)
	}
}
