package album_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/album"
	"eventbox/assets"
	"eventbox/internal/testtool"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// solidJPEG is a w×h JPEG of one colour.
func solidJPEG(t testing.TB, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func imageOf(b []byte) album.Image {
	return album.Image{R: bytes.NewReader(b), Size: int64(len(b))}
}

// build writes an album of photos (each with its caption) and returns the
// PDF.
func build(t *testing.T, opt album.Options, cover *album.Cover, photos [][]byte, captions []string) []byte {
	t.Helper()
	ctx := context.Background()
	var out bytes.Buffer
	w, err := album.New(&out, opt)
	if err != nil {
		t.Fatalf("new album: %v", err)
	}
	if cover != nil {
		if err := w.Cover(ctx, *cover); err != nil {
			t.Fatalf("cover: %v", err)
		}
	}
	for i, p := range photos {
		caption := ""
		if i < len(captions) {
			caption = captions[i]
		}
		if err := w.AddPhoto(ctx, imageOf(p), caption); err != nil {
			t.Fatalf("photo %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return out.Bytes()
}

// checkXref verifies the file's own structure: startxref points at the
// table, and every entry points at its "n 0 obj".
func checkXref(t *testing.T, pdf []byte) {
	t.Helper()
	m := regexp.MustCompile(`startxref\n(\d+)\n%%EOF\n$`).FindSubmatch(pdf)
	if m == nil {
		t.Fatal("no startxref at the end of the file")
	}
	at, _ := strconv.Atoi(string(m[1]))
	if !bytes.HasPrefix(pdf[at:], []byte("xref\n0 ")) {
		t.Fatalf("startxref %d does not point at the xref table", at)
	}
	lines := strings.Split(string(pdf[at:]), "\n")
	count, _ := strconv.Atoi(strings.Fields(lines[1])[1])
	for i := 1; i < count; i++ {
		off, _ := strconv.Atoi(lines[2+i][:10])
		want := fmt.Sprintf("%d 0 obj\n", i)
		if !bytes.HasPrefix(pdf[off:], []byte(want)) {
			t.Fatalf("xref entry %d points at %q", i, pdf[off:min(off+20, len(pdf))])
		}
	}
}

// needPoppler skips the test unless poppler-utils are installed (fails
// it under EVENTBOX_REQUIRE_ALL=1).
func needPoppler(t *testing.T) {
	t.Helper()
	testtool.Need(t, "poppler-utils", "pdfinfo", "pdftoppm", "pdftotext")
}

// runTool runs a poppler tool with a 30 s limit and fails on stderr
// warnings, which poppler prints for damaged files it can still read.
func runTool(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s %v: %v: %s", name, args, err, stderr.String())
	}
	return out
}

func writeTemp(t *testing.T, pdf []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "album.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func pdfPages(t *testing.T, path string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`).FindSubmatch(runTool(t, "pdfinfo", path))
	if m == nil {
		t.Fatal("pdfinfo printed no page count")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func TestPageCountFollowsTheLayout(t *testing.T) {
	needPoppler(t)
	photo := solidJPEG(t, 64, 48, color.RGBA{200, 40, 40, 255})
	photos := func(n int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = photo
		}
		return out
	}
	cover := &album.Cover{Title: "Anna & Marco", Date: "20 June 2026"}
	tests := []struct {
		name    string
		perPage int
		cover   *album.Cover
		photos  int
		pages   int
	}{
		{"one photo a page makes a page per photo after the cover", 1, cover, 5, 6},
		{"two photos a page round the last page up", 2, cover, 5, 4},
		{"four photos a page fill a grid", 4, cover, 8, 3},
		{"four photos a page with one left over add a page", 4, cover, 9, 4},
		{"a cover alone is one page", 2, cover, 0, 1},
		{"an album without a cover starts with the photos", 4, nil, 3, 1},
		{"an album with nothing still is a valid one-page PDF", 1, nil, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := album.Options{PerPage: tc.perPage, Fonts: assets.Fonts(), FontNames: assets.CaptionFonts()}
			pdf := build(t, opt, tc.cover, photos(tc.photos), nil)
			checkXref(t, pdf)
			if got := pdfPages(t, writeTemp(t, pdf)); got != tc.pages {
				t.Errorf("pdfinfo counts %d pages, want %d", got, tc.pages)
			}
		})
	}
}

// renderPage renders one page at 30 dpi with pdftoppm and decodes it.
func renderPage(t *testing.T, path string, page int) image.Image {
	t.Helper()
	p := strconv.Itoa(page)
	out := runTool(t, "pdftoppm", "-png", "-r", "30", "-f", p, "-l", p, "-singlefile", path)
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("decoding the rendered page: %v", err)
	}
	return img
}

func TestPhotosAreDrawnInReadingOrder(t *testing.T) {
	needPoppler(t)
	colours := []color.RGBA{{220, 30, 30, 255}, {30, 180, 30, 255}, {30, 30, 220, 255}, {230, 200, 20, 255}}
	var photos [][]byte
	for _, c := range colours {
		photos = append(photos, solidJPEG(t, 160, 120, c))
	}
	path := writeTemp(t, build(t, album.Options{PerPage: 4}, &album.Cover{Title: "x"}, photos, nil))
	img := renderPage(t, path, 2)
	b := img.Bounds()
	// The middle of each cell of the 2×2 grid, as fractions of the page.
	centres := [][2]float64{{0.27, 0.27}, {0.73, 0.27}, {0.27, 0.73}, {0.73, 0.73}}
	for i, c := range centres {
		x := b.Min.X + int(c[0]*float64(b.Dx()))
		y := b.Min.Y + int(c[1]*float64(b.Dy()))
		r, g, bl, _ := img.At(x, y).RGBA()
		want := colours[i]
		if diff(r>>8, want.R) > 40 || diff(g>>8, want.G) > 40 || diff(bl>>8, want.B) > 40 {
			t.Errorf("cell %d shows rgb(%d,%d,%d), want about rgb(%d,%d,%d)", i, r>>8, g>>8, bl>>8, want.R, want.G, want.B)
		}
	}
}

func diff(a uint32, b uint8) uint32 {
	if a > uint32(b) {
		return a - uint32(b)
	}
	return uint32(b) - a
}

func TestARenderedPhotoPageIsNotBlank(t *testing.T) {
	needPoppler(t)
	for _, perPage := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%d a page", perPage), func(t *testing.T) {
			photo := solidJPEG(t, 120, 90, color.RGBA{20, 20, 20, 255})
			path := writeTemp(t, build(t, album.Options{PerPage: perPage}, &album.Cover{Title: "x"}, [][]byte{photo}, nil))
			img := renderPage(t, path, 2)
			dark, total := 0, 0
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					r, _, _, _ := img.At(x, y).RGBA()
					if r>>8 < 60 {
						dark++
					}
					total++
				}
			}
			// The photo covers a good part of its cell: one page, a
			// half or a quarter of the printable area.
			minShare := map[int]float64{1: 0.35, 2: 0.15, 4: 0.07}[perPage]
			if share := float64(dark) / float64(total); share < minShare {
				t.Errorf("%.0f%% of the page is dark, want at least %.0f%%", share*100, minShare*100)
			}
		})
	}
}

