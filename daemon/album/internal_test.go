package album

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"strings"
	"testing"

	"eventbox/assets"
)

func TestVisualOrder(t *testing.T) {
	tests := []struct {
		name, logical, visual string
	}{
		{"Latin stays as it is", "Zoë (Ana)", "Zoë (Ana)"},
		{"Hebrew alone is reversed", "שרה כהן", "ןהכ הרש"},
		{"Arabic keeps its brackets facing the right way", "محمد (علي)", "(يلع) دمحم"},
		{"a Latin name inside Hebrew keeps its own order", "שרה Ana", "Ana הרש"},
		{"a Hebrew name inside Latin is reversed in place", "Ana שרה Bo", "Ana הרש Bo"},
		{"digits in Hebrew read left to right", "שרה 12", "12 הרש"},
		{"an empty string stays empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(visual([]rune(tc.logical))); got != tc.visual {
				t.Errorf("visual(%q) = %q, want %q", tc.logical, got, tc.visual)
			}
		})
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"spaces fold and trim", "  Ana \t  Bo \n", "Ana Bo"},
		{"a decomposed accent is composed", "Zoe\u0308", "Zoë"},
		{"control and format characters go", "A\u0007n\u200ba", "Ana"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(cleanText(tc.in)); got != tc.want {
				t.Errorf("cleanText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func testFonts(t *testing.T) *fontSet {
	t.Helper()
	set, err := openFonts(assets.Fonts(), assets.CaptionFonts())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.close)
	return set
}

func TestFontFallbackPicksTheFirstFontWithTheCharacter(t *testing.T) {
	set := testFonts(t)
	tests := []struct {
		r    rune
		face int
	}{{'A', 0}, {'ж', 0}, {'王', 1}, {'김', 2}, {'क', -1}}
	for _, tc := range tests {
		if g := set.lookup(tc.r); g.face != tc.face {
			t.Errorf("%q comes from font %d, want %d", tc.r, g.face, tc.face)
		}
	}
	if w := set.width([]rune("AAAA"), 10); w < 20 || w > 40 {
		t.Errorf("four A at 10 pt are %.1f pt wide, want about 27", w)
	}
}

func TestLongTextIsCutToFit(t *testing.T) {
	set := testFonts(t)
	long := cleanText(strings.Repeat("Bartholomew ", 10))
	t.Run("a caption gets an ellipsis and fits", func(t *testing.T) {
		got := set.truncate(long, 10, 100)
		if got[len(got)-1] != ellipsis || set.width(got, 10) > 100 {
			t.Errorf("truncate gave %q (%.1f pt)", string(got), set.width(got, 10))
		}
	})
	t.Run("a short caption is left alone", func(t *testing.T) {
		if got := string(set.truncate([]rune("Ana"), 10, 100)); got != "Ana" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("a title wraps at spaces into at most three lines", func(t *testing.T) {
		lines := set.wrap(long, 30, 400, 3)
		if len(lines) != 3 {
			t.Fatalf("%d lines, want 3", len(lines))
		}
		for _, l := range lines {
			if set.width(l, 30) > 400 {
				t.Errorf("line %q is wider than 400 pt", string(l))
			}
		}
		if last := lines[2]; last[len(last)-1] != ellipsis {
			t.Errorf("the last line %q does not end with an ellipsis", string(last))
		}
	})
	t.Run("a title without spaces breaks between characters", func(t *testing.T) {
		lines := set.wrap([]rune(strings.Repeat("王", 40)), 30, 400, 3)
		if len(lines) < 2 || string(lines[0]) != strings.Repeat("王", len(lines[0])) {
			t.Errorf("got %q", lines)
		}
	})
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
