package jpegdec_test

import (
	"bytes"
	"context"
	"image/jpeg"
	"testing"

	"eventbox/imaging/internal/jpegdec"
	"eventbox/imaging/internal/testimg"
)

// BenchmarkDecode12MP compares this decoder at each scale with image/jpeg on
// a phone-sized photo. Run it with -bench; plain go test skips it.
func BenchmarkDecode12MP(b *testing.B) {
	data, err := testimg.JPEG(testimg.Photo(4032, 3024, 1), 90, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("image/jpeg", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, denom := range []int{1, 2, 4, 8} {
		b.Run("jpegdec-1/"+string(rune('0'+denom)), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := jpegdec.Decode(context.Background(), bytes.NewReader(data), int64(len(data)), denom); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
