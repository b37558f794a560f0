//go:build arm

package imaging

import (
	"context"
	"fmt"
	"image"
	"io"

	"eventbox/imaging/internal/planar"
)

// heicSupported is false on 32-bit ARM. There, wazero has no compiler and
// interprets the WebAssembly HEIC decoder about 65 times slower (measured:
// 2.3 s instead of 35 ms for a 128×96 image), so a 12 MP photo would hold a
// worker for many minutes. Check refuses HEIC instead, so the
// upload is answered 415 at once. A 64-bit OS (arm64) decodes HEIC.
const heicSupported = false

func decodeHEIC(context.Context, io.Reader) (image.Image, error) {
	return nil, fmt.Errorf("%w: HEIC is not decoded on 32-bit ARM", ErrUnsupported)
}

// heifRuntimes is empty on 32-bit ARM: there is no decoder to compile.
type heifRuntimes struct{}

func newHEIFRuntimes(string) *heifRuntimes { return nil }

func withHEIFRuntimes(ctx context.Context, _ *heifRuntimes) context.Context { return ctx }

// tileDecoder decodes nothing on 32-bit ARM; Check refuses HEIC there.
type tileDecoder struct{}

func newTileDecoder(context.Context) *tileDecoder { return &tileDecoder{} }

func (*tileDecoder) Close() {}

func (*tileDecoder) decode([]byte) (planar.Image, error) {
	return planar.Image{}, fmt.Errorf("%w: HEIC is not decoded on 32-bit ARM", ErrUnsupported)
}
