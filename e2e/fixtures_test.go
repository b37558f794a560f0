package e2e

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"eventbox/store"
)

// writeJPEG writes a w×h JPEG with a colour gradient (so it is a real
// photo to the decoder, not a flat block) and returns its path.
func writeJPEG(t *testing.T, name string, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 140, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatalf("encoding jpeg: %v", err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
	return path
}

// createEvent stores an event with the defaults of a new event, changed
// by edit, and returns it with its slug.
func createEvent(t *testing.T, st *store.Store, name string, edit func(*store.Event)) store.Event {
	t.Helper()
	e := store.NewEvent(name)
	if edit != nil {
		edit(&e)
	}
	if err := st.Events().Create(context.Background(), &e); err != nil {
		t.Fatalf("creating event: %v", err)
	}
	return e
}

// eventPhotos lists every photo of an event, newest first.
func eventPhotos(t *testing.T, st *store.Store, eventID string) []store.Photo {
	t.Helper()
	page, err := st.Photos().List(context.Background(), store.PhotoQuery{EventID: eventID, Limit: 100})
	if err != nil {
		t.Fatalf("listing photos: %v", err)
	}
	return page.Items
}
