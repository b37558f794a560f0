//go:build arm

package imaging

import (
	"context"
	"image"
	"io"
)

// aloneHEIC decodes nothing on 32-bit ARM, where Check refuses HEIC.
type aloneHEIC struct{}

func newAloneHEIC(context.Context, int64) (*aloneHEIC, error) { return &aloneHEIC{}, nil }

func decodeHEICAlone(ctx context.Context, _ *aloneHEIC, r io.Reader) (image.Image, error) {
	return decodeHEIC(ctx, r)
}
