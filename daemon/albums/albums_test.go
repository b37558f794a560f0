package albums_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"log/slog"
	"testing"
	"time"

	"eventbox/assets"
	"eventbox/daemon/albums"
	"eventbox/store"
	"eventbox/text"
)

func openStore(t *testing.T) (*store.Store, store.Event) {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := store.Event{Name: "Ana & Ben", EventDate: "2026-06-20"}
	if err := st.Events().Create(context.Background(), &e); err != nil {
		t.Fatal(err)
	}
	return st, e
}

func newMaker(t *testing.T, st *store.Store, display func(context.Context, string) (bool, error)) *albums.Maker {
	t.Helper()
	fonts, err := text.Open(assets.Fonts(), assets.CaptionFonts()...)
	if err != nil {
		t.Fatal(err)
	}
	return albums.New(albums.Config{Store: st, Fonts: fonts, Display: display,
		Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return time.Date(2026, 6, 21, 10, 0, 0, 0, time.UTC) }})
}

// One album is made at a time: the slot is refused while taken, and
// free again once given back.
func TestTryStartLetsOneAlbumAtATime(t *testing.T) {
	st, _ := openStore(t)
	m := newMaker(t, st, nil)
	done, ok := m.TryStart()
	if !ok {
		t.Fatal("the first album was refused")
	}
	if _, ok := m.TryStart(); ok {
		t.Fatal("a second album started while the first was being made")
	}
	done()
	done, ok = m.TryStart()
	if !ok {
		t.Fatal("the slot stayed taken after the album was done")
	}
	done()
}

// The album lists visible photos oldest first, without videos or photos
// set aside, and leaves out at writing time a photo hidden meanwhile or
// one with no display to give.
func TestWriteLeavesOutWhatLeftTheAlbum(t *testing.T) {
	st, e := openStore(t)
	ctx := context.Background()
	var display bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	img.Set(1, 1, color.Black)
	if err := jpeg.Encode(&display, img, nil); err != nil {
		t.Fatal(err)
	}
	add := func(name string, edit func(*store.Photo)) store.Photo {
		p := store.Photo{ID: store.NewID(), EventID: e.ID, GuestName: name, Status: store.StatusVisible,
			Format: "jpeg", Variants: true, Width: 64, Height: 48}
		if edit != nil {
			edit(&p)
		}
		if p.Variants {
			if _, err := st.Media().Write(p.VariantName("display"), bytes.NewReader(display.Bytes())); err != nil {
				t.Fatal(err)
			}
		}
		res, err := st.Photos().Add(ctx, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		return res.Photo
	}
	kept := add("kept", nil)
	noDisplay := add("no display", func(p *store.Photo) { p.Variants = false })
	hidden := add("hidden later", nil)
	add("video", func(p *store.Photo) { p.Video = &store.VideoInfo{MIME: "video/mp4"} })
	add("set aside", func(p *store.Photo) { p.Variants, p.VariantsFailed = false, true })
	add("pending", func(p *store.Photo) { p.Status = store.StatusPending })

	asked := map[string]bool{}
	m := newMaker(t, st, func(_ context.Context, id string) (bool, error) {
		asked[id] = true
		return false, nil
	})
	ids, err := m.PhotoIDs(ctx, e.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{kept.ID, noDisplay.ID, hidden.ID}
	if len(ids) != len(want) || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
		t.Fatalf("PhotoIDs = %v, want %v (oldest first)", ids, want)
	}
	if _, err := st.Photos().Update(ctx, e.ID, []string{hidden.ID}, func(p *store.Photo) bool {
		p.Status = store.StatusHidden
		return true
	}); err != nil {
		t.Fatal(err)
	}
	var pdf bytes.Buffer
	photos, pages, err := m.Write(ctx, &pdf, e, ids, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if photos != 1 || pages != 2 {
		t.Errorf("Write made %d photos on %d pages, want 1 photo after the cover (2 pages)", photos, pages)
	}
	if !asked[noDisplay.ID] || asked[kept.ID] {
		t.Errorf("display asked for %v, want only the photo without one", asked)
	}
	if !bytes.HasPrefix(pdf.Bytes(), []byte("%PDF-")) {
		t.Errorf("the album is not a PDF: %q", pdf.Bytes()[:min(16, pdf.Len())])
	}
}

// The album's most-loved order puts the photos with hearts first, most
// loved first, and keeps the others oldest first after them.
func TestLovedFirstPutsTheMostLovedFirst(t *testing.T) {
	st, e := openStore(t)
	ctx := context.Background()
	var ids []string
	for range 4 {
		res, err := st.Photos().Add(ctx, store.Photo{EventID: e.ID, Status: store.StatusVisible, Format: "jpeg", Variants: true}, 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Photo.ID)
	}
	hearts := map[int]int{1: 1, 3: 2} // photo index: hearts
	for i, n := range hearts {
		for range n {
			if _, _, err := st.Hearts().Set(ctx, e.ID, ids[i], store.GuestHearter(store.NewID()), true); err != nil {
				t.Fatal(err)
			}
		}
	}
	m := newMaker(t, st, nil)
	taken, err := m.PhotoIDs(ctx, e.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.LovedFirst(ctx, e.ID, taken)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ids[3], ids[1], ids[0], ids[2]}
	if len(got) != len(want) {
		t.Fatalf("loved first = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("loved first = %v, want %v", got, want)
		}
	}
}
