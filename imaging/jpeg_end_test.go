package imaging_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/imaging/internal/testimg"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r    io.ReaderAt
	read int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.read += int64(n)
	return n, err
}

// streamed writes b to a JPEGEnd in pieces of random sizes, as an upload's
// body arrives.
func streamed(b []byte, seed uint64) *imaging.JPEGEnd {
	var e imaging.JPEGEnd
	rng := rand.New(rand.NewPCG(seed, 1))
	for len(b) > 0 {
		n := min(len(b), 1+rng.IntN(3000))
		e.Write(b[:n])
		b = b[n:]
	}
	return &e
}

// endSeeds are JPEGs of each kind a phone or an editor writes.
func endSeeds(t testing.TB) map[string][]byte {
	seeds := fixtures(t, "testdata/*.jpg", "internal/jpegdec/testdata/*.jpg")
	q := testimg.Quadrants(24, 16)
	// The camera's preview is a JPEG of its own, with its own EOI, inside
	// the EXIF block: the end is the photo's, after it.
	withPreview, err := testimg.JPEG(testimg.Stored(q, 6), 80, imagingtest.EXIFWithPreview(6, imagingtest.PreviewOf(testimg.Stored(q, 6), 8, 12)))
	if err != nil {
		t.Fatal(err)
	}
	seeds["with the camera's preview"] = withPreview
	photo, err := testimg.JPEG(testimg.Photo(640, 480, 3), 90, nil)
	if err != nil {
		t.Fatal(err)
	}
	seeds["a photo"] = photo
	// A motion photo: a video, with JPEG markers of its own, after the end.
	seeds["a motion photo"] = append(bytes.Clone(photo), bytes.Repeat([]byte("ftypmp42\xff\xd9\xff\xda\x00\x02"), 200)...)
	return seeds
}

// TestJPEGEndFindsTheCheckedEnd: for each kind of JPEG, the end found
// while the file streams in is the one the check finds by reading it, and
// with it the check reads a few bytes of the file instead of all of it.
func TestJPEGEndFindsTheCheckedEnd(t *testing.T) {
	for name, b := range endSeeds(t) {
		t.Run(name, func(t *testing.T) {
			size := int64(len(b))
			want, err := imaging.CheckUpload(bytes.NewReader(b), size, nil)
			if err != nil {
				t.Fatal(err)
			}
			for seed := range uint64(5) {
				e := streamed(b, seed)
				if _, end := e.Found(); end != want.End {
					t.Fatalf("streamed in pieces (seed %d): end %d, the check finds %d", seed, end, want.End)
				}
				r := &countingReader{r: bytes.NewReader(b)}
				got, err := imaging.CheckUpload(r, size, e)
				if err != nil || got != want {
					t.Fatalf("CheckUpload with the end: %+v, %v; want %+v", got, err, want)
				}
				if head := int64(64 << 10); size > 2*head && r.read > head {
					t.Errorf("CheckUpload with the end read %d of the file's %d bytes", r.read, size)
				}
			}
		})
	}
}

// FuzzJPEGEnd: whatever the bytes and however they arrive, the check
// given the end found while streaming answers exactly what it answers
// reading the file again.
func FuzzJPEGEnd(f *testing.F) {
	for _, b := range endSeeds(f) {
		f.Add(b, uint64(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, seed uint64) {
		size := int64(len(b))
		want, wantErr := imaging.CheckUpload(bytes.NewReader(b), size, nil)
		got, err := imaging.CheckUpload(bytes.NewReader(b), size, streamed(b, seed))
		if (err == nil) != (wantErr == nil) || got != want {
			t.Fatalf("with the streamed end: %+v, %v; reading again: %+v, %v", got, err, want, wantErr)
		}
	})
}
