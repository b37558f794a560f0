//go:build !arm

package imaging

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"io"
	"os"
	"sync"

	"eventbox/imaging/internal/heifwasm"
)

// heicSupported reports whether this build decodes HEIC: everywhere but
// 32-bit ARM (see heic_arm.go).
//
// The decoder is libheif and libde265 compiled to WebAssembly, run by
// wazero (internal/heifwasm): no cgo, and nothing looked up on the system,
// so every build is statically linked.
const heicSupported = true

// heifRuntime compiles the HEIC decoder on first use, for the pools with
// no cache directory. The compiled module is a process-wide cache: made
// once, never changed, shared by every decode, as the compiled code of a
// library would be.
var heifRuntime = sync.OnceValues(func() (*heifwasm.Runtime, error) {
	return heifwasm.Compile(context.Background(), "")
})

// heifRuntimes is a pool's source of the compiled decoder: the
// process-wide one, or, with a cache directory (PoolConfig.HEICCacheDir),
// one compiled once for the pool and kept on disk, so that the first HEIC
// after a restart loads machine code instead of compiling it (about a
// second of CPU here, several on a Pi).
type heifRuntimes struct {
	get func() (*heifwasm.Runtime, error)
}

func newHEIFRuntimes(cacheDir string) *heifRuntimes {
	if cacheDir == "" {
		return &heifRuntimes{get: heifRuntime}
	}
	return &heifRuntimes{get: sync.OnceValues(func() (*heifwasm.Runtime, error) {
		if err := os.MkdirAll(cacheDir, 0o750); err != nil {
			return heifRuntime()
		}
		return heifwasm.Compile(context.Background(), cacheDir)
	})}
}

// heifKey carries a pool's heifRuntimes in the context of its Make.
type heifKey struct{}

func withHEIFRuntimes(ctx context.Context, r *heifRuntimes) context.Context {
	return context.WithValue(ctx, heifKey{}, r)
}

// runtimeFor returns the compiled decoder of the pool making ctx's image,
// or the process-wide one.
func runtimeFor(ctx context.Context) (*heifwasm.Runtime, error) {
	if r, ok := ctx.Value(heifKey{}).(*heifRuntimes); ok && r != nil {
		return r.get()
	}
	return heifRuntime()
}

// decodeHEIC decodes a single-coded HEIC (not a grid: see heif_grid.go)
// whole, in a module instance of its own. libheif applies irot and imir
// itself: the result is upright.
func decodeHEIC(ctx context.Context, r io.Reader) (image.Image, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading heic: %w", err)
	}
	rt, err := runtimeFor(ctx)
	if err != nil {
		return nil, err
	}
	dec := rt.NewDecoder(ctx, 1)
	defer dec.Close()
	var m image.Image
	err = dec.Decode(data, func(p heifwasm.Picture) error {
		m = pictureImage(p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding heic: %w", err)
	}
	return m, nil
}

// pictureImage copies a decoded picture out of the module's memory.
func pictureImage(p heifwasm.Picture) image.Image {
	rect := image.Rect(0, 0, p.W, p.H)
	switch p.Colorspace {
	case heifwasm.YCbCr:
		ratio := map[heifwasm.Chroma]image.YCbCrSubsampleRatio{
			heifwasm.Chroma420: image.YCbCrSubsampleRatio420,
			heifwasm.Chroma422: image.YCbCrSubsampleRatio422,
			heifwasm.Chroma444: image.YCbCrSubsampleRatio444,
		}[p.Chroma]
		return &image.YCbCr{Y: bytes.Clone(p.Y), Cb: bytes.Clone(p.Cb), Cr: bytes.Clone(p.Cr),
			YStride: p.YStride, CStride: p.CStride, SubsampleRatio: ratio, Rect: rect}
	case heifwasm.Monochrome:
		return &image.Gray{Pix: bytes.Clone(p.Y), Stride: p.YStride, Rect: rect}
	default:
		if p.Premultiplied {
			return &image.RGBA{Pix: bytes.Clone(p.Y), Stride: p.YStride, Rect: rect}
		}
		return &image.NRGBA{Pix: bytes.Clone(p.Y), Stride: p.YStride, Rect: rect}
	}
}