func TestCaptionsInEveryScriptComeBackAsText(t *testing.T) {
	needPoppler(t)
	names := []string{"Zoë Ångström", "Дмитрий", "Ελένη", "王小明", "김민준", "שרה"}
	photo := solidJPEG(t, 80, 60, color.RGBA{90, 90, 200, 255})
	var photos [][]byte
	for range names {
		photos = append(photos, photo)
	}
	opt := album.Options{PerPage: 1, Fonts: assets.Fonts(), FontNames: assets.CaptionFonts()}
	path := writeTemp(t, build(t, opt, &album.Cover{Title: "Fête de Léa", Date: "1 juin 2026"}, photos, names))
	for page, want := range append([]string{"Fête de Léa"}, names...) {
		p := strconv.Itoa(page + 1)
		text := string(runTool(t, "pdftotext", "-f", p, "-l", p, path, "-"))
		// pdftotext gives right-to-left text back in logical order,
		// sometimes wrapped in direction marks.
		text = strings.NewReplacer("\u202b", "", "\u202c", "", "\u200f", "").Replace(text)
		if !strings.Contains(text, want) {
			t.Errorf("page %d reads %q, want it to contain %q", page+1, text, want)
		}
	}
	if !strings.Contains(string(runTool(t, "pdftotext", "-f", "1", "-l", "1", path, "-")), "1 juin 2026") {
		t.Error("the cover does not show the date")
	}
	fonts := string(runTool(t, "pdffonts", path))
	for _, f := range []string{"DejaVuSans", "EventboxCJK", "EventboxHangul"} {
		if !strings.Contains(fonts, f) {
			t.Errorf("pdffonts does not list %s:\n%s", f, fonts)
		}
	}
}

