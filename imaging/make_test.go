package imaging_test

import (
	"bytes"
	"context"
	"errors"
	"image/color"
	"sync"
	"testing"
	"time"

	"eventbox/imaging"
	"eventbox/imaging/internal/testimg"
)

func makeVariants(t *testing.T, data []byte) imaging.Variants {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v, err := imaging.NewPool(imaging.PoolConfig{}).Make(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("Make: %v", err)
	}
	return v
}

func TestMakeShowsEveryOrientationUpright(t *testing.T) {
	names := []string{"", "as stored", "mirrored", "turned 180°", "flipped", "transposed", "turned 90°", "transversed", "turned 270°"}
	for o := 1; o <= 8; o++ {
		t.Run("a JPEG "+names[o]+" is shown upright", func(t *testing.T) {
			v := makeVariants(t, quadrantsJPEG(t, o))
			if v.Width != qw || v.Height != qh {
				t.Fatalf("display is %dx%d, want %dx%d", v.Width, v.Height, qw, qh)
			}
			for _, b := range [][]byte{v.Display, v.Thumb} {
				m := decodeJPEG(t, b)
				if got := m.Bounds().Size(); got.X != qw || got.Y != qh {
					t.Fatalf("variant is %v, want %dx%d", got, qw, qh)
				}
				wantQuadrants(t, m, testimg.Red, testimg.Green, testimg.Blue, testimg.White)
			}
		})
	}
}

func TestMakeHandlesEveryFormat(t *testing.T) {
	white := color.NRGBA{255, 255, 255, 255}
	tests := []struct {
		name           string
		data           []byte
		w, h           int
		tl, tr, bl, br color.NRGBA
	}{
		{"a PNG with alpha is flattened onto white", quadrantsPNG(t, true), qw, qh, testimg.Red, white, testimg.Blue, white},
		{"an opaque PNG keeps its colours", quadrantsPNG(t, false), qw, qh, testimg.Red, testimg.Green, testimg.Blue, testimg.White},
		{"a GIF's first frame is shown", quadrantsGIF(t), qw, qh, testimg.Red, testimg.Green, testimg.Blue, testimg.White},
		{"a lossy WebP is decoded", testdata(t, "quadrants.webp"), 64, 48, testimg.Red, testimg.Green, testimg.Blue, testimg.White},
		{"a lossless WebP with alpha is flattened onto white", testdata(t, "half-transparent.webp"), 64, 48, testimg.Red, white, testimg.Blue, white},
		{"a HEIC gets JPEG variants", testdata(t, "quadrants.heic"), 128, 96, testimg.Red, testimg.Green, testimg.Blue, testimg.White},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skipHEICUnlessSupported(t, tt.data)
			v := makeVariants(t, tt.data)
			if v.Width != tt.w || v.Height != tt.h {
				t.Fatalf("display is %dx%d, want %dx%d", v.Width, v.Height, tt.w, tt.h)
			}
			wantQuadrants(t, decodeJPEG(t, v.Display), tt.tl, tt.tr, tt.bl, tt.br)
			wantQuadrants(t, decodeJPEG(t, v.Thumb), tt.tl, tt.tr, tt.bl, tt.br)
		})
	}
}

// segments lists the marker codes of a JPEG's header segments, up to the
// first scan.
func segments(t *testing.T, b []byte) []byte {
	t.Helper()
	var ms []byte
	for i := 2; i+4 <= len(b) && b[i] == 0xff; {
		m := b[i+1]
		ms = append(ms, m)
		if m == 0xda {
			return ms
		}
		i += 2 + int(b[i+2])<<8 + int(b[i+3])
	}
	t.Fatalf("no scan found in the variant's headers")
	return nil
}

func TestMakeStripsGPSAndEveryOtherMetadata(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a 12 MP photo")
	}
	photo := mustBytes(t)(testimg.JPEG(testimg.Photo(4032, 3024, 5), 90, testimg.EXIF(6, true)))
	if len(photo) < 3<<20 || len(photo) > 6<<20 {
		t.Fatalf("the phone-like photo weighs %d bytes, want 3-6 MB", len(photo))
	}
	if !bytes.Contains(photo, []byte("GPS")) && !bytes.Contains(photo, []byte{0x25, 0x88}) {
		t.Fatalf("the source photo has no GPS IFD pointer; the test would prove nothing")
	}
	v := makeVariants(t, photo)
	if v.Width != 1440 || v.Height != 1920 {
		t.Fatalf("display of a 4032x3024 photo turned 90° is %dx%d, want 1440x1920", v.Width, v.Height)
	}
	for name, b := range map[string][]byte{"display": v.Display, "thumb": v.Thumb} {
		for _, m := range segments(t, b) {
			if m >= 0xe0 && m <= 0xef {
				t.Errorf("%s has an APP%d segment; variants must carry no metadata", name, m-0xe0)
			}
		}
		if bytes.Contains(b, []byte("Exif")) || bytes.Contains(b, []byte("Pixel 7")) {
			t.Errorf("%s still contains EXIF data", name)
		}
		info, err := imaging.Check(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if info.Orientation != 1 {
			t.Errorf("%s has orientation %d, want 1 (already applied)", name, info.Orientation)
		}
	}
	thumb := decodeJPEG(t, v.Thumb)
	if got := thumb.Bounds().Size(); got.X != 300 || got.Y != 400 {
		t.Errorf("thumb is %v, want 300x400", got)
	}
}

