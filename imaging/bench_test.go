package imaging_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/imaging/internal/testimg"
	"eventbox/internal/testtool"
)

// BenchmarkMake12MP runs the whole pipeline (check, decode, orient, display
// and thumb) on a phone-like 12 MP JPEG. Plain go test does not run it; use
// GOMAXPROCS=1 go test -run X -bench Make12MP ./imaging/, and
// internal/imagebench for the comparison with vipsthumbnail.
func BenchmarkMake12MP(b *testing.B) {
	data, err := testimg.JPEG(testimg.Photo(4032, 3024, 1), 90, testimg.EXIF(6, true))
	if err != nil {
		b.Fatal(err)
	}
	p := imaging.NewPool(imaging.PoolConfig{Workers: 1})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := p.Make(context.Background(), bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck12MP measures the upload-time check of a 12 MP JPEG read
// from a file, as the daemon does it: a handful of small reads.
func BenchmarkCheck12MP(b *testing.B) {
	data, err := testimg.JPEG(testimg.Photo(4032, 3024, 1), 90, testimg.EXIF(6, true))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "p.jpg")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for b.Loop() {
		if _, err := imaging.Check(f, int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMakeHEICGrid12MP runs the whole pipeline on a 12 MP grid HEIC
// (4032×3024 in 8×6 tiles of 512×512, the iPhone's layout, every tile
// coded apart). The decoder is compiled before the timer starts, as a
// running daemon has it. Profile it with
//
//	GOMAXPROCS=1 go test -run X -bench MakeHEICGrid12MP -cpuprofile /tmp/heic.prof ./imaging/
func BenchmarkMakeHEICGrid12MP(b *testing.B) {
	testtool.Need(b, "libheif-examples", "heif-enc")
	if !imaging.HEICSupported() {
		b.Skip("no HEIC in this build")
	}
	data, _, err := imagingtest.GridPicture(b.TempDir(), 4032, 3024, 48, 0)
	if err != nil {
		b.Fatal(err)
	}
	p := imaging.NewPool(imaging.PoolConfig{Workers: 1})
	if _, err := p.Make(context.Background(), bytes.NewReader(data), int64(len(data))); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := p.Make(context.Background(), bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPreview12MP measures what the album's ?v=preview costs for a
// 12 MP phone JPEG carrying a 160×120 preview: the check, the EXIF block
// and the preview turned upright and encoded again.
func BenchmarkPreview12MP(b *testing.B) {
	m := testimg.Photo(4032, 3024, 1)
	data, err := testimg.JPEG(m, 90, imagingtest.EXIFWithPreview(6, imagingtest.PreviewOf(m, 160, 120)))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := imaging.Preview(bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}
