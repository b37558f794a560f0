//go:build !arm || nodynamic

package imaging

import (
	"image"
	"io"

	"github.com/gen2brain/heic"
)

// heicSupported reports whether this build decodes HEIC. github.com/gen2brain/heic
// also tries a system libheif through purego, which does not build for 32-bit
// ARM without cgo; with the nodynamic tag it uses only its WebAssembly
// decoder, which builds everywhere. Release builds should set nodynamic on
// every architecture.
const heicSupported = true

func decodeHEIC(r io.Reader) (image.Image, error) {
	return heic.Decode(r)
}
