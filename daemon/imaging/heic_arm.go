//go:build arm && !nodynamic

package imaging

import (
	"fmt"
	"image"
	"io"
)

// heicSupported is false on 32-bit ARM built without the nodynamic tag: the
// HEIC decoder's optional system-library path (purego) does not build there
// without cgo. Build with -tags nodynamic to decode HEIC on linux/arm.
const heicSupported = false

func decodeHEIC(io.Reader) (image.Image, error) {
	return nil, fmt.Errorf("%w: HEIC needs a build with -tags nodynamic on 32-bit ARM", ErrUnsupported)
}
