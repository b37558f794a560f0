package qr_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/assets"
	"eventbox/internal/testtool"
	"eventbox/qr"
)

const (
	eventURL = "http://eventbox.local/e/marie-et-paul"
	spotURL  = "http://eventbox.local/e/marie-et-paul?at=q7x2m9kd"
)

// captions holds a place name in each script the fonts must cover.
var captions = map[string]string{
	"Latin with accents": "Salle des fêtes, Château d'Évian",
	"Greek":              "Αίθουσα δεξιώσεων",
	"Cyrillic":           "Банкетный зал",
	"Arabic":             "قاعة الاستقبال",
	"Hebrew":             "אולם האירועים",
	"Chinese":            "宴会厅 花園",
	"Japanese":           "披露宴会場 はなぞの カフェ",
	"Korean":             "연회장 정원",
	"Devanagari":         "स्वागत कक्ष",
	"Latin and Arabic":   "Salle قاعة (الاستقبال) 2",
}

// allScripts is one caption mixing every script.
const allScripts = "Fête Αίθουσα Зал قاعة 宴会厅 はな 정원"

func renderer(t testing.TB) *qr.Renderer {
	t.Helper()
	rd, err := qr.NewRendererFS(assets.Fonts(), assets.CaptionFonts()...)
	if err != nil {
		t.Fatalf("NewRendererFS: %v", err)
	}
	return rd
}

// testLogo is a 300×200 logo: a red field with a white diagonal band and a
// transparent corner, so scaling and transparency are exercised.
func testLogo() image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	for y := range 200 {
		for x := range 300 {
			c := color.NRGBA{R: 0xd0, G: 0x20, B: 0x30, A: 0xff}
			if d := x - y; d > 40 && d < 80 {
				c = color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
			}
			if x > 260 && y > 160 {
				c = color.NRGBA{}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func styles() map[string]qr.Style {
	navyOnCream := qr.Style{Foreground: color.RGBA{0x1a, 0x23, 0x5a, 0xff}, Background: color.RGBA{0xff, 0xfa, 0xf0, 0xff}}
	round := navyOnCream
	round.Round = true
	logo := qr.DefaultStyle()
	logo.Logo = testLogo()
	roundLogo := round
	roundLogo.Logo = testLogo()
	return map[string]qr.Style{
		"square dots":         qr.DefaultStyle(),
		"round dots":          round,
		"a logo":              logo,
		"round dots and logo": roundLogo,
	}
}

// zbar decodes the QR code in a PNG file with zbarimg.
func zbar(t *testing.T, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zbarimg %s found no code: %v (%s)", filepath.Base(path), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimRight(string(out), "\n")
}

// rsvg rasterises an SVG file to a PNG file at its own size.
func rsvg(t *testing.T, svg, png string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "rsvg-convert", "--format", "png", "--output", png, svg).CombinedOutput()
	if err != nil {
		t.Fatalf("rsvg-convert: %v\n%s", err, out)
	}
}

func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	testtool.Need(t, pkg, name)
}

func skipLargeInShortMode(t *testing.T, size int) {
	t.Helper()
	if testing.Short() && size > shortMaxSize {
		t.Skipf("size %d decodes take seconds; skipped with -short", size)
	}
}

// shortMaxSize is the largest size decoded with -short.
const shortMaxSize = qr.MinSize

type decodeCase struct {
	name    string
	size    int
	style   string
	content string
	caption string
}

// decodeCases: every style for the event and for a spot at 512, and at
// 4096 each style once (alternating event and spot), which keeps the
// slowest renders and decodes to four per format.
func decodeCases() []decodeCase {
	var cases []decodeCase
	names := []string{"square dots", "round dots", "a logo", "round dots and logo"}
	for _, style := range names {
		cases = append(cases,
			decodeCase{fmt.Sprintf("the event code at 512 with %s", style), 512, style, eventURL, ""},
			decodeCase{fmt.Sprintf("a spot code at 512 with %s and a caption", style), 512, style, spotURL, allScripts},
		)
	}
	for i, style := range names {
		c := decodeCase{fmt.Sprintf("the event code at 4096 with %s", style), 4096, style, eventURL, ""}
		if i%2 == 1 {
			c = decodeCase{fmt.Sprintf("a spot code at 4096 with %s and a caption", style), 4096, style, spotURL, allScripts}
		}
		cases = append(cases, c)
	}
	return cases
}

func TestPNGDecodesWithARealReader(t *testing.T) {
	testtool.Long(t, "QR codes read back by zbarimg")
	testtool.Unraced(t, "drawing QR codes")
	needTool(t, "zbarimg", "zbar-tools")
	rd := renderer(t)
	st := styles()
	dir := t.TempDir()
	for i, tc := range decodeCases() {
		t.Run(tc.name, func(t *testing.T) {
			skipLargeInShortMode(t, tc.size)
			path := filepath.Join(dir, fmt.Sprintf("%d.png", i))
			var buf bytes.Buffer
			if err := rd.PNG(&buf, tc.content, tc.size, st[tc.style], tc.caption); err != nil {
				t.Fatalf("PNG: %v", err)
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("decoding the PNG: %v", err)
			}
			if cfg.Width != tc.size || cfg.Height != tc.size {
				t.Errorf("PNG is %d×%d, want %d×%d", cfg.Width, cfg.Height, tc.size, tc.size)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := zbar(t, path); got != tc.content {
				t.Errorf("decoded %q, want %q", got, tc.content)
			}
		})
	}
}

func TestSVGDecodesWithARealReader(t *testing.T) {
	testtool.Long(t, "QR codes read back by zbarimg")
	testtool.Unraced(t, "drawing QR codes")
	needTool(t, "zbarimg", "zbar-tools")
	needTool(t, "rsvg-convert", "librsvg2-bin")
	rd := renderer(t)
	st := styles()
	dir := t.TempDir()
	for i, tc := range decodeCases() {
		t.Run(tc.name, func(t *testing.T) {
			skipLargeInShortMode(t, tc.size)
			svg := filepath.Join(dir, fmt.Sprintf("%d.svg", i))
			png := filepath.Join(dir, fmt.Sprintf("%d.png", i))
			var buf bytes.Buffer
			if err := rd.SVG(&buf, tc.content, tc.size, st[tc.style], tc.caption); err != nil {
				t.Fatalf("SVG: %v", err)
			}
			if err := os.WriteFile(svg, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			rsvg(t, svg, png)
			f, err := os.Open(png)
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := image.DecodeConfig(f)
			f.Close()
			if err != nil {
				t.Fatalf("rsvg output: %v", err)
			}
			if cfg.Width != tc.size || cfg.Height != tc.size {
				t.Errorf("the SVG renders at %d×%d, want %d×%d", cfg.Width, cfg.Height, tc.size, tc.size)
			}
			if got := zbar(t, png); got != tc.content {
				t.Errorf("decoded %q, want %q", got, tc.content)
			}
		})
	}
}
