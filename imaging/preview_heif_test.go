package imaging_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"testing"
	"testing/synctest"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/imaging/internal/testimg"
	"eventbox/internal/testtool"
)

// TestHEICPreviewIsTheThumbnailItemUpright makes grid HEICs as iPhones
// write them, with a thumbnail item beside the photo (an HEVC picture with
// a 'thmb' reference to the grid, turned by its own irot), and asks the
// pool for the album's preview: it is the thumbnail, upright, at once;
// and a photo without a usable thumbnail, or a pool whose image memory is
// taken, answers ErrNoPreview rather than waiting. PreviewWaiting, for the
// image work's own rough variants, waits for the memory instead.
func TestHEICPreviewIsTheThumbnailItemUpright(t *testing.T) {
	testtool.Unraced(t, "decoding HEIC in WebAssembly")
	testtool.Need(t, "libheif-examples", "heif-enc")
	if !imaging.HEICSupported() {
		t.Skip("no HEIC in this build")
	}
	dir := t.TempDir()
	// One 512×512 tile fills every cell: the grid's picture does not
	// matter here, only its size (1024×768, 4:3 as a phone's) does.
	tile, err := imagingtest.HEIFEnc(dir, testimg.Photo(512, 512, 1), 90)
	if err != nil {
		t.Fatal(err)
	}
	grid := func(t *testing.T, irot int, thumb *image.YCbCr) []byte {
		t.Helper()
		var b []byte
		var err error
		if thumb == nil {
			b, err = imagingtest.HEICGrid([][]byte{tile}, make([]int, 4), 2, 2, 1024, 768, 512, 512, irot)
		} else {
			coded, encErr := imagingtest.HEIFEnc(dir, thumb, 90)
			if encErr != nil {
				t.Fatal(encErr)
			}
			w, h := thumb.Rect.Dx(), thumb.Rect.Dy()
			b, err = imagingtest.HEICGridThumb([][]byte{tile}, make([]int, 4), 2, 2, 1024, 768, 512, 512, irot, coded, w, h)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := imaging.Check(bytes.NewReader(b), int64(len(b))); err != nil {
			t.Fatalf("the grid does not pass Check: %v", err)
		}
		return b
	}
	thumb := testimg.Photo(320, 240, 7)
	tests := []struct {
		name   string
		irot   int
		thumb  *image.YCbCr
		memory int64
		// held is the image memory an image being made holds while the
		// preview is asked for (PreviewWaiting), 0 for none.
		held int64
		want *image.YCbCr // nil: ErrNoPreview
	}{
		{"the thumbnail item of an upright photo", 0, thumb, 0, 0, thumb},
		{"turned by irot as the photo is", 1, thumb, 0, 0, turnedCCW(thumb)},
		{"no thumbnail item", 0, nil, 0, 0, nil},
		{"a thumbnail of another shape than the photo (square)", 0, testimg.Photo(240, 240, 7), 0, 0, nil},
		{"a thumbnail too small for the decoder", 0, testimg.Photo(96, 72, 7), 0, 0, nil},
		{"the image memory taken: no waiting", 0, thumb, 1 << 20, 0, nil},
		{"the image memory in use: the image work waits for it", 0, thumb, 64 << 20, 64 << 20, thumb},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := grid(t, tt.irot, tt.thumb)
			pool := imaging.NewPool(imaging.PoolConfig{MemoryBytes: tt.memory})
			var got []byte
			var err error
			if tt.held == 0 {
				got, err = pool.Preview(context.Background(), bytes.NewReader(b), int64(len(b)))
			} else {
				got, err = previewOnceFree(t, pool, b, tt.held)
			}
			if tt.want == nil {
				if !errors.Is(err, imaging.ErrNoPreview) {
					t.Fatalf("Preview = %d bytes, %v; want ErrNoPreview", len(got), err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := jpeg.Decode(bytes.NewReader(got))
			if err != nil {
				t.Fatalf("the preview is not a JPEG: %v", err)
			}
			if m.Bounds().Dx() != tt.want.Rect.Dx() || m.Bounds().Dy() != tt.want.Rect.Dy() {
				t.Fatalf("the preview is %v, want %dx%d", m.Bounds().Size(), tt.want.Rect.Dx(), tt.want.Rect.Dy())
			}
			if e := lumaError(t, m, tt.want); e > 4 {
				t.Errorf("the preview's luma is %.1f levels from the thumbnail's on average (want at most 4)", e)
			}
		})
	}
}

// TestPoolPreviewOfAJPEGIsTheEXIFThumbnail: the pool's Preview of a JPEG
// is the package function's.
func TestPoolPreviewOfAJPEGIsTheEXIFThumbnail(t *testing.T) {
	photo := withPreview(t, 6, 160, 120, nil)
	want, err := imaging.Preview(bytes.NewReader(photo), int64(len(photo)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := imaging.NewPool(imaging.PoolConfig{}).Preview(context.Background(), bytes.NewReader(photo), int64(len(photo)))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Pool.Preview = %d bytes, %v; want imaging.Preview's %d bytes", len(got), err, len(want))
	}
}

// turnedCCW is m turned a quarter counter-clockwise (luma only, what
// LumaError compares).
func turnedCCW(m *image.YCbCr) *image.YCbCr {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	out := image.NewYCbCr(image.Rect(0, 0, h, w), image.YCbCrSubsampleRatio420)
	for y := range w {
		for x := range h {
			out.Y[y*out.YStride+x] = m.Y[x*m.YStride+(w-1-y)]
		}
	}
	return out
}

// previewOnceFree holds held bytes of pool's image memory, checks that
// Preview answers ErrMemoryBusy meanwhile and that PreviewWaiting waits
// (in a bubble: blocked for good until the memory is freed), then frees
// the memory and returns what PreviewWaiting answers.
func previewOnceFree(t *testing.T, pool *imaging.Pool, b []byte, held int64) (got []byte, err error) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		release := imaging.HoldMemory(pool, held)
		defer func() { release() }()
		if _, err := pool.Preview(context.Background(), bytes.NewReader(b), int64(len(b))); !errors.Is(err, imaging.ErrMemoryBusy) {
			t.Fatalf("Preview with the memory in use: %v, want ErrMemoryBusy", err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			got, err = pool.PreviewWaiting(context.Background(), bytes.NewReader(b), int64(len(b)))
		}()
		synctest.Wait()
		select {
		case <-done:
			t.Fatalf("PreviewWaiting answered (%d bytes, %v) while the memory was in use", len(got), err)
		default:
		}
		release()
		release = func() {}
		<-done
	})
	return got, err
}
