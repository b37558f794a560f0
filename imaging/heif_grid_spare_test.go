//go:build !arm

package imaging

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"testing"

	"golang.org/x/sync/semaphore"

	"eventbox/imaging/imagingtest"
	"eventbox/imaging/internal/planar"
	"eventbox/internal/testtool"
)

// TestGridTilesDecodeSideBySideWithSpareCapacity decodes one grid HEIC
// with and without the capacity a pool lends, and checks that helpers take
// tiles only when the budget and the cores allow (and wait while the cores
// are wanted), that the picture is the
// same byte for byte whoever decoded which tile, and that the budget comes
// back whole, after a failed tile too.
func TestGridTilesDecodeSideBySideWithSpareCapacity(t *testing.T) {
	testtool.Need(t, "libheif-examples", "heif-enc")
	if !heicSupported {
		t.Skip("no HEIC in this build")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	// 4 × 2 tiles of 512×512.
	b, _, err := imagingtest.GridPicture(t.TempDir(), 2048, 1024, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(b)
	m, err := readHEIFMeta(r, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.grid(r, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	alone, used, err := decodeHEIFGridWith(context.Background(), r, int64(len(b)), m, g, 1, nil)
	if err != nil || used != 1 {
		t.Fatalf("without spare capacity: %d decoders, %v; want 1", used, err)
	}
	budget := int64(4 * heicInstanceBytes)
	always := func(v bool) func() bool { return func() bool { return v } }
	looks := func(answers ...bool) func() bool {
		return func() bool {
			v := answers[0]
			if len(answers) > 1 {
				answers = answers[1:]
			}
			return v
		}
	}
	for _, tc := range []struct {
		name     string
		budget   int64
		free     func() bool
		min, max int
	}{
		{name: "free cores and budget: decoders side by side", budget: budget, free: always(true), min: 2, max: runtime.GOMAXPROCS(0)},
		{name: "no core free: one decoder", budget: budget, free: always(false), min: 1, max: 1},
		{name: "budget for no other instance: one decoder", budget: heicInstanceBytes - 1, free: always(true), min: 1, max: 1},
		{name: "cores wanted from the helpers' start: they wait, the first decoder does every tile", budget: budget, free: looks(true, false), min: 1, max: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &spareCapacity{mem: semaphore.NewWeighted(tc.budget), free: tc.free}
			got, used, err := decodeHEIFGridWith(context.Background(), r, int64(len(b)), m, g, 1, s)
			if err != nil {
				t.Fatal(err)
			}
			if used < tc.min || used > tc.max {
				t.Errorf("%d decoders took tiles, want %d to %d", used, tc.min, tc.max)
			}
			if !samePlanes(got, alone) {
				t.Error("the picture differs from the one decoded by one decoder")
			}
			if !s.mem.TryAcquire(tc.budget) {
				t.Error("the helpers' budget did not come back")
			}
		})
	}

	t.Run("a tile that cannot be read fails the picture and frees the helpers", func(t *testing.T) {
		broken := *m
		broken.items = map[int64]heifItem{}
		for id, it := range m.items {
			broken.items[id] = it
		}
		last := g.tiles[len(g.tiles)-1]
		it := broken.items[last]
		it.extents = [][2]int64{{int64(len(b)) + 10, 100}}
		broken.items[last] = it
		s := &spareCapacity{mem: semaphore.NewWeighted(budget), free: always(true)}
		_, _, err := decodeHEIFGridWith(context.Background(), r, int64(len(b)), &broken, g, 1, s)
		if err == nil || errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want the tile's read error", err)
		}
		if !s.mem.TryAcquire(budget) {
			t.Error("the helpers' budget did not come back")
		}
	})

	t.Run("the caller's end stops every decoder", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := &spareCapacity{mem: semaphore.NewWeighted(budget), free: always(true)}
		if _, _, err := decodeHEIFGridWith(ctx, r, int64(len(b)), m, g, 1, s); !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
	})
}

// samePlanes says whether a and b hold the same pixels.
func samePlanes(a, b planar.Image) bool {
	if a.W != b.W || a.H != b.H {
		return false
	}
	for _, p := range [][2]planar.Plane{{a.Y, b.Y}, {a.Cb, b.Cb}, {a.Cr, b.Cr}} {
		x, y := p[0], p[1]
		if x.W != y.W || x.H != y.H {
			return false
		}
		for row := range x.H {
			if !bytes.Equal(x.Pix[row*x.Stride:row*x.Stride+x.W], y.Pix[row*y.Stride:row*y.Stride+y.W]) {
				return false
			}
		}
	}
	return true
}
