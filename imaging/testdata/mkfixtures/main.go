// Command mkfixtures writes the pictures that make-fixtures.sh turns into the
// committed JPEG fixtures with cjpeg and jpegtran: a PPM of testimg.Photo and
// a JPEG of testimg.Quadrants with EXIF orientation 6.
//
// Usage (from imaging): go run ./testdata/mkfixtures DIR
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"eventbox/imaging/internal/testimg"
)

// Sizes of the pictures: odd, so that MCUs are partial on both edges.
const (
	photoW, photoH = 133, 91
	quadW, quadH   = 160, 120
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mkfixtures DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "mkfixtures:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	photo := testimg.Photo(photoW, photoH, 11)
	var ppm bytes.Buffer
	fmt.Fprintf(&ppm, "P6\n%d %d\n255\n", photoW, photoH)
	for y := range photoH {
		for x := range photoW {
			r, g, b, _ := photo.At(x, y).RGBA()
			ppm.Write([]byte{byte(r >> 8), byte(g >> 8), byte(b >> 8)})
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "photo.ppm"), ppm.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the photo: %w", err)
	}
	q, err := testimg.JPEG(testimg.Stored(testimg.Quadrants(quadW, quadH), 6), 95, testimg.EXIF(6, true))
	if err != nil {
		return fmt.Errorf("encoding the quadrants: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "quadrants-exif6.jpg"), q, 0o644); err != nil {
		return fmt.Errorf("writing the quadrants: %w", err)
	}
	return nil
}
