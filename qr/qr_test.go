package qr_test

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"flag"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"eventbox/qr"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func rgb(s string) color.RGBA {
	c, err := qr.ParseColor(s)
	if err != nil {
		panic(err)
	}
	return c
}

func TestValidateColors(t *testing.T) {
	tests := []struct {
		name    string
		fg, bg  color.RGBA
		wantErr error
	}{
		{name: "black on white is accepted", fg: rgb("#000"), bg: rgb("#fff")},
		{name: "navy on cream is accepted", fg: rgb("#1a235a"), bg: rgb("#fffaf0")},
		{name: "mid grey on white just above the threshold is accepted", fg: rgb("#767676"), bg: rgb("#ffffff")},
		{name: "light grey on white is refused for low contrast", fg: rgb("#949494"), bg: rgb("#ffffff"), wantErr: qr.ErrLowContrast},
		{name: "pastel pink on white is refused for low contrast", fg: rgb("#f4a6c0"), bg: rgb("#ffffff"), wantErr: qr.ErrLowContrast},
		{name: "white on black is refused as inverted", fg: rgb("#ffffff"), bg: rgb("#000000"), wantErr: qr.ErrInverted},
		{name: "the same colour twice is refused as inverted", fg: rgb("#336699"), bg: rgb("#336699"), wantErr: qr.ErrInverted},
		{name: "a translucent background is refused", fg: rgb("#000"), bg: color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0x80}, wantErr: qr.ErrTranslucent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := qr.ValidateColors(tt.fg, tt.bg)
			if tt.wantErr == nil && err != nil {
				t.Fatalf("ValidateColors = %v, want nil", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("ValidateColors = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestContrastRatio(t *testing.T) {
	tests := []struct {
		a, b     string
		min, max float64
	}{
		{"#000000", "#ffffff", 20.99, 21.01},
		{"#ffffff", "#000000", 20.99, 21.01},
		{"#777777", "#777777", 1, 1},
		{"#767676", "#ffffff", 4.5, 4.6},
	}
	for _, tt := range tests {
		if got := qr.ContrastRatio(rgb(tt.a), rgb(tt.b)); got < tt.min || got > tt.max {
			t.Errorf("ContrastRatio(%s, %s) = %.3f, want %.2f..%.2f", tt.a, tt.b, got, tt.min, tt.max)
		}
	}
}

func TestParseColor(t *testing.T) {
	tests := []struct {
		in   string
		want color.RGBA
		ok   bool
	}{
		{"#1a235A", color.RGBA{0x1a, 0x23, 0x5a, 0xff}, true},
		{"#fa0", color.RGBA{0xff, 0xaa, 0x00, 0xff}, true},
		{"1a235a", color.RGBA{}, false},
		{"#1a235", color.RGBA{}, false},
		{"#gggggg", color.RGBA{}, false},
		{"#+12345", color.RGBA{}, false},
		{"", color.RGBA{}, false},
	}
	for _, tt := range tests {
		got, err := qr.ParseColor(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseColor(%q) = %v, %v; want %v, ok %t", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestRefusals(t *testing.T) {
	rd := renderer(t)
	inverted := qr.Style{Foreground: rgb("#fff"), Background: rgb("#000")}
	tests := []struct {
		name    string
		content string
		size    int
		style   qr.Style
		wantErr error
	}{
		{name: "a size below 512 is refused", content: eventURL, size: 511, style: qr.DefaultStyle(), wantErr: qr.ErrSize},
		{name: "a size above 4096 is refused", content: eventURL, size: 4097, style: qr.DefaultStyle(), wantErr: qr.ErrSize},
		{name: "inverted colours are refused", content: eventURL, size: 512, style: inverted, wantErr: qr.ErrInverted},
		{name: "empty content is refused", content: "", size: 512, style: qr.DefaultStyle()},
		{name: "content too long for any QR code is refused", content: strings.Repeat("x", 5000), size: 512, style: qr.DefaultStyle()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for format, render := range map[string]func(io.Writer, string, int, qr.Style, string) error{"PNG": rd.PNG, "SVG": rd.SVG} {
				var buf bytes.Buffer
				err := render(&buf, tt.content, tt.size, tt.style, "")
				if err == nil {
					t.Errorf("%s: no error", format)
				} else if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("%s: error %v, want %v", format, err, tt.wantErr)
				}
				if buf.Len() != 0 {
					t.Errorf("%s: wrote %d bytes before failing", format, buf.Len())
				}
			}
		})
	}
}

// inkIn counts the pixels of r that differ clearly from bg.
func inkIn(img image.Image, r image.Rectangle, bg color.RGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if absDiff(c.R, bg.R)+absDiff(c.G, bg.G)+absDiff(c.B, bg.B) > 96 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func TestPNGCaptionIsDrawnInEveryScript(t *testing.T) {
	rd := renderer(t)
	st := qr.DefaultStyle()
	// The caption band is the bottom 14% of the square.
	band := image.Rect(0, 512-71, 512, 512)
	for script, caption := range captions {
		t.Run(script+" letters all have a glyph and are drawn", func(t *testing.T) {
			if !rd.Covers(caption) {
				t.Errorf("the embedded fonts do not cover %q", caption)
			}
			var buf bytes.Buffer
			if err := rd.PNG(&buf, spotURL, 512, st, caption); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			// A glyph of a 30-pixel font has well over 20 inked pixels;
			// every letter drawn gives at least that.
			letters := 0
			for _, r := range caption {
				if r != ' ' && r != ',' && r != '\'' {
					letters++
				}
			}
			if ink := inkIn(img, band, st.Background); ink < 20*letters {
				t.Errorf("%d inked pixels in the caption band, want at least %d for %d letters", ink, 20*letters, letters)
			}
		})
	}
	t.Run("no caption leaves the bottom of the square empty", func(t *testing.T) {
		var buf bytes.Buffer
		if err := rd.PNG(&buf, eventURL, 512, st, ""); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		// Without a caption the code is centred: its bottom quiet zone
		// (4 modules) is at least 20 pixels high.
		if ink := inkIn(img, image.Rect(0, 512-20, 512, 512), st.Background); ink != 0 {
			t.Errorf("%d inked pixels at the bottom without a caption", ink)
		}
	})
}

func TestCoversReportsMissingScripts(t *testing.T) {
	rd := renderer(t)
	if rd.Covers("ภาษาไทย") {
		t.Error("Covers claims Thai, which no embedded font has")
	}
	empty, err := qr.NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	if empty.Covers("abc") {
		t.Error("a renderer without fonts claims to cover Latin")
	}
}

func TestRendererWithoutFontsDrawsCodesWithEmptyCaptions(t *testing.T) {
	rd, err := qr.NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rd.PNG(&buf, spotURL, 512, qr.DefaultStyle(), "Salle"); err != nil {
		t.Fatalf("PNG without fonts: %v", err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if ink := inkIn(img, image.Rect(0, 512-71, 512, 512), qr.DefaultStyle().Background); ink != 0 {
		t.Errorf("%d inked pixels in the caption band without fonts", ink)
	}
}

func TestConcurrentRendersAreRaceFree(t *testing.T) {
	rd := renderer(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 4 {
		wg.Go(func() {
			caption := []string{captions["Arabic"], captions["Korean"], captions["Greek"], captions["Chinese"]}[i]
			errs <- rd.PNG(io.Discard, spotURL, 512, qr.DefaultStyle(), caption)
			errs <- rd.SVG(io.Discard, spotURL, 512, qr.DefaultStyle(), caption)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestNewRendererRefusesAFileThatIsNotAFont(t *testing.T) {
	if _, err := qr.NewRenderer([]byte("not a font")); err == nil {
		t.Error("NewRenderer accepted garbage")
	}
}

func TestPNGLogo(t *testing.T) {
	rd := renderer(t)
	st := qr.DefaultStyle()
	st.Logo = testLogo()
	var buf bytes.Buffer
	if err := rd.PNG(&buf, eventURL, 1024, st, ""); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// The logo's red field is left of the white band at the centre.
	c := color.RGBAModel.Convert(img.At(512-60, 512)).(color.RGBA)
	if c.R < 0xa0 || c.G > 0x60 || c.B > 0x60 {
		t.Errorf("pixel left of the centre is %v, want the logo's red", c)
	}
}

// svgDoc is the part of the SVG the tests read.
type svgDoc struct {
	XMLName xml.Name `xml:"svg"`
	Width   string   `xml:"width,attr"`
	Height  string   `xml:"height,attr"`
	ViewBox string   `xml:"viewBox,attr"`
	Images  []struct {
		Href string `xml:"href,attr"`
	} `xml:"image"`
	Texts []struct {
		Text   string `xml:",chardata"`
		Anchor string `xml:"text-anchor,attr"`
	} `xml:"text"`
}

func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the SVG is not well-formed XML: %v", err)
	}
	return doc
}

func TestSVGStructure(t *testing.T) {
	rd := renderer(t)
	t.Run("the viewBox and size are the requested size", func(t *testing.T) {
		for _, size := range []int{512, 1000, 4096} {
			var buf bytes.Buffer
			if err := rd.SVG(&buf, eventURL, size, qr.DefaultStyle(), ""); err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, buf.Bytes())
			want := strings.Join([]string{"0", "0", itoa(size), itoa(size)}, " ")
			if doc.ViewBox != want || doc.Width != itoa(size) || doc.Height != itoa(size) {
				t.Errorf("size %d: viewBox %q width %q height %q", size, doc.ViewBox, doc.Width, doc.Height)
			}
			if len(doc.Texts) != 0 || len(doc.Images) != 0 {
				t.Errorf("size %d: unexpected text or image", size)
			}
		}
	})
	for script, caption := range captions {
		t.Run("a "+script+" caption is real text", func(t *testing.T) {
			var buf bytes.Buffer
			if err := rd.SVG(&buf, spotURL, 512, qr.DefaultStyle(), caption); err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, buf.Bytes())
			if len(doc.Texts) != 1 || doc.Texts[0].Text != caption {
				t.Fatalf("texts = %+v, want one with %q", doc.Texts, caption)
			}
		})
	}
	t.Run("markup in a caption stays text", func(t *testing.T) {
		caption := `Tom & Jerry's <b>"bar"</b>`
		var buf bytes.Buffer
		if err := rd.SVG(&buf, spotURL, 512, qr.DefaultStyle(), caption); err != nil {
			t.Fatal(err)
		}
		doc := parseSVG(t, buf.Bytes())
		if len(doc.Texts) != 1 || doc.Texts[0].Text != caption {
			t.Fatalf("texts = %+v, want %q", doc.Texts, caption)
		}
	})
	t.Run("the logo is an embedded PNG", func(t *testing.T) {
		st := qr.DefaultStyle()
		st.Logo = testLogo()
		var buf bytes.Buffer
		if err := rd.SVG(&buf, eventURL, 4096, st, ""); err != nil {
			t.Fatal(err)
		}
		doc := parseSVG(t, buf.Bytes())
		if len(doc.Images) != 1 {
			t.Fatalf("%d images, want 1", len(doc.Images))
		}
		data, ok := strings.CutPrefix(doc.Images[0].Href, "data:image/png;base64,")
		if !ok {
			t.Fatalf("href starts %.40q, want a data: URI PNG", doc.Images[0].Href)
		}
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("the embedded logo is not a PNG: %v", err)
		}
		if cfg.Width > 512 || cfg.Height > 512 || cfg.Width*2 != cfg.Height*3 {
			t.Errorf("embedded logo is %d×%d, want at most 512 and the logo's 3:2", cfg.Width, cfg.Height)
		}
	})
}

func itoa(n int) string {
	var b [8]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

func TestSVGGolden(t *testing.T) {
	rd := renderer(t)
	tests := []struct {
		file    string
		content string
		style   qr.Style
		caption string
	}{
		{file: "event-square.svg", content: eventURL, style: qr.DefaultStyle()},
		{file: "spot-round-caption.svg", content: spotURL, style: styles()["round dots"], caption: "Salle des fêtes"},
		// The text element holds the caption in logical order; its size
		// comes from the shaped width.
		{file: "spot-mixed-caption.svg", content: spotURL, style: qr.DefaultStyle(), caption: "Salle قاعة (الاستقبال) 2 स्वागत 宴会厅"},
	}
	for _, tt := range tests {
		t.Run(tt.file+" matches the golden file", func(t *testing.T) {
			var buf bytes.Buffer
			if err := rd.SVG(&buf, tt.content, 512, tt.style, tt.caption); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.file)
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("SVG differs from %s (run with -update after checking the change)", path)
			}
		})
	}
}

// captionGoldens are captions whose drawing is compared with a picture of
// the caption band in testdata.
var captionGoldens = []struct{ file, caption string }{
	{"caption-arabic.png", "قاعة الاستقبال"},
	{"caption-hebrew.png", "אולם האירועים"},
	{"caption-mixed-brackets.png", "Salle قاعة (الاستقبال) 2"},
	{"caption-cjk.png", "宴会厅 花園 연회장"},
	{"caption-devanagari.png", "स्वागत कक्ष"},
}

func TestPNGCaptionGolden(t *testing.T) {
	rd := renderer(t)
	band := image.Rect(0, 512-71, 512, 512)
	for _, tt := range captionGoldens {
		t.Run(tt.file+" matches the golden file", func(t *testing.T) {
			var buf bytes.Buffer
			if err := rd.PNG(&buf, spotURL, 512, qr.DefaultStyle(), tt.caption); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			got := image.NewGray(image.Rectangle{Max: band.Size()})
			for y := range band.Dy() {
				for x := range band.Dx() {
					got.Set(x, y, img.At(band.Min.X+x, band.Min.Y+y))
				}
			}
			path := filepath.Join("testdata", tt.file)
			if *update {
				var out bytes.Buffer
				if err := png.Encode(&out, got); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			defer f.Close()
			want, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			if want.Bounds() != got.Bounds() {
				t.Fatalf("golden is %v, caption band is %v", want.Bounds(), got.Bounds())
			}
			// Anti-aliasing may round differently on another CPU: allow
			// faint differences, and a few pixels in all.
			off := 0
			for y := range band.Dy() {
				for x := range band.Dx() {
					a := got.GrayAt(x, y).Y
					b := color.GrayModel.Convert(want.At(x, y)).(color.Gray).Y
					if absDiff(a, b) > 48 {
						off++
					}
				}
			}
			if off > band.Dx()*band.Dy()/500 {
				t.Errorf("%d pixels differ from %s (run with -update after checking the change)", off, path)
			}
		})
	}
}
