// Package planar holds pictures as separate 8-bit planes (grey, or Y'CbCr with
// subsampled chroma) and does the photo pipeline's pixel work on them: a
// separable fixed-point Catmull-Rom resampler, 2×2 box halving, the eight EXIF
// orientations, and conversion from and to the standard library's image types.
//
// Working on planes rather than on image.Image keeps the pipeline fast and its
// memory small: no per-pixel interface calls, no RGBA copy of a 12 MP photo, and
// the result goes straight into image/jpeg's Y'CbCr fast path. Every function
// here allocates its result and leaves its inputs unchanged; nothing is shared,
// so any number of goroutines may use the package at once.
package planar
