package imaging_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"runtime"
	"testing"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
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

// jpegHeaders is a structurally whole baseline JPEG of w×h that Check
// accepts without decoding: SOI, an Adobe APP14 segment when adobe is 0 or
// more (its transform), a frame header with comps (id, sampling, table),
// a scan header, one byte of data, EOI.
func jpegHeaders(w, h, adobe int, comps ...[3]byte) []byte {
	b := []byte{0xff, 0xd8}
	if adobe >= 0 {
		b = append(b, 0xff, 0xee, 0, 14)
		b = append(b, "Adobe\x00\x64\x00\x00\x00\x00"...)
		b = append(b, byte(adobe))
	}
	b = append(b, 0xff, 0xc0, 0, byte(8+3*len(comps)), 8, byte(h>>8), byte(h), byte(w>>8), byte(w), byte(len(comps)))
	for _, c := range comps {
		b = append(b, c[:]...)
	}
	b = append(b, 0xff, 0xda, 0, 8, 1, comps[0][0], 0, 0, 0x3f, 0)
	return append(b, 0, 0xff, 0xd9)
}

// TestCheckRefusesWhatWouldPassTheMemoryBudget: each decoder path has its
// pixel cap, from its measured bytes per pixel and the pool's budget, and
// no image is taken over 201 MP. CheckUpload takes, for a process of its
// own, what is over the budget up to 48 MP.
func TestCheckRefusesWhatWouldPassTheMemoryBudget(t *testing.T) {
	heic, err := os.ReadFile("testdata/flat-7000x7000.heic")
	if err != nil {
		t.Fatal(err)
	}
	ycc := [][3]byte{{1, 0x22, 0}, {2, 0x11, 1}, {3, 0x11, 1}}
	cmyk := [][3]byte{{1, 0x11, 0}, {2, 0x11, 0}, {3, 0x11, 0}, {4, 0x11, 0}}
	rgb := [][3]byte{{'R', 0x11, 0}, {'G', 0x11, 0}, {'B', 0x11, 0}}
	odd := [][3]byte{{1, 0x22, 0}, {2, 0x21, 1}, {3, 0x12, 1}}
	tests := []struct {
		name   string
		data   []byte
		want   error // from Check
		upload error // from CheckUpload
	}{
		{"a 20 MP 8-bit PNG fits", pngHeaders(5000, 4000, 8, false), nil, nil},
		{"a 49 MP 16-bit PNG does not", pngHeaders(7000, 7000, 16, false), imaging.ErrTooLarge, imaging.ErrTooLarge},
		{"a 20 MP 16-bit PNG does not", pngHeaders(5000, 4000, 16, false), imaging.ErrTooLarge, nil},
		{"a 12 MP 16-bit PNG fits", pngHeaders(4000, 3000, 16, false), nil, nil},
		{"a 12 MP interlaced 16-bit PNG does not", pngHeaders(4000, 3000, 16, true), imaging.ErrTooLarge, nil},
		{"a 49 MP single-coded HEIC does not", heic, imaging.ErrTooLarge, imaging.ErrTooLarge},
		{"a 200 MP baseline JPEG fits: it is decoded at 1/8 scale", jpegHeaders(16320, 12240, -1, ycc...), nil, nil},
		{"a 200 MP baseline JPEG with Adobe's Y'CbCr transform fits", jpegHeaders(16320, 12240, 1, ycc...), nil, nil},
		{"a 250 MP baseline JPEG does not: over 201 MP", jpegHeaders(18000, 14000, -1, ycc...), imaging.ErrTooLarge, imaging.ErrTooLarge},
		{"a 201 MP baseline JPEG fits", jpegHeaders(16384, 12267, -1, ycc...), nil, nil},
		{"a 201.1 MP baseline JPEG does not", jpegHeaders(16384, 12275, -1, ycc...), imaging.ErrTooLarge, imaging.ErrTooLarge},
		{"a 12 MP CMYK JPEG fits", jpegHeaders(4000, 3000, -1, cmyk...), nil, nil},
		{"a 20 MP CMYK JPEG does not: image/jpeg decodes it at full size", jpegHeaders(5000, 4000, -1, cmyk...), imaging.ErrTooLarge, nil},
		{"a 200 MP CMYK JPEG does not", jpegHeaders(16320, 12240, 2, cmyk...), imaging.ErrTooLarge, imaging.ErrTooLarge},
		{"a 200 MP JPEG of RGB components does not", jpegHeaders(16320, 12240, -1, rgb...), imaging.ErrTooLarge, imaging.ErrTooLarge},
		{"a 200 MP JPEG with Adobe's RGB transform does not", jpegHeaders(16320, 12240, 0, ycc...), imaging.ErrTooLarge, imaging.ErrTooLarge},
		{"a 200 MP JPEG of unusual chroma does not", jpegHeaders(16320, 12240, -1, odd...), imaging.ErrTooLarge, imaging.ErrTooLarge},
		{"a 200 MP 8-bit PNG does not", pngHeaders(16320, 12240, 8, false), imaging.ErrTooLarge, imaging.ErrTooLarge},
		{"a 250 MP 8-bit PNG does not", pngHeaders(18000, 14000, 8, false), imaging.ErrTooLarge, imaging.ErrTooLarge},
	}
	is := func(err, want error) bool { return want == nil && err == nil || want != nil && errors.Is(err, want) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			size := int64(len(tt.data))
			if _, err := imaging.Check(bytes.NewReader(tt.data), size); !is(err, tt.want) {
				t.Errorf("Check: %v, want %v", err, tt.want)
			}
			if _, err := imaging.CheckUpload(bytes.NewReader(tt.data), size, nil); !is(err, tt.upload) {
				t.Errorf("CheckUpload: %v, want %v", err, tt.upload)
			}
		})
	}
}

