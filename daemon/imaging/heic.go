//go:build !arm

package imaging

import (
	"image"
	"io"

	"github.com/gen2brain/heic"
)

// heicSupported reports whether this build decodes HEIC: everywhere but
// 32-bit ARM (see heic_arm.go).
//
// github.com/gen2brain/heic runs libheif and libde265 compiled to
// WebAssembly under wazero (no cgo). It first tries a system libheif through
// purego; a static CGO_ENABLED=0 binary never finds one, and building with
// -tags nodynamic leaves that path (and its start-up probe of the
// executable) out entirely, which release builds should do.
const heicSupported = true

func decodeHEIC(r io.Reader) (image.Image, error) {
	return heic.Decode(r)
}
