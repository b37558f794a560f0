package imaging_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"testing"

	"eventbox/daemon/imaging"
)

// pngHeaders is a structurally whole PNG of w×h that Check accepts without
// decoding: IHDR, one tiny IDAT, IEND.
func pngHeaders(w, h uint32, depth byte, interlaced bool) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	il := byte(0)
	if interlaced {
		il = 1
	}
	chunk("IHDR", append(ihdr, depth, 2, 0, 0, il))
	chunk("IDAT", []byte{0x78, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

// TestCheckRefusesWhatWouldPassTheMemoryBudget: each decoder path has its
// pixel cap, from its measured bytes per pixel and the pool's budget.
func TestCheckRefusesWhatWouldPassTheMemoryBudget(t *testing.T) {
	heic, err := os.ReadFile("testdata/flat-7000x7000.heic")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"a 20 MP 8-bit PNG fits", pngHeaders(5000, 4000, 8, false), nil},
		{"a 49 MP 16-bit PNG does not", pngHeaders(7000, 7000, 16, false), imaging.ErrTooLarge},
		{"a 20 MP 16-bit PNG does not", pngHeaders(5000, 4000, 16, false), imaging.ErrTooLarge},
		{"a 12 MP 16-bit PNG fits", pngHeaders(4000, 3000, 16, false), nil},
		{"a 12 MP interlaced 16-bit PNG does not", pngHeaders(4000, 3000, 16, true), imaging.ErrTooLarge},
		{"a 49 MP single-coded HEIC does not", heic, imaging.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := imaging.Check(bytes.NewReader(tt.data), int64(len(tt.data)))
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("Check: %v, want %v", err, tt.want)
			}
		})
	}
}
