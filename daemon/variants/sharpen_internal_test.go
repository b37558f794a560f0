package variants

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"io"
	"sync"
	"testing"
	"time"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// heicWithThumbnail stores a visible iPhone-like HEIC (a grid with its
// thumbnail item) in st with its variant job.
func heicWithThumbnail(t *testing.T, st *store.Store, v *Maker) store.Photo {
	t.Helper()
	if !imaging.HEICSupported() {
		t.Skip("no HEIC in this build")
	}
	b := imagingtest.PhoneHEIC(t, false)
	p := store.Photo{ID: store.NewID(), EventID: store.NewID(), Status: store.StatusVisible, Format: string(imaging.HEIC),
		Width: 1024, Height: 768}
	if _, err := st.Media().Write(p.OriginalName(), bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Photos().Add(t.Context(), p, 0, v.Jobs(p)...); err != nil {
		t.Fatal(err)
	}
	return p
}

// oneWorkerMaker opens an empty store and a maker of one worker over it.
func oneWorkerMaker(t *testing.T) (*store.Store, *Maker) {
	t.Helper()
	st, err := store.Open(t.Context(), t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	v, _ := newTestMaker(t, st, 1)
	return st, v
}

// roughHEIC opens a store with one iPhone-like HEIC, a maker of one worker
// over it, and runs the photo's variant job: it has rough variants.
func roughHEIC(t *testing.T) (*store.Store, *Maker, store.Photo) {
	t.Helper()
	st, v := oneWorkerMaker(t)
	p := heicWithThumbnail(t, st, v)
	if err := v.Ensure(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	return st, v, p
}

// displayWidth decodes the photo's display image and answers its width.
func displayWidth(t *testing.T, st *store.Store, p store.Photo) int {
	t.Helper()
	f, err := st.Media().Open(p.VariantName("display"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := jpeg.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Width
}

// A HEIC with a thumbnail item gets rough variants at once, its
// thumbnail item as thumb and display, with its sharpen job queued in the
// same step; the sharpen job then replaces them with the whole photo's,
// and tells Made both times (the second time of a photo that was on the
// wall already).
func TestHEICIsRoughAtOnceThenSharp(t *testing.T) {
	testtool.Unraced(t, "decoding HEIC")
	ctx := t.Context()
	st, v := oneWorkerMaker(t)
	var mu sync.Mutex
	var made []store.Photo
	v.made = func(_ context.Context, p store.Photo) {
		mu.Lock()
		made = append(made, p)
		mu.Unlock()
	}
	p := heicWithThumbnail(t, st, v)

	if err := v.Ensure(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	rough, err := st.Photos().Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !rough.Variants || !rough.VariantsRough {
		t.Fatalf("after its first attempt the HEIC is %+v, want rough variants", rough)
	}
	if w := displayWidth(t, st, p); w != 320 {
		t.Errorf("the rough display is %d px wide, want the thumbnail item's 320", w)
	}
	if sharpen, _ := st.Jobs().Unfinished(ctx, store.SharpenJobKind, 0); len(sharpen) != 1 || sharpen[0].Key != p.ID {
		t.Fatalf("sharpen jobs with the rough variants: %+v", sharpen)
	}

	if err := v.Sharp(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	sharp, err := st.Photos().Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !sharp.Variants || sharp.VariantsRough {
		t.Fatalf("after its sharpen job the HEIC is %+v, want sharp variants", sharp)
	}
	if w := displayWidth(t, st, p); w != 1024 {
		t.Errorf("the sharp display is %d px wide, want the photo's 1024", w)
	}
	if left, _ := st.Jobs().Unfinished(ctx, store.SharpenJobKind, 0); len(left) != 0 {
		t.Errorf("sharpen jobs left: %+v", left)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(made) != 2 || made[0].Variants || !made[1].VariantsRough {
		t.Errorf("Made was told %+v, want the photo without variants, then with rough ones", made)
	}
}

// A sharpen attempt waits while a photo gets its first variants: the
// guests' new photos go first, then the seconds of whole-HEIC work.
func TestSharpenWaitsForFreshPhotos(t *testing.T) {
	testtool.Unraced(t, "decoding HEIC")
	ctx := t.Context()
	st, v, p := roughHEIC(t)
	// A fresh photo's attempt is in flight (held in beforeOpen's place).
	v.fresh.Add(1)
	sharpened := make(chan error, 1)
	go func() { sharpened <- v.Sharp(ctx, p.ID) }()
	select {
	case err := <-sharpened:
		t.Fatalf("the sharpen attempt ran while a fresh photo was being made (%v)", err)
	case <-time.After(4 * freshGap):
	}
	v.freshAt.Store(time.Now().UnixNano())
	v.fresh.Add(-1)
	select {
	case err := <-sharpened:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the sharpen attempt did not run once the fresh photo was made")
	}
	if got, _ := st.Photos().Get(ctx, p.ID); got.VariantsRough {
		t.Errorf("the photo is still rough: %+v", got)
	}
}

// Deleting a rough photo cancels its sharpen job.
func TestDeletingARoughPhotoCancelsItsSharpening(t *testing.T) {
	testtool.Unraced(t, "decoding HEIC")
	ctx := t.Context()
	st, _, p := roughHEIC(t)
	if _, err := st.Photos().Delete(ctx, p.EventID, "", []string{p.ID}); err != nil {
		t.Fatal(err)
	}
	if left, _ := st.Jobs().Unfinished(ctx, store.SharpenJobKind, 0); len(left) != 0 {
		t.Errorf("sharpen jobs of a deleted photo: %+v", left)
	}
}

// While the image memory is in use (another photo being made), the
// album's preview of a HEIC is nil for now but not kept as "none": the
// next guest asking gets it. The photo's own variant attempt waits for
// the memory to take its thumbnail item as rough variants rather than
// decode the whole photo: on the Pi 4 stand-in, a party whose image work
// never paused decoded every HEIC whole, at 3.5 s of a core each, and
// its thumbs ended two minutes behind the last upload.
func TestHEICIsRoughWhileTheImageMemoryIsInUse(t *testing.T) {
	testtool.Unraced(t, "decoding HEIC")
	ctx := t.Context()
	st, v := oneWorkerMaker(t)
	p := heicWithThumbnail(t, st, v)
	real := v.previewOf
	var busy sync.Mutex
	inUse := true
	v.previewOf = func(ctx context.Context, r io.ReaderAt, size int64, wait bool) ([]byte, error) {
		busy.Lock()
		b := inUse
		busy.Unlock()
		if b && !wait {
			return nil, fmt.Errorf("%w: %w", imaging.ErrNoPreview, imaging.ErrMemoryBusy)
		}
		return real(ctx, r, size, wait)
	}
	if b, err := v.Preview(ctx, p); b != nil || err != nil {
		t.Fatalf("Preview with the memory in use = %d bytes, %v; want nil", len(b), err)
	}
	if err := v.Ensure(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	got, err := st.Photos().Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Variants || !got.VariantsRough {
		t.Fatalf("after its attempt with the memory in use, the HEIC has variants %v, rough %v; want its thumbnail item as rough variants", got.Variants, got.VariantsRough)
	}
	// Another HEIC, asked for by the album twice: busy, then free.
	q := heicWithThumbnail(t, st, v)
	if b, err := v.Preview(ctx, q); b != nil || err != nil {
		t.Fatalf("Preview with the memory in use = %d bytes, %v; want nil", len(b), err)
	}
	busy.Lock()
	inUse = false
	busy.Unlock()
	if b, err := v.Preview(ctx, q); len(b) == 0 || err != nil {
		t.Fatalf("Preview once the memory is free = %d bytes, %v; want the thumbnail item", len(b), err)
	}
}
