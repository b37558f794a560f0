package planar_test

import (
	"image"
	"testing"

	"eventbox/imaging/internal/planar"
)

func TestResizeKeepsFlatAreasFlat(t *testing.T) {
	tests := []struct {
		name       string
		w, h       int
		subX, subY int
		toW, toH   int
	}{
		{"a small reduction of 4:2:0", 2016, 1512, 2, 2, 1920, 1440},
		{"a large reduction of 4:2:0", 1920, 1440, 2, 2, 400, 300},
		{"4:4:4 to 4:2:0 at the same size", 301, 199, 1, 1, 301, 199},
		{"4:2:2 reduced to odd sizes", 999, 777, 2, 1, 333, 259},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := planar.NewImage(tt.w, tt.h, tt.subX, tt.subY, false)
			for _, p := range []planar.Plane{m.Y, m.Cb, m.Cr} {
				for i := range p.Pix {
					p.Pix[i] = 173
				}
			}
			r := planar.Resize(m, tt.toW, tt.toH)
			if err := r.Validate(); err != nil {
				t.Fatal(err)
			}
			if r.W != tt.toW || r.H != tt.toH || r.SubX != 2 || r.SubY != 2 {
				t.Fatalf("got %dx%d sub %dx%d", r.W, r.H, r.SubX, r.SubY)
			}
			for i, p := range []planar.Plane{r.Y, r.Cb, r.Cr} {
				for y := range p.H {
					for x, v := range p.Row(y) {
						if v != 173 {
							t.Fatalf("plane %d sample (%d,%d) = %d, want 173", i, x, y, v)
						}
					}
				}
			}
		})
	}
}

func TestResizeFollowsAGradient(t *testing.T) {
	m := planar.NewImage(1000, 10, 1, 1, true)
	for y := range 10 {
		for x := range 1000 {
			m.Y.Pix[y*1000+x] = byte(x / 4)
		}
	}
	r := planar.Resize(m, 250, 10)
	for x, v := range r.Y.Row(5) {
		// Source samples 4x..4x+3 hold x; the filter centres on 4x+1.5.
		if d := int(v) - x; x > 2 && x < 247 && (d < -1 || d > 1) {
			t.Fatalf("sample %d = %d, want about %d", x, v, x)
		}
	}
}

func TestHalveAveragesBlocks(t *testing.T) {
	m := planar.NewImage(3, 3, 1, 1, true)
	copy(m.Y.Pix, []byte{0, 4, 8, 12, 16, 20, 24, 28, 32})
	h := planar.Halve(m)
	want := []byte{(0 + 4 + 12 + 16 + 2) / 4, (8 + 20 + 1) / 2, (24 + 28 + 1) / 2, 32}
	if h.W != 2 || h.H != 2 || string(h.Y.Pix) != string(want) {
		t.Fatalf("Halve = %dx%d %v, want 2x2 %v", h.W, h.H, h.Y.Pix, want)
	}
}

// TestOrientMatchesTheEXIFDefinitions checks each orientation against where
// the stored corners must land, from the EXIF 2.3 table.
func TestOrientMatchesTheEXIFDefinitions(t *testing.T) {
	// Stored 3x2: corners a (top left), b (top right), c (bottom left),
	// d (bottom right).
	const a, b, c, d = 10, 20, 30, 40
	stored := planar.NewImage(3, 2, 1, 1, true)
	copy(stored.Y.Pix, []byte{a, 0, b, c, 0, d})
	tests := []struct {
		o              int
		name           string
		tl, tr, bl, br byte
	}{
		{1, "as stored", a, b, c, d},
		{2, "mirrored left-right", b, a, d, c},
		{3, "turned 180°", d, c, b, a},
		{4, "mirrored top-bottom", c, d, a, b},
		{5, "transposed", a, c, b, d},
		{6, "turned 90° clockwise", c, a, d, b},
		{7, "transversed", d, b, c, a},
		{8, "turned 90° counter-clockwise", b, d, a, c},
	}
	for _, tt := range tests {
		t.Run("orientation "+string(rune('0'+tt.o))+" is "+tt.name, func(t *testing.T) {
			m := planar.Orient(stored, tt.o)
			p := m.Y
			got := [4]byte{p.Pix[0], p.Pix[p.W-1], p.Pix[(p.H-1)*p.Stride], p.Pix[(p.H-1)*p.Stride+p.W-1]}
			if got != [4]byte{tt.tl, tt.tr, tt.bl, tt.br} {
				t.Fatalf("corners %v, want %v", got, [4]byte{tt.tl, tt.tr, tt.bl, tt.br})
			}
			if (tt.o >= 5) != (m.W == 2) {
				t.Fatalf("size %dx%d", m.W, m.H)
			}
		})
	}
}

func TestFromImageFlattensAlphaOntoWhite(t *testing.T) {
	m := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	for i := 0; i < len(m.Pix); i += 4 {
		copy(m.Pix[i:], []byte{0, 0, 0, 0}) // transparent black
	}
	p := planar.FromImage(m)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, v := range p.Y.Pix {
		if v != 255 {
			t.Fatalf("luma %d, want 255 (white)", v)
		}
	}
	for i := range p.Cb.Pix {
		if p.Cb.Pix[i] != 128 || p.Cr.Pix[i] != 128 {
			t.Fatalf("chroma %d,%d, want 128,128", p.Cb.Pix[i], p.Cr.Pix[i])
		}
	}
}

// BenchmarkResizeDisplayAndThumb is the pipeline's resampling of a 12 MP
// JPEG decoded at 1/2 scale: 2016×1512 to 1920×1440, then to 400×300.
func BenchmarkResizeDisplayAndThumb(b *testing.B) {
	m := planar.NewImage(2016, 1512, 2, 2, false)
	for i := range m.Y.Pix {
		m.Y.Pix[i] = byte(i * 7)
	}
	for b.Loop() {
		d := planar.Resize(m, 1920, 1440)
		planar.Resize(d, 400, 300)
	}
}
