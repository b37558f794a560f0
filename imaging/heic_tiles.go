//go:build !arm

package imaging

import (
	"context"
	"errors"
	"fmt"

	"eventbox/imaging/internal/heifwasm"
	"eventbox/imaging/internal/planar"
)

// tilesPerInstance bounds how many tiles one module instance decodes. The
// library's decode never releases the decoded picture, so each tile leaves
// its planes (384 KiB for 512×512) in the instance's memory: 16 tiles leak
// 6 MiB at most before the instance goes.
const tilesPerInstance = 16

// tileDecoder decodes HEVC tiles, each wrapped as a single-image HEIF, in a
// module instance it reuses for tilesPerInstance tiles: a fresh instance
// per tile, with about 20 MiB of WebAssembly memory each, made decoding a
// 48 MP grid allocate 3.7 GB; the garbage collector then ran all the time,
// and each collection waited for the tile being decoded (code running in
// WebAssembly cannot be preempted), which held other requests for up to a
// second. It is not safe for concurrent use.
type tileDecoder struct {
	dec *heifwasm.Decoder
	err error
}

func newTileDecoder(ctx context.Context) *tileDecoder {
	rt, err := runtimeFor(ctx)
	if err != nil {
		return &tileDecoder{err: err}
	}
	return &tileDecoder{dec: rt.NewDecoder(ctx, tilesPerInstance)}
}

// Close releases the module instance.
func (d *tileDecoder) Close() {
	if d.dec != nil {
		d.dec.Close()
	}
}

// decode decodes one single-image HEIF into 4:2:0 (or grey) planes of its
// own memory.
func (d *tileDecoder) decode(file []byte) (planar.Image, error) {
	if d.err != nil {
		return planar.Image{}, d.err
	}
	var m planar.Image
	err := d.dec.Decode(file, func(p heifwasm.Picture) error {
		gray := p.Colorspace == heifwasm.Monochrome
		if !gray && (p.Colorspace != heifwasm.YCbCr || p.Chroma != heifwasm.Chroma420) {
			return fmt.Errorf("%w: HEIC tile in colour space %d, chroma %d", ErrUnsupported, p.Colorspace, p.Chroma)
		}
		m = planar.NewImage(p.W, p.H, 2, 2, gray)
		for y := range p.H {
			copy(m.Y.Row(y), p.Y[y*p.YStride:y*p.YStride+p.W])
		}
		if !gray {
			for y := range m.Cb.H {
				copy(m.Cb.Row(y), p.Cb[y*p.CStride:y*p.CStride+m.Cb.W])
				copy(m.Cr.Row(y), p.Cr[y*p.CStride:y*p.CStride+m.Cr.W])
			}
		}
		return nil
	})
	if errors.Is(err, heifwasm.ErrRefused) {
		return planar.Image{}, fmt.Errorf("decoding a tile: %w", err)
	}
	return m, err
}
