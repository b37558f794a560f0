package scenarios_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/internal/testtool"
)

// printedCode is one QR code image placed in a PDF: its text and the
// printed width of its symbol (its quiet zone left out), in mm.
type printedCode struct {
	data string
	mm   float64
}

// printedCodes lists the QR codes the PDF draws, one for each time an
// image is placed: pdfimages says each placement's resolution and writes
// its pixels, zbarimg reads them, and the symbol's width is that of its
// first row that is not background, from the top-left finder pattern to
// the top-right one.
func printedCodes(t *testing.T, ctx context.Context, pdf, dir string) []printedCode {
	t.Helper()
	list, err := exec.CommandContext(ctx, "pdfimages", "-list", pdf).Output()
	if err != nil {
		t.Fatalf("pdfimages -list: %v", err)
	}
	var ppi []float64
	for _, l := range strings.Split(string(list), "\n")[2:] {
		f := strings.Fields(l)
		if len(f) < 14 {
			continue
		}
		v, err := strconv.ParseFloat(f[12], 64)
		if err != nil {
			t.Fatalf("pdfimages line %q: %v", l, err)
		}
		ppi = append(ppi, v)
	}
	prefix := filepath.Join(dir, "image")
	if out, err := exec.CommandContext(ctx, "pdfimages", "-png", pdf, prefix).CombinedOutput(); err != nil {
		t.Fatalf("pdfimages -png: %v: %s", err, out)
	}
	var codes []printedCode
	for i, v := range ppi {
		path := fmt.Sprintf("%s-%03d.png", prefix, i)
		out, err := exec.CommandContext(ctx, "zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", path).Output()
		if err != nil {
			continue // not a code (a logo)
		}
		codes = append(codes, printedCode{data: strings.TrimRight(string(out), "\n"), mm: symbolPixels(t, path) / v * 25.4})
	}
	return codes
}

// symbolPixels is the width in pixels of the QR symbol of a PNG of a
// code: its first row that differs from the corner's colour, from the
// first such pixel to the last.
func symbolPixels(t *testing.T, path string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	b := img.Bounds()
	grey := func(x, y int) int { return int(color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y) }
	bg := grey(b.Min.X, b.Min.Y)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		x0, x1 := -1, -1
		for x := b.Min.X; x < b.Max.X; x++ {
			if d := grey(x, y) - bg; d > 64 || d < -64 {
				if x0 < 0 {
					x0 = x
				}
				x1 = x
			}
		}
		if x0 >= 0 {
			return float64(x1 - x0 + 1)
		}
	}
	t.Fatalf("%s: no symbol", path)
	return 0
}

// zbarXML is the part of zbarimg's --xml output the test reads.
type zbarXML struct {
	Sources []struct {
		Indexes []struct {
			Symbols []struct {
				Data string `xml:"data"`
			} `xml:"symbol"`
		} `xml:"index"`
	} `xml:"source"`
}

// renderPages renders every page of the PDF at dpi to grey PNGs in dir and
// returns their paths, in page order.
func renderPages(t *testing.T, ctx context.Context, pdf string, dpi int, dir string) []string {
	t.Helper()
	prefix := filepath.Join(dir, fmt.Sprintf("page-%ddpi", dpi))
	if out, err := exec.CommandContext(ctx, "pdftoppm", "-r", strconv.Itoa(dpi), "-gray", "-png", pdf, prefix).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm at %d dpi: %v: %s", dpi, err, out)
	}
	pages, _ := filepath.Glob(prefix + "*.png")
	if len(pages) == 0 {
		t.Fatalf("pdftoppm drew no page at %d dpi", dpi)
	}
	slices.Sort(pages)
	return pages
}

// scanPage decodes every QR code of a rendered page with zbarimg; a page
// without any is an empty list.
func scanPage(t *testing.T, ctx context.Context, page string) []string {
	t.Helper()
	out, err := exec.CommandContext(ctx, "zbarimg", "--quiet", "--xml", "-Sdisable", "-Sqrcode.enable", page).Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 4 {
		return nil // nothing found
	} else if err != nil {
		t.Fatalf("zbarimg on %s: %v", filepath.Base(page), err)
	}
	var x zbarXML
	if err := xml.Unmarshal(out, &x); err != nil {
		t.Fatalf("reading zbarimg's answer on %s: %v: %s", filepath.Base(page), err, out)
	}
	var codes []string
	for _, s := range x.Sources {
		for _, ix := range s.Indexes {
			for _, sym := range ix.Symbols {
				codes = append(codes, sym.Data)
			}
		}
	}
	return codes
}

