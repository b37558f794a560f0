package imaging_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg" // also image.DecodeConfig and image.Decode as the reference
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	_ "golang.org/x/image/webp"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/imaging/internal/testimg"
)

// fuzzDecodePixels is the largest image FuzzCheck also decodes fully with
// image/*, to compare what the two refuse as truncated when it is cut short.
const fuzzDecodePixels = 1 << 20

// boundedReader serves b plus bytes that lie beyond the size Check is given,
// and records any read that asks for them.
type boundedReader struct {
	data []byte // the file, then bytes past its end
	size int64
	past bool
}

func (r *boundedReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > r.size {
		r.past = true
	}
	if off < 0 || off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// fixtures reads the files the patterns match, by name.
func fixtures(t testing.TB, patterns ...string) map[string][]byte {
	out := map[string][]byte{}
	for _, pattern := range patterns {
		files, err := filepath.Glob(filepath.FromSlash(pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = b
		}
	}
	return out
}

// FuzzCheck feeds arbitrary bytes to Check. It must never panic, never read
// past the size it is given, fail only with ErrCorrupt, ErrUnsupported or
// ErrTooLarge, report a sane size and orientation when it accepts, and refuse
// what image/* (JPEG, PNG, GIF, WebP) finds truncated (io.ErrUnexpectedEOF):
// the input when its headers are, and, for small images image/* decodes,
// the input cut short.
func FuzzCheck(f *testing.F) {
	var seeds [][]byte
	for _, b := range fixtures(f, "testdata/*.jpg", "testdata/*.webp", "testdata/*.heic", "internal/jpegdec/testdata/*.jpg") {
		seeds = append(seeds, b)
	}
	q := testimg.Quadrants(24, 16)
	for o := range 8 {
		b, err := testimg.JPEG(testimg.Stored(q, o+1), 80, testimg.EXIF(o+1, true))
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	// A phone photo with its camera's preview, for Preview's walk.
	withPreview, err := testimg.JPEG(testimg.Stored(q, 6), 80, imagingtest.EXIFWithPreview(6, imagingtest.PreviewOf(testimg.Stored(q, 6), 8, 12)))
	if err != nil {
		f.Fatal(err)
	}
	seeds = append(seeds, withPreview)
	var pngBuf, gifBuf bytes.Buffer
	if err := png.Encode(&pngBuf, q); err != nil {
		f.Fatal(err)
	}
	pal := image.NewPaletted(q.Bounds(), color.Palette{testimg.Red, testimg.Green, testimg.Blue, testimg.White})
	for y := range q.Rect.Dy() {
		for x := range q.Rect.Dx() {
			pal.Set(x, y, q.At(x, y))
		}
	}
	if err := gif.Encode(&gifBuf, pal, nil); err != nil {
		f.Fatal(err)
	}
	seeds = append(seeds, pngBuf.Bytes(), gifBuf.Bytes())
	for _, b := range seeds {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// The album's preview reads the EXIF block of any file a guest
		// sent: within the file, and a preview it answers decodes small.
		pr := &boundedReader{data: bytes.Clone(b), size: int64(len(b))}
		if out, err := imaging.Preview(pr, int64(len(b))); err == nil {
			if cfg, err := jpeg.DecodeConfig(bytes.NewReader(out)); err != nil || cfg.Width > 640 || cfg.Height > 640 {
				t.Fatalf("Preview answered %+v (%v), want a JPEG of at most 640 px a side", cfg, err)
			}
		} else if !errors.Is(err, imaging.ErrNoPreview) {
			t.Fatalf("Preview: %v, want ErrNoPreview", err)
		}
		if pr.past {
			t.Fatalf("Preview read past the %d bytes it was given", len(b))
		}
		r := &boundedReader{data: append(bytes.Clone(b), bytes.Repeat([]byte{0xff, 0xd9, 0}, 100)...), size: int64(len(b))}
		info, err := imaging.Check(r, int64(len(b)))
		if r.past {
			t.Fatalf("Check read past the %d bytes it was given", len(b))
		}
		if err != nil {
			if !errors.Is(err, imaging.ErrCorrupt) && !errors.Is(err, imaging.ErrUnsupported) && !errors.Is(err, imaging.ErrTooLarge) {
				t.Fatalf("Check: %v, want ErrCorrupt, ErrUnsupported or ErrTooLarge", err)
			}
			return
		}
		if info.Width <= 0 || info.Height <= 0 || info.Pixels() > imaging.DefaultMaxPixels || info.Orientation < 1 || info.Orientation > 8 {
			t.Fatalf("Check accepted with %+v", info)
		}
		if info.Format == imaging.HEIC {
			// Only the libheif decoder reads HEIC: it is no reference here,
			// and far too slow for a fuzz loop.
			return
		}
		cfg, name, err := image.DecodeConfig(bytes.NewReader(b))
		if errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("Check accepted %+v, but image/%s finds its headers truncated: %v", info, name, err)
		}
		if err != nil || cfg.Width*cfg.Height > fuzzDecodePixels {
			return
		}
		// Check reads the framing, not the compressed data, so it answers
		// for files cut short: when image/* decodes b but finds a cut of it
		// truncated, Check must refuse that cut too.
		if _, _, err := image.Decode(bytes.NewReader(b)); err != nil {
			return
		}
		for _, n := range []int{len(b) / 2, len(b) - 1} {
			cut := b[:n]
			if _, name, err := image.Decode(bytes.NewReader(cut)); !errors.Is(err, io.ErrUnexpectedEOF) {
				continue
			} else if info, err := imaging.Check(bytes.NewReader(cut), int64(n)); err == nil {
				t.Fatalf("Check accepted the first %d of %d bytes as %+v, but image/%s finds them truncated", n, len(b), info, name)
			}
		}
	})
}
