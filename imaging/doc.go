// Package imaging turns uploaded photos into the two JPEG variants the
// gallery shows, and refuses what is not a photo.
//
// Two steps, at two moments:
//
//   - Inside the upload request, Check (or Pool.Check) validates the stored
//     file cheaply: the type is sniffed from the bytes (JPEG, PNG, GIF, WebP,
//     HEIC/HEIF; never from the name), headers and dimensions are read, the
//     EXIF orientation is found, and the file's structure is walked far
//     enough to refuse a truncated one. Nothing is decoded. The errors are
//     the sentinels ErrUnsupported, ErrCorrupt and ErrTooLarge, which the
//     daemon answers with 415 invalid_image.
//   - Later, off the request path, Pool.Make decodes the file, applies the
//     orientation, and makes "display" (longest side 1920 px, JPEG quality
//     85) and "thumb" (longest side 400 px, quality 80). Neither is ever
//     upscaled, and neither carries any metadata: they are fresh JPEG
//     encodings, so GPS and the rest of the EXIF stay in the original only.
//
// Speed and memory come from never holding a full-size image when it can be
// avoided, which is what lets photos of up to 200 MP (DefaultMaxPixels)
// through: a JPEG is decoded at 1/2, 1/4 or 1/8 scale inside the IDCT (see
// internal/jpegdec), resampled on its Y'CbCr planes with a fixed-point
// Catmull-Rom (internal/planar), turned after the resize, and the thumb is
// made from the display image; both are written by a baseline encoder that
// takes those planes as they are (internal/jpegenc). Other formats are decoded with the standard
// library, golang.org/x/image/webp and libheif compiled to WebAssembly
// (internal/heifwasm, under wazero, no cgo; not on 32-bit ARM, see
// HEICSupported), then
// box-halved on their planes before the final filter. A phone's HEIC is a
// grid of HEVC tiles: each tile is decoded on its own and reduced straight
// into the output planes, so memory depends on one tile, not the picture.
//
// The Pool bounds both how many images are processed at once and the
// estimated memory they use together (DefaultMemoryBytes). Each decoder
// path's estimate comes from its measured bytes per pixel, and Check refuses
// with ErrTooLarge an image whose estimate is over the whole budget, so no
// image, whatever its declared size, can take the daemon past it. A photo
// over the budget but at most MaxOutOfProcessPixels passes CheckUpload,
// and a pool with an OutOfProcess maker has it decoded in a process of its
// own (package isolate, MakeAlone in the child).
//
// internal/imagebench compares the pipeline with libvips' vipsthumbnail and
// measures a worker's peak memory; its doc comment says how to run it.
package imaging