// inkBottom is how far down the page its lowest dark pixel is, as a
// fraction of the page's height.
func inkBottom(t *testing.T, page string) float64 {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("reading %s: %v", page, err)
	}
	b := img.Bounds()
	for y := b.Max.Y - 1; y >= b.Min.Y; y-- {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
				return float64(y-b.Min.Y+1) / float64(b.Dy())
			}
		}
	}
	return 0
}

// Every code on every printed sign is at least 3 cm wide and scans from a
// 72 dpi picture of its page as well as from a 200 dpi one: a phone
// across a table sees the sign about as coarsely as a 72 dpi render.
// Place cards print no long ?at= address, and the poster fills its page.
func TestSignCodesScanFromAcrossATable(t *testing.T) {
	testtool.Long(t, "signs rendered and scanned at 72 and 200 dpi")
	testtool.Unraced(t, "rendering and scanning pixels")
	t.Parallel()
	needTool(t, "pdftoppm", "poppler-utils")
	needTool(t, "zbarimg", "zbar-tools")
	h := newHarness(t, func(c *daemon.Config) {
		c.HotspotWiFi = func(context.Context) (string, string, bool) { return "Anna & Marco", "champagne-2026", true }
	})
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Anna & Marco’s wedding", "accessCode": "ROSE42", "accentColor": "#b0306a"})
	id := ev["id"].(string)
	for _, l := range []string{"Bar", "Le jardin d’hiver près de la piscine"} {
		owner.do("POST", "/api/admin/events/"+id+"/spots", map[string]any{"label": l}).expect(t, 201, "")
	}
	// French where the text is longest against the codes (the table
	// card's and place card's steps); the codes themselves do not change
	// with the language.
	tests := []struct {
		kind, size, more string
		codes            int // on the whole document
		langs            []string
	}{
		{"table", "a6", "", 8, []string{"en", "fr"}},
		{"table", "a5", "", 4, []string{"fr"}},
		{"poster", "a4", "", 2, []string{"en"}},
		{"poster", "a3", "", 2, []string{"fr"}},
		{"place", "", "", 4, []string{"en", "fr"}},
		{"table", "a6", "&wifi=0", 4, []string{"en"}},
		{"poster", "a4", "&wifi=0", 1, []string{"fr"}},
	}
	for _, tt := range tests {
		for _, lang := range tt.langs {
			t.Run(tt.kind+"-"+tt.size+strings.ReplaceAll(tt.more, "&", "-")+"-"+lang, func(t *testing.T) {
				r := owner.do("GET", "/api/admin/events/"+id+"/signage?kind="+tt.kind+"&size="+tt.size+"&lang="+lang+tt.more, nil).expect(t, 200, "")
				dir := t.TempDir()
				if d := os.Getenv("SIGNAGE_DIR"); d != "" {
					// Keep the pages to look at them.
					dir, _ = os.MkdirTemp(d, strings.ReplaceAll(t.Name(), "/", "-"))
				}
				pdf := filepath.Join(dir, "sign.pdf")
				if err := os.WriteFile(pdf, r.Body, 0o600); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				fine, coarse := renderPages(t, ctx, pdf, 200, dir), renderPages(t, ctx, pdf, 72, dir)
				if len(fine) != len(coarse) {
					t.Fatalf("%d pages at 200 dpi, %d at 72", len(fine), len(coarse))
				}
				found := 0
				for i := range fine {
					at200, at72 := scanPage(t, ctx, fine[i]), scanPage(t, ctx, coarse[i])
					found += len(at200)
					want, got := slices.Sorted(slices.Values(at200)), slices.Sorted(slices.Values(at72))
					if !slices.Equal(want, got) {
						t.Errorf("page %d: at 200 dpi %q, at 72 dpi %q", i+1, want, got)
					}
				}
				if found != tt.codes {
					t.Errorf("%d codes found at 200 dpi, want %d", found, tt.codes)
				}
				printed := printedCodes(t, ctx, pdf, dir)
				if len(printed) != tt.codes {
					t.Errorf("%d codes printed, want %d", len(printed), tt.codes)
				}
				for _, c := range printed {
					if c.mm < 30 {
						t.Errorf("the code of %q is %.1f mm wide, under 30 mm", c.data, c.mm)
					}
				}
				if tt.kind == "place" {
					if txt := pdfText(t, ctx, pdf); strings.Contains(txt, "?at=") {
						t.Errorf("a place card prints its long address: %q", txt)
					}
				}
				if tt.kind == "poster" {
					if b := inkBottom(t, fine[0]); b < 0.85 {
						t.Errorf("the poster's print stops %.0f%% down its page", 100*b)
					}
				}
			})
		}
	}
}

// pdfText is the text of a PDF file, by pdftotext.
func pdfText(t *testing.T, ctx context.Context, pdf string) string {
	t.Helper()
	out, err := exec.CommandContext(ctx, "pdftotext", pdf, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}
