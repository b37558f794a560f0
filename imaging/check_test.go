package imaging_test

import (
	"bytes"
	"errors"
	"testing"

	"eventbox/imaging"
	"eventbox/imaging/internal/testimg"
)

func TestSniffRecognisesFormatsFromTheirBytes(t *testing.T) {
	tests := []struct {
		name   string
		head   []byte
		want   imaging.Format
		wantOK bool
	}{
		{"a JPEG is recognised", quadrantsJPEG(t, 1), imaging.JPEG, true},
		{"a PNG is recognised", quadrantsPNG(t, false), imaging.PNG, true},
		{"a GIF is recognised", quadrantsGIF(t), imaging.GIF, true},
		{"a WebP is recognised", testdata(t, "quadrants.webp"), imaging.WebP, true},
		{"a HEIC is recognised", testdata(t, "quadrants.heic"), imaging.HEIC, true},
		{"HEIF with a structural major brand and heic compatible is HEIC", []byte("\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00mif1heic"), imaging.HEIC, true},
		{"an AVIF is refused", []byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf"), "", false},
		{"an MP4 video is refused", []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"), "", false},
		{"a text file is refused", []byte("just some text, no photo here"), "", false},
		{"an empty file is refused", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := tt.head[:min(len(tt.head), imaging.SniffLen)]
			got, ok := imaging.Sniff(head)
			if got != tt.want || ok != tt.wantOK {
				t.Fatalf("Sniff = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestCheckReadsSizeAndOrientation(t *testing.T) {
	type want struct {
		format imaging.Format
		w, h   int
		orient int
	}
	tests := []struct {
		name string
		data []byte
		want want
	}{
		{"a JPEG as stored is its own size", quadrantsJPEG(t, 1), want{imaging.JPEG, qw, qh, 1}},
		{"a JPEG mirrored is its own size", quadrantsJPEG(t, 2), want{imaging.JPEG, qw, qh, 2}},
		{"a JPEG turned 180° is its own size", quadrantsJPEG(t, 3), want{imaging.JPEG, qw, qh, 3}},
		{"a JPEG flipped is its own size", quadrantsJPEG(t, 4), want{imaging.JPEG, qw, qh, 4}},
		{"a transposed JPEG reports the displayed size", quadrantsJPEG(t, 5), want{imaging.JPEG, qw, qh, 5}},
		{"a JPEG turned 90° reports the displayed size", quadrantsJPEG(t, 6), want{imaging.JPEG, qw, qh, 6}},
		{"a transversed JPEG reports the displayed size", quadrantsJPEG(t, 7), want{imaging.JPEG, qw, qh, 7}},
		{"a JPEG turned 270° reports the displayed size", quadrantsJPEG(t, 8), want{imaging.JPEG, qw, qh, 8}},
		{"a JPEG with data after its end (a motion photo) is accepted", append(quadrantsJPEG(t, 1), bytes.Repeat([]byte("ftypmp42 video"), 500)...), want{imaging.JPEG, qw, qh, 1}},
		{"a PNG with alpha is accepted", quadrantsPNG(t, true), want{imaging.PNG, qw, qh, 1}},
		{"a GIF is accepted", quadrantsGIF(t), want{imaging.GIF, qw, qh, 1}},
		{"a lossy WebP is accepted", testdata(t, "quadrants.webp"), want{imaging.WebP, 64, 48, 1}},
		{"a lossless WebP with alpha is accepted", testdata(t, "half-transparent.webp"), want{imaging.WebP, 64, 48, 1}},
		{"a HEIC is accepted", testdata(t, "quadrants.heic"), want{imaging.HEIC, 128, 96, 1}},
		{"a HEIC's EXIF orientation is ignored, as HEIF requires", testdata(t, "portrait-exif6.heic"), want{imaging.HEIC, 128, 192, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skipHEICUnlessSupported(t, tt.data)
			info, err := imaging.Check(bytes.NewReader(tt.data), int64(len(tt.data)))
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			got := want{info.Format, info.Width, info.Height, info.Orientation}
			if got != tt.want {
				t.Fatalf("Check = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCheckRefusesWhatIsNotAGoodPhoto(t *testing.T) {
	jpg := quadrantsJPEG(t, 1)
	damaged := bytes.Clone(jpg)
	// Overwrite the headers after the first segment: no marker where one
	// must be.
	first := 4 + int(jpg[4])<<8 + int(jpg[5])
	copy(damaged[first:], bytes.Repeat([]byte{0x42}, 40))
	badLength := bytes.Clone(jpg)
	badLength[4], badLength[5] = 0, 1
	noEOI := append(bytes.Clone(jpg[:len(jpg)-2]), "trailing junk"...)
	webpShort := cut(testdata(t, "quadrants.webp"), 0.8)
	heicShort := cut(testdata(t, "quadrants.heic"), 0.9)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"a text file is unsupported", []byte("name,photo\nanna,IMG_0001.JPG\n"), imaging.ErrUnsupported},
		{"an empty file is unsupported", nil, imaging.ErrUnsupported},
		{"a JPEG cut in its image data is corrupt", cut(jpg, 0.6), imaging.ErrCorrupt},
		{"a JPEG cut in its headers is corrupt", cut(jpg, 0.05), imaging.ErrCorrupt},
		{"a JPEG with overwritten headers is corrupt", damaged, imaging.ErrCorrupt},
		{"a JPEG with a segment length below 2 is corrupt", badLength, imaging.ErrCorrupt},
		{"a JPEG with no end marker is corrupt", noEOI, imaging.ErrCorrupt},
		{"a PNG cut short is corrupt", cut(quadrantsPNG(t, true), 0.7), imaging.ErrCorrupt},
		{"a GIF cut short is corrupt", cut(quadrantsGIF(t), 0.7), imaging.ErrCorrupt},
		{"a WebP cut short is corrupt", webpShort, imaging.ErrCorrupt},
		{"a HEIC cut short is corrupt", heicShort, imaging.ErrCorrupt},
		{"an animated WebP is unsupported", animatedWebP(), imaging.ErrUnsupported},
		{"a WebP whose first partition runs past its chunk is corrupt", overlongVP8(), imaging.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skipHEICUnlessSupported(t, tt.data)
			_, err := imaging.Check(bytes.NewReader(tt.data), int64(len(tt.data)))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Check: %v, want %v", err, tt.want)
			}
		})
	}
}

// overlongVP8 is a lossy WebP (found by FuzzCheck) whose VP8 frame tag
// declares a first partition longer than the chunk holding it: image/webp
// runs out of data on it.
func overlongVP8() []byte {
	b := []byte("RIFF\x84\x00\x00\x00WEBPVP8 x\x00\x00\x00000\x9d\x01*000\x00")
	return append(b, make([]byte, 0x84+8-len(b))...)
}

// animatedWebP is a RIFF container with a VP8X header flagging animation.
func animatedWebP() []byte {
	vp8x := []byte{0x02, 0, 0, 0, 63, 0, 0, 47, 0, 0}
	b := []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00")
	b = append(b, vp8x...)
	n := len(b) - 8
	b[4], b[5] = byte(n), byte(n>>8)
	return b
}

func TestCheckRefusesMorePixelsThanTheLimit(t *testing.T) {
	b := mustBytes(t)(testimg.JPEG(testimg.Photo(400, 300, 1), 80, nil))
	p := imaging.NewPool(imaging.PoolConfig{MaxPixels: 400*300 - 1})
	if _, err := p.Check(bytes.NewReader(b), int64(len(b))); !errors.Is(err, imaging.ErrTooLarge) {
		t.Fatalf("Check of 400x300 with a limit one pixel lower: %v, want ErrTooLarge", err)
	}
	p = imaging.NewPool(imaging.PoolConfig{MaxPixels: 400 * 300})
	if _, err := p.Check(bytes.NewReader(b), int64(len(b))); err != nil {
		t.Fatalf("Check of 400x300 at exactly the limit: %v", err)
	}
}
