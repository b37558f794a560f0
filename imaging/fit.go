package imaging

import (
	"context"
	"fmt"
	"image"
	"io"

	"eventbox/imaging/internal/planar"
)

// MaxFitLong is the longest side Pool.Fit makes: an A4 page at 300 dpi.
const MaxFitLong = 3508

// Fit decodes the image file of size bytes in r, upright, with its
// longest side long px (at most MaxFitLong, never more than the image's
// own), for a print. Like Make it waits for a worker slot and the image's
// share of the memory budget, estimated for a decoding at the DCT scale
// that keeps long px, plus the result; it never holds the full-size
// picture of a JPEG or a HEIC grid that it can decode scaled. An image
// whose decoding does not fit the pool's budget fails with ErrTooLarge
// (the caller prints its display variant instead). The result is a
// Y'CbCr or gray image.
func (p *Pool) Fit(ctx context.Context, r io.ReaderAt, size int64, long int) (image.Image, error) {
	info, err := check(r, size, p.maxPixels, p.memBytes, false, nil)
	if err != nil {
		return nil, err
	}
	long = min(max(long, 1), MaxFitLong, max(info.Width, info.Height))
	need := memoryEstimateFor(info, long) + 2*int64(long)*int64(long)
	if need > p.memBytes {
		return nil, fmt.Errorf("%w: a print of %d px needs %d MiB", ErrTooLarge, long, need>>20)
	}
	ctx = withHEIFRuntimes(ctx, p.heif)
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.slots }()
	if err := p.mem.Acquire(ctx, need); err != nil {
		return nil, err
	}
	defer p.mem.Release(need)
	return safeFit(ctx, r, size, info, long)
}

// safeFit is fit with a decoder panic turned into ErrCorrupt.
func safeFit(ctx context.Context, r io.ReaderAt, size int64, info Info, long int) (m image.Image, err error) {
	defer func() {
		if x := recover(); x != nil {
			m, err = nil, fmt.Errorf("%w: decoder panic: %v", ErrCorrupt, x)
		}
	}()
	return fit(ctx, r, size, info, long)
}

func fit(ctx context.Context, r io.ReaderAt, size int64, info Info, long int) (image.Image, error) {
	dw, dh := planar.Fit(info.storedW, info.storedH, long)
	img, orient, err := decode(ctx, r, size, info, long, nil)
	if err != nil {
		return nil, err
	}
	if err := img.Validate(); err != nil {
		return nil, fmt.Errorf("%w: decoded planes: %w", ErrCorrupt, err)
	}
	if orient == 1 && info.Orientation >= 5 {
		dw, dh = dh, dw
	}
	for img.W >= 2*dw && img.H >= 2*dh {
		img = planar.Halve(img)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if img.W != dw || img.H != dh {
		img = planar.Resize(img, dw, dh)
	}
	out, err := planar.Orient(img, orient).Std()
	if err != nil {
		return nil, fmt.Errorf("making the print's picture: %w", err)
	}
	return out, nil
}