// TestAJPEGOnlyItsScanRefusesIsNotDecodedAtFullSize: a baseline JPEG is
// let in for a decoding at 1/2 to 1/8 scale; one whose scan data jpegdec
// then refuses (here a DC coefficient out of the 8-bit range, as only a
// damaged file has) falls back to image/jpeg at full size only when that
// fits the budget: a 48 MP one would take some 400 MiB, a 200 MP one
// gigabytes, so they fail with ErrTooLarge without allocating the picture.
func TestAJPEGOnlyItsScanRefusesIsNotDecodedAtFullSize(t *testing.T) {
	tests := []struct {
		name       string
		w, h       int
		tooLarge   bool
		allocUnder uint64
	}{
		{"claiming 12 MP: image/jpeg may try it", 4000, 3000, false, 64 << 20},
		{"claiming 48 MP", 8064, 6048, true, 32 << 20},
		{"claiming 200 MP", 16320, 12240, true, 32 << 20},
	}
	pool := imaging.NewPool(imaging.PoolConfig{Workers: 1})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := imagingtest.FalseSizeJPEG(640, 480, tt.w, tt.h)
			if err != nil {
				t.Fatal(err)
			}
			// The luma DC quantizer of the first table, made 255: the
			// first block's DC coefficient leaves the 8-bit range.
			i := bytes.Index(b, []byte{0xff, 0xdb})
			if i < 0 || b[i+4] != 0 {
				t.Fatal("no DQT for table 0")
			}
			b[i+5] = 0xff
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = pool.Make(context.Background(), bytes.NewReader(b), int64(len(b)))
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("Make: %v; %d MiB allocated", err, alloc>>20)
			if got := errors.Is(err, imaging.ErrTooLarge); got != tt.tooLarge {
				t.Errorf("Make: %v, want ErrTooLarge %v", err, tt.tooLarge)
			}
			if alloc > tt.allocUnder {
				t.Errorf("%d MiB allocated, want under %d MiB", alloc>>20, tt.allocUnder>>20)
			}
		})
	}
}
