// Package imagingtest makes test images that Go cannot encode or that are
// too large to commit: HEIC files through heif-enc, grid HEICs built from
// separately encoded tiles as phones write them, and the memory bombs the
// daemon's memory tests upload. It is for tests only.
package imagingtest
