package imaging_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"eventbox/imaging"
	"eventbox/imaging/internal/testimg"
)

// The daemon checks an upload inside the request and makes the variants
// later, in a background worker.
func ExamplePool() {
	pool := imaging.NewPool(imaging.PoolConfig{}) // defaults: workers, memory, 50 MP

	// In the upload handler, on the stored file (an *os.File in the daemon):
	upload, _ := testimg.JPEG(testimg.Photo(4032, 3024, 1), 90, testimg.EXIF(6, true))
	var file io.ReaderAt = bytes.NewReader(upload)
	info, err := pool.Check(file, int64(len(upload)))
	if errors.Is(err, imaging.ErrUnsupported) || errors.Is(err, imaging.ErrCorrupt) || errors.Is(err, imaging.ErrTooLarge) {
		fmt.Println("415 invalid_image")
		return
	}
	fmt.Printf("%s %dx%d as displayed\n", info.Format, info.Width, info.Height)

	// Later, off the request path:
	v, err := pool.Make(context.Background(), file, int64(len(upload)))
	if err != nil {
		fmt.Println("mark the photo failed:", err)
		return
	}
	fmt.Printf("display %dx%d, thumb and display are JPEGs: %v\n", v.Width, v.Height,
		bytes.HasPrefix(v.Display, []byte{0xff, 0xd8}) && bytes.HasPrefix(v.Thumb, []byte{0xff, 0xd8}))
	// Output:
	// jpeg 3024x4032 as displayed
	// display 1440x1920, thumb and display are JPEGs: true
}
