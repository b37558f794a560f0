package heifwasm_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"eventbox/imaging/internal/heifwasm"
)

func TestDecode(t *testing.T) {
	ctx := context.Background()
	rt, err := heifwasm.Compile(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	heic, err := os.ReadFile("../../testdata/quadrants.heic")
	if err != nil {
		t.Fatal(err)
	}
	dec := rt.NewDecoder(ctx, 2)
	defer dec.Close()
	tests := []struct {
		name    string
		file    []byte
		wantErr error
	}{
		{"a phone-style HEIC", heic, nil},
		{"the same again in the same instance", heic, nil},
		{"a third, in a new instance", heic, nil},
		{"not a HEIF", []byte("not a heif file at all"), heifwasm.ErrRefused},
		{"a good one after a refusal", heic, nil},
	}
	for _, tt := range tests {
		var got heifwasm.Picture
		err := dec.Decode(tt.file, func(p heifwasm.Picture) error {
			got = p
			if len(p.Y) != p.YStride*p.H || len(p.Cb) != p.CStride*p.CH || len(p.Cr) != len(p.Cb) {
				t.Errorf("%s: planes of %d, %d, %d bytes for %+v", tt.name, len(p.Y), len(p.Cb), len(p.Cr), p)
			}
			return nil
		})
		if !errors.Is(err, tt.wantErr) {
			t.Fatalf("%s: err = %v, want %v", tt.name, err, tt.wantErr)
		}
		if err != nil {
			continue
		}
		if got.W < 128 || got.H <= 0 || got.Colorspace != heifwasm.YCbCr || got.Chroma != heifwasm.Chroma420 {
			t.Errorf("%s: picture %d×%d, colour space %d, chroma %d", tt.name, got.W, got.H, got.Colorspace, got.Chroma)
		}
	}
	if err := dec.Decode(heic, func(heifwasm.Picture) error { return errors.ErrUnsupported }); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("the callback's error came back as %v", err)
	}
}
