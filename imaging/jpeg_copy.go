package imaging

import (
	"bufio"
	"context"
	"fmt"
	"image/jpeg"
	"io"
	"runtime/debug"

	"eventbox/imaging/internal/planar"
)

// CopyQuality is the JPEG quality of a full-size copy (Pool.JPEGCopy).
const CopyQuality = 90

// bppCopy is what a full-size copy holds per stored pixel beyond the
// decoder: the 4:2:0 planes (1.5 bytes), their turned copy when the
// orientation asks for one (1.5), and the encoder's working rows.
const bppCopy = 4

// copyEstimate is the working memory of a full-size copy of a HEIC.
func copyEstimate(info Info) int64 {
	px := int64(info.storedW) * int64(info.storedH)
	if info.heifTile > 0 {
		return estFixed + heicInstanceBytes + bppHEIC*int64(info.heifTile) + bppCopy*px
	}
	return estFixed + heicInstanceBytes + (bppHEIC+bppCopy)*px
}

// JPEGCopy writes the HEIC image of size bytes in r to w as a JPEG at full
// size (CopyQuality, orientation applied, no metadata), for computers that
// cannot open HEIC. The JPEG is written as it is encoded: only the decoded
// planes are held, never the encoded file. It takes a worker slot and its
// share of the memory budget like Make, and fails with ErrUnsupported for
// another format (or a build without HEIC) and ErrTooLarge when the copy
// would need more than the whole budget.
func (p *Pool) JPEGCopy(ctx context.Context, r io.ReaderAt, size int64, w io.Writer) error {
	info, err := p.Check(r, size)
	if err != nil {
		return err
	}
	if info.Format != HEIC {
		return fmt.Errorf("%w: a JPEG copy is made of HEIC only, not %s", ErrUnsupported, info.Format)
	}
	need := copyEstimate(info)
	if need > p.memBytes {
		return fmt.Errorf("%w: a full-size copy needs %d MiB", ErrTooLarge, need>>20)
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.slots }()
	if err := p.mem.Acquire(ctx, need); err != nil {
		return err
	}
	defer p.mem.Release(need)
	return safeCopy(ctx, r, size, info, w)
}

// safeCopy turns a decoder panic into ErrCorrupt, as safeMake does.
func safeCopy(ctx context.Context, r io.ReaderAt, size int64, info Info, w io.Writer) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("%w: decoder panic: %v\n%s", ErrCorrupt, x, debug.Stack())
		}
	}()
	var img planar.Image
	orient := info.Orientation
	if info.heifTile > 0 {
		img, err = decodeHEICGrid(ctx, r, size, 1)
	} else {
		m, derr := decodeHEIC(ctx, io.NewSectionReader(r, 0, size))
		if derr == nil {
			img = planar.FromImage(m)
		}
		err, orient = derr, 1 // libheif turned it already
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return fmt.Errorf("%w: decoding heic: %w", ErrCorrupt, err)
	}
	if err := img.Validate(); err != nil {
		return fmt.Errorf("%w: decoded planes: %w", ErrCorrupt, err)
	}
	if !(img.Gray || img.SubX == 2 && img.SubY == 2) {
		img = planar.Resize(img, img.W, img.H)
	}
	img = planar.Orient(img, orient)
	std, err := img.Std()
	if err != nil {
		return fmt.Errorf("encoding: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := jpeg.Encode(bw, std, &jpeg.Options{Quality: CopyQuality}); err != nil {
		return fmt.Errorf("encoding a jpeg copy: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing a jpeg copy: %w", err)
	}
	return nil
}
