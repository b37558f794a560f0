package imaging

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"

	"eventbox/imaging/internal/jpegdec"
	"eventbox/imaging/internal/jpegenc"
	"eventbox/imaging/internal/planar"
)

// The variant sizes and JPEG qualities, in one place.
const (
	DisplayLong    = 1920 // longest side of the display variant, px
	DisplayQuality = 85
	ThumbLong      = 400 // longest side of the thumb variant, px
	ThumbQuality   = 80
)

// Variants holds the JPEG encodings made from one image. They carry no EXIF
// or other metadata.
type Variants struct {
	// Display is the image with its longest side at most DisplayLong px, as
	// displayed (orientation applied), at JPEG quality DisplayQuality.
	Display []byte
	// Thumb is the same with its longest side at most ThumbLong px, at
	// quality ThumbQuality.
	Thumb []byte
	// Width and Height are Display's size in pixels. For an image no larger
	// than DisplayLong they equal Info's Width and Height.
	Width, Height int
}

// makeVariants decodes the image info describes, then makes both variants.
// alone, when not nil, decodes a single-coded HEIC in MakeAlone's process.
func makeVariants(ctx context.Context, r io.ReaderAt, size int64, info Info, alone *aloneHEIC) (Variants, error) {
	dw, dh := planar.Fit(info.storedW, info.storedH, DisplayLong)
	img, orient, err := decode(ctx, r, size, info, DisplayLong, alone)
	if err != nil {
		return Variants{}, err
	}
	if err := img.Validate(); err != nil {
		return Variants{}, fmt.Errorf("%w: decoded planes: %w", ErrCorrupt, err)
	}
	if orient == 1 && info.Orientation >= 5 {
		// The decoder turned the image already (HEIF): the target turns too.
		dw, dh = dh, dw
	}
	// Halving first makes the filter's work (and its cost) a quarter at
	// each step while the image is at least twice the target.
	for img.W >= 2*dw && img.H >= 2*dh {
		img = planar.Halve(img)
	}
	if err := ctx.Err(); err != nil {
		return Variants{}, err
	}
	disp := img
	if img.W != dw || img.H != dh || !(img.Gray || img.SubX == 2 && img.SubY == 2) {
		disp = planar.Resize(img, dw, dh)
	}
	img = planar.Image{} // let the decoded planes go before encoding
	disp = planar.Orient(disp, orient)
	var v Variants
	v.Width, v.Height = disp.W, disp.H
	if v.Display, err = encode(disp, DisplayQuality); err != nil {
		return Variants{}, err
	}
	if err := ctx.Err(); err != nil {
		return Variants{}, err
	}
	tw, th := planar.Fit(disp.W, disp.H, ThumbLong)
	thumb := disp
	if tw != disp.W || th != disp.H {
		thumb = planar.Resize(disp, tw, th)
	}
	if v.Thumb, err = encode(thumb, ThumbQuality); err != nil {
		return Variants{}, err
	}
	return v, nil
}

// decode returns the image as planes and the orientation still to apply.
// A JPEG (or a HEIC grid) comes at the smallest DCT scale that keeps its
// longest side at least long px.
func decode(ctx context.Context, r io.ReaderAt, size int64, info Info, long int, alone *aloneHEIC) (planar.Image, int, error) {
	sr := func() io.Reader { return bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10) }
	var m image.Image
	var err error
	switch info.Format {
	case JPEG:
		img, derr := jpegdec.Decode(ctx, r, size, dctScaleFor(info.storedW, info.storedH, long))
		switch {
		case derr == nil:
			return img, info.Orientation, nil
		case errors.Is(derr, jpegdec.ErrFormat):
			return planar.Image{}, 0, fmt.Errorf("%w: decoding jpeg: %w", ErrCorrupt, derr)
		case !errors.Is(derr, jpegdec.ErrUnsupported):
			return planar.Image{}, 0, fmt.Errorf("decoding jpeg: %w", derr)
		}
		// Progressive, CMYK and other rare JPEGs: the standard decoder,
		// at full size. Not when that would not fit the budget: a
		// baseline JPEG is checked for its scaled decode, and one that
		// only its scan data shows jpegdec cannot decode (a 200 MP file
		// would take gigabytes in image/jpeg) is refused instead.
		if !info.fullJPEGFits {
			return planar.Image{}, 0, fmt.Errorf("%w: decoding a %dx%d jpeg at full size needs about %d MiB: %w",
				ErrTooLarge, info.storedW, info.storedH, fullJPEGEstimate(info)>>20, derr)
		}
		m, err = jpeg.Decode(sr())
	case PNG:
		m, err = png.Decode(sr())
	case GIF:
		m, err = gif.Decode(sr())
		if err == nil {
			m = onScreen(m, info.storedW, info.storedH)
		}
	case WebP:
		m, err = webp.Decode(sr())
	case HEIC:
		if info.heifTile > 0 {
			// A grid (every phone's HEIC): tile by tile, reduced on the
			// way; irot and imir are applied with the orientation.
			img, err := decodeHEICGrid(ctx, r, size, dctScaleFor(info.storedW, info.storedH, long))
			if err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return planar.Image{}, 0, ctxErr
				}
				return planar.Image{}, 0, fmt.Errorf("decoding heic grid: %w", err)
			}
			return img, info.Orientation, nil
		}
		// libheif applies irot and imir itself: the result is upright.
		// The module misreads the chroma of images narrower than 128 px
		// (see testdata/README.md); phone photos never are.
		if alone != nil {
			m, err = decodeHEICAlone(ctx, alone, io.NewSectionReader(r, 0, size))
		} else {
			m, err = decodeHEIC(ctx, io.NewSectionReader(r, 0, size))
		}
		info.Orientation = 1
	default:
		return planar.Image{}, 0, fmt.Errorf("%w: format %q", ErrUnsupported, info.Format)
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return planar.Image{}, 0, ctxErr
		}
		if errors.Is(err, ErrUnsupported) {
			return planar.Image{}, 0, err
		}
		return planar.Image{}, 0, fmt.Errorf("%w: decoding %s: %w", ErrCorrupt, info.Format, err)
	}
	return planar.FromImage(m), info.Orientation, nil
}

// onScreen places a GIF's first frame on a white logical screen of w×h when
// the frame does not cover it.
func onScreen(m image.Image, w, h int) image.Image {
	screen := image.Rect(0, 0, w, h)
	if m.Bounds() == screen {
		return m
	}
	c := image.NewRGBA(screen)
	draw.Draw(c, screen, image.White, image.Point{}, draw.Src)
	draw.Draw(c, m.Bounds(), m, m.Bounds().Min, draw.Over)
	return c
}

// encode writes m as a baseline JPEG at quality (jpegenc: image/jpeg's
// output, in half its time).
func encode(m planar.Image, quality int) ([]byte, error) {
	b, err := jpegenc.Append(make([]byte, 0, m.W*m.H/4), m, quality)
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	return b, nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