func TestOnlyTheFontsUsedAreEmbedded(t *testing.T) {
	needPoppler(t)
	photo := solidJPEG(t, 80, 60, color.RGBA{90, 90, 200, 255})
	opt := album.Options{PerPage: 2, Fonts: assets.Fonts(), FontNames: assets.CaptionFonts()}
	path := writeTemp(t, build(t, opt, &album.Cover{Title: "Garden party"}, [][]byte{photo}, []string{"Ana"}))
	fonts := string(runTool(t, "pdffonts", path))
	if !strings.Contains(fonts, "DejaVuSans") || strings.Contains(fonts, "EventboxCJK") || strings.Contains(fonts, "EventboxHangul") {
		t.Errorf("want DejaVuSans only:\n%s", fonts)
	}
}

func TestALogoIsDrawnOnTheCover(t *testing.T) {
	needPoppler(t)
	logo := solidJPEG(t, 400, 400, color.RGBA{250, 0, 0, 255})
	path := writeTemp(t, build(t, album.Options{PerPage: 1}, &album.Cover{Title: "x", Logo: ptr(imageOf(logo))}, nil, nil))
	img := renderPage(t, path, 1)
	red := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, _, _ := img.At(x, y).RGBA()
			if r>>8 > 200 && g>>8 < 60 {
				red++
			}
		}
	}
	// 160×160 pt at 30 dpi is about 66×66 pixels.
	if red < 3000 {
		t.Errorf("%d red pixels on the cover, want the logo (about 4,400)", red)
	}
}

func ptr[T any](v T) *T { return &v }