func TestMakeNeverUpscales(t *testing.T) {
	tests := []struct {
		name                   string
		w, h                   int
		dispW, dispH, thW, thH int
	}{
		{"a photo smaller than the display size keeps its size", 800, 600, 800, 600, 400, 300},
		{"a photo smaller than the thumb keeps its size in both", 300, 200, 300, 200, 300, 200},
		{"a tall photo fits its height", 1000, 2500, 768, 1920, 160, 400},
		{"an odd-sized photo is scaled and rounded", 2001, 1333, 1920, 1279, 400, 266},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustBytes(t)(testimg.JPEG(testimg.Photo(tt.w, tt.h, 2), 85, nil))
			v := makeVariants(t, b)
			if v.Width != tt.dispW || v.Height != tt.dispH {
				t.Errorf("display is %dx%d, want %dx%d", v.Width, v.Height, tt.dispW, tt.dispH)
			}
			if got := decodeJPEG(t, v.Display).Bounds().Size(); got.X != tt.dispW || got.Y != tt.dispH {
				t.Errorf("display JPEG is %v, want %dx%d", got, tt.dispW, tt.dispH)
			}
			if got := decodeJPEG(t, v.Thumb).Bounds().Size(); got.X != tt.thW || got.Y != tt.thH {
				t.Errorf("thumb is %v, want %dx%d", got, tt.thW, tt.thH)
			}
		})
	}
}

func TestMakeRefusesBadFiles(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"a text file is unsupported", []byte("not a photo at all"), imaging.ErrUnsupported},
		{"a truncated JPEG is corrupt", cut(quadrantsJPEG(t, 1), 0.5), imaging.ErrCorrupt},
		{"a PNG with a broken pixel stream is corrupt", brokenPNG(t), imaging.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := imaging.NewPool(imaging.PoolConfig{})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := p.Make(ctx, bytes.NewReader(tt.data), int64(len(tt.data))); !errors.Is(err, tt.want) {
				t.Fatalf("Make: %v, want %v", err, tt.want)
			}
		})
	}
}

// brokenPNG passes Check (its chunks are whole) but its IDAT data is not a
// zlib stream.
func brokenPNG(t *testing.T) []byte {
	b := quadrantsPNG(t, false)
	i := bytes.Index(b, []byte("IDAT"))
	if i < 0 {
		t.Fatal("no IDAT")
	}
	for j := i + 4; j < i+24; j++ {
		b[j] = 0xff
	}
	return b
}

func TestMakeStopsWhenContextEnds(t *testing.T) {
	b := mustBytes(t)(testimg.JPEG(testimg.Photo(1200, 900, 3), 85, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := imaging.NewPool(imaging.PoolConfig{}).Make(ctx, bytes.NewReader(b), int64(len(b))); !errors.Is(err, context.Canceled) {
		t.Fatalf("Make with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestPoolRunsManyCallersWithinItsBudget(t *testing.T) {
	b := mustBytes(t)(testimg.JPEG(testimg.Photo(2000, 1500, 4), 85, nil))
	// Room for one image and a half: they run one at a time.
	p := imaging.NewPool(imaging.PoolConfig{Workers: 2, MemoryBytes: 36 << 20})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			v, err := p.Make(ctx, bytes.NewReader(b), int64(len(b)))
			if err == nil && (v.Width != 1920 || v.Height != 1440) {
				err = errors.New("wrong display size")
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
}

func TestPoolRefusesAnImageOverItsWholeBudget(t *testing.T) {
	b := mustBytes(t)(testimg.JPEG(testimg.Photo(2000, 1500, 4), 85, nil))
	// The estimate (about 24 MiB) is over the budget: the image must not
	// run at all, alone or not.
	p := imaging.NewPool(imaging.PoolConfig{Workers: 2, MemoryBytes: 1 << 20})
	if _, err := p.Check(bytes.NewReader(b), int64(len(b))); !errors.Is(err, imaging.ErrTooLarge) {
		t.Fatalf("Check: %v, want ErrTooLarge", err)
	}
	if _, err := p.Make(context.Background(), bytes.NewReader(b), int64(len(b))); !errors.Is(err, imaging.ErrTooLarge) {
		t.Fatalf("Make: %v, want ErrTooLarge", err)
	}
}

func TestMakeFallsBackForProgressiveJPEG(t *testing.T) {
	// quadrantsJPEG(t, 6) made progressive by jpegtran (testdata/README.md).
	prog := testdata(t, "quadrants-progressive-exif6.jpg")
	if !bytes.Contains(prog, []byte{0xff, 0xc2}) {
		t.Fatal("the fixture has no progressive frame header, the test proves nothing")
	}
	v := makeVariants(t, prog)
	if v.Width != qw || v.Height != qh {
		t.Fatalf("display is %dx%d, want %dx%d", v.Width, v.Height, qw, qh)
	}
	wantQuadrants(t, decodeJPEG(t, v.Display), testimg.Red, testimg.Green, testimg.Blue, testimg.White)
}
