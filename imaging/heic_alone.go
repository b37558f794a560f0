//go:build !arm

package imaging

import (
	"context"
	"fmt"
	"image"
	"io"

	"eventbox/imaging/internal/heifwasm"
)

// aloneHEIC is the HEIC decoder of MakeAlone: its module's memory is
// reserved whole (heifwasm.CompileReserved), since the process decodes one
// image and its memory is bounded by the operating system.
type aloneHEIC = heifwasm.Runtime

// newAloneHEIC compiles the decoder with maxBytes of module memory.
func newAloneHEIC(ctx context.Context, maxBytes int64) (*aloneHEIC, error) {
	return heifwasm.CompileReserved(ctx, maxBytes)
}

// decodeHEICAlone decodes a single-coded HEIC whole with rt, as decodeHEIC
// does with the daemon's shared module.
func decodeHEICAlone(ctx context.Context, rt *aloneHEIC, r io.Reader) (image.Image, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading heic: %w", err)
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