func TestImagesTheAlbumCannotEmbedAreRefusedWithoutHarm(t *testing.T) {
	ctx := context.Background()
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, image.NewGray(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	good := solidJPEG(t, 40, 30, color.Gray{128})
	truncated := good[:20]
	tests := []struct {
		name string
		data []byte
	}{
		{"a PNG", pngBuf.Bytes()},
		{"a JPEG cut off in its header", truncated},
		{"an empty file", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name+" is ErrImage and the album goes on", func(t *testing.T) {
			var out bytes.Buffer
			w, err := album.New(&out, album.Options{PerPage: 1})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.AddPhoto(ctx, imageOf(tc.data), "x"); !errors.Is(err, album.ErrImage) {
				t.Fatalf("got %v, want ErrImage", err)
			}
			if err := w.AddPhoto(ctx, imageOf(good), "y"); err != nil {
				t.Fatalf("next photo: %v", err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if w.Pages() != 1 {
				t.Errorf("%d pages, want 1", w.Pages())
			}
			checkXref(t, out.Bytes())
		})
	}
}

func TestMisuseIsRefused(t *testing.T) {
	ctx := context.Background()
	photo := solidJPEG(t, 8, 8, color.Gray{0})
	t.Run("three photos a page is not a layout", func(t *testing.T) {
		if _, err := album.New(&bytes.Buffer{}, album.Options{PerPage: 3}); err == nil {
			t.Fatal("New accepted PerPage 3")
		}
	})
	t.Run("a cover after a photo is refused", func(t *testing.T) {
		w, _ := album.New(&bytes.Buffer{}, album.Options{PerPage: 1})
		if err := w.AddPhoto(ctx, imageOf(photo), ""); err != nil {
			t.Fatal(err)
		}
		if err := w.Cover(ctx, album.Cover{Title: "late"}); err == nil {
			t.Fatal("Cover after a photo succeeded")
		}
	})
	t.Run("a cancelled context stops the next photo", func(t *testing.T) {
		w, _ := album.New(&bytes.Buffer{}, album.Options{PerPage: 1})
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := w.AddPhoto(cctx, imageOf(photo), ""); !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
	})
	t.Run("closing twice says so", func(t *testing.T) {
		w, _ := album.New(&bytes.Buffer{}, album.Options{PerPage: 1})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); !errors.Is(err, album.ErrClosed) {
			t.Fatalf("got %v, want ErrClosed", err)
		}
		if err := w.AddPhoto(ctx, imageOf(photo), ""); !errors.Is(err, album.ErrClosed) {
			t.Fatalf("got %v, want ErrClosed", err)
		}
	})
}

// failAfter fails every write after n bytes.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("connection reset")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestAWriteFailureIsReported(t *testing.T) {
	ctx := context.Background()
	photo := solidJPEG(t, 400, 300, color.Gray{100})
	w, err := album.New(&failAfter{n: 100 << 10}, album.Options{PerPage: 1})
	if err != nil {
		t.Fatal(err)
	}
	var failed error
	for range 200 {
		if failed = w.AddPhoto(ctx, imageOf(photo), ""); failed != nil {
			break
		}
	}
	if failed == nil {
		failed = w.Close()
	}
	if failed == nil || !strings.Contains(failed.Error(), "connection reset") {
		t.Fatalf("got %v, want the write error", failed)
	}
}

func TestMemoryStaysFlatAsTheAlbumGrows(t *testing.T) {
	ctx := context.Background()
	photo := solidJPEG(t, 1920, 1440, color.RGBA{120, 80, 40, 255})
	w, err := album.New(discard{}, album.Options{PerPage: 2, Fonts: assets.Fonts(), FontNames: assets.CaptionFonts()})
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	add := func(n int) {
		for i := range n {
			if err := w.AddPhoto(ctx, imageOf(photo), fmt.Sprintf("Guest %d", i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	add(20)
	before := heap()
	add(400)
	after := heap()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// 400 more photos of 1920×1440 may cost offsets and page numbers
	// (a few bytes each), never their images.
	if after > before && after-before > 256<<10 {
		t.Errorf("the heap grew by %d KiB over 400 photos", (after-before)>>10)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestTheSameAlbumIsTheSameFile(t *testing.T) {
	photo := solidJPEG(t, 16, 12, color.RGBA{10, 120, 200, 255})
	opt := album.Options{PerPage: 2, Created: time.Date(2026, 6, 21, 10, 0, 0, 0, time.UTC)}
	cover := &album.Cover{Title: "Anna & Marco", Date: "20 June 2026", Logo: ptr(imageOf(photo))}
	pdf := build(t, opt, cover, [][]byte{photo, photo, photo}, []string{"Ana", "Bo", "Cy"})
	checkXref(t, pdf)
	golden := filepath.Join("testdata", "album.pdf")
	if *update {
		if err := os.WriteFile(golden, pdf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to make it): %v", err)
	}
	if !bytes.Equal(pdf, want) {
		t.Errorf("the album differs from %s (run with -update after checking the change)", golden)
	}
}

// shapedCaptions are guest names whose glyphs differ from their
// characters' order or forms: joined Arabic, Hebrew, Latin and Arabic with
// brackets (both ways round), CJK, and Devanagari with conjuncts and a
// vowel sign drawn before its consonant. pdftotext guesses a line's
// direction from the majority of its letters and puts neutral characters
// (brackets, spaces) at a change of direction with the right-to-left
// text, so the mixed names are ones it can read back (docs/decisions.md,
// "One text stack").
var shapedCaptions = []string{
	"سلام عليكم",
	"שרה כהן",
	"Anna (Maria) محمد",
	"محمد (علي) Anna",
	"王小明 김민준",
	"प्रिया क्षत्रिय",
}

func TestShapedCaptionsComeBackInLogicalOrder(t *testing.T) {
	needPoppler(t)
	photo := solidJPEG(t, 80, 60, color.RGBA{90, 90, 200, 255})
	photos := make([][]byte, len(shapedCaptions))
	for i := range photos {
		photos[i] = photo
	}
	opt := album.Options{PerPage: 1, Fonts: assets.Fonts(), FontNames: assets.CaptionFonts()}
	pdf := build(t, opt, nil, photos, shapedCaptions)
	path := writeTemp(t, pdf)
	var got strings.Builder
	for page, want := range shapedCaptions {
		p := strconv.Itoa(page + 1)
		text := string(runTool(t, "pdftotext", "-f", p, "-l", p, path, "-"))
		text = strings.NewReplacer("\u202a", "", "\u202b", "", "\u202c", "", "\u200f", "", "\u200e", "").Replace(text)
		line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(text), "\n", 2)[0])
		if line != want {
			t.Errorf("page %d reads %q (%U), want %q", page+1, line, []rune(line), want)
		}
		fmt.Fprintf(&got, "%s\n", line)
	}
	// The drawing itself (glyph ids and positions) is kept as a golden
	// file: the content streams, which the album writes uncompressed.
	var content strings.Builder
	for _, m := range regexp.MustCompile(`(?s)(BT\n.*?ET\n)`).FindAllSubmatch(pdf, -1) {
		content.Write(m[1])
	}
	golden := filepath.Join("testdata", "shaped-captions.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(content.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to make it): %v", err)
	}
	if content.String() != string(want) {
		t.Errorf("the captions' drawing differs from %s (run with -update after checking the change)", golden)
	}
}
