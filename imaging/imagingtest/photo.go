package imagingtest

import (
	"image"

	"eventbox/imaging/internal/testimg"
)

func testimgPhoto(w, h int, seed uint64) *image.YCbCr { return testimg.Photo(w, h, seed) }
