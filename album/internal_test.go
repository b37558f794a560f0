package album

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/font/sfnt"

	"eventbox/assets"
)

func testFonts(t *testing.T) *fontSet {
	t.Helper()
	set, err := openFonts(assets.Fonts(), assets.CaptionFonts(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.close)
	return set
}

// shownGlyphs returns the glyph ids a content stream draws, in order.
func shownGlyphs(t *testing.T, content string) []sfnt.GlyphIndex {
	t.Helper()
	var ids []sfnt.GlyphIndex
	for _, m := range regexp.MustCompile(`<([0-9A-F]{4})> Tj`).FindAllStringSubmatch(content, -1) {
		id, err := strconv.ParseUint(m[1], 16, 16)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sfnt.GlyphIndex(id))
	}
	return ids
}

func TestArabicIsJoinedInTheAlbum(t *testing.T) {
	set := testFonts(t)
	glyph := func(r rune) sfnt.GlyphIndex {
		g, err := set.faces[0].f.GlyphIndex(&set.buf, r)
		if err != nil || g == 0 {
			t.Fatalf("DejaVu Sans has no glyph for %U", r)
		}
		return g
	}
	// بيت (beh yeh teh) is drawn right to left with the joined forms:
	// final teh, medial yeh, initial beh; not the isolated letters.
	content := set.show(set.truncate("بيت", 12, 500), 0, 0, 12, map[int]bool{})
	got := shownGlyphs(t, content)
	joined := []sfnt.GlyphIndex{glyph(0xFE96), glyph(0xFEF4), glyph(0xFE91)}
	isolated := []sfnt.GlyphIndex{glyph('ت'), glyph('ي'), glyph('ب')}
	if !slices.Equal(got, joined) {
		t.Errorf("drawn glyphs %v, want the joined forms %v (isolated: %v)", got, joined, isolated)
	}
	if slices.Equal(got, isolated) {
		t.Error("the letters are drawn unjoined")
	}
}

func TestJPEGHeaders(t *testing.T) {
	enc := func(img image.Image) []byte {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, nil); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	gray := enc(image.NewGray(image.Rect(0, 0, 30, 20)))
	colour := enc(image.NewRGBA(image.Rect(0, 0, 31, 21)))
	// An Adobe APP14 segment and a four-component frame, as Photoshop
	// writes CMYK: the header is all the reader looks at.
	cmyk := []byte{0xff, 0xd8,
		0xff, 0xee, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 2,
		0xff, 0xc0, 0, 20, 8, 0, 10, 0, 12, 4, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0, 4, 0x11, 0}
	tests := []struct {
		name string
		data []byte
		want jpegInfo
		dict string
	}{
		{"a gray JPEG is DeviceGray", gray, jpegInfo{width: 30, height: 20, components: 1}, "/DeviceGray"},
		{"a colour JPEG is DeviceRGB", colour, jpegInfo{width: 31, height: 21, components: 3}, "/DeviceRGB"},
		{"an Adobe CMYK JPEG is inverted", cmyk, jpegInfo{width: 12, height: 10, components: 4, adobe: true}, "/Decode [1 0 1 0 1 0 1 0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readJPEGInfo(bytes.NewReader(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if !strings.Contains(got.imageDict(), tc.dict) {
				t.Errorf("dictionary %q lacks %q", got.imageDict(), tc.dict)
			}
		})
	}
	t.Run("a 12-bit JPEG is refused", func(t *testing.T) {
		twelve := append([]byte(nil), cmyk...)
		twelve[22] = 12
		if _, err := readJPEGInfo(bytes.NewReader(twelve)); !errors.Is(err, ErrImage) {
			t.Errorf("got %v, want ErrImage", err)
		}
	})
}
