package store_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"eventbox/store"
)

// TestOpenSweepsUnnamedMedia plants, beside the files of real records,
// files of every kind that no record names (what a crash between a file's
// rename into media/<event>/ and its record's commit leaves), then opens
// the store again: the old unnamed files and the temp files are gone, the
// named ones and an unnamed one still inside the grace period stay.
func TestOpenSweepsUnnamedMedia(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	e := store.NewEvent("Party")
	if err := st.CreateEvent(ctx, &e); err != nil {
		t.Fatal(err)
	}
	gone := store.NewEvent("Deleted later")
	if err := st.CreateEvent(ctx, &gone); err != nil {
		t.Fatal(err)
	}

	// Records and their files.
	photo := store.Photo{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible, Format: "jpeg"}
	video := store.Photo{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible, Format: "jpeg",
		Video: &store.VideoInfo{DurationMs: 1000, MIME: "video/mp4", Size: 5}}
	for _, p := range []store.Photo{photo, video} {
		if _, err := st.AddPhoto(ctx, p, 0); err != nil {
			t.Fatal(err)
		}
	}
	msg := store.Message{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible, AudioMIME: "audio/ogg", AudioExt: "ogg", Seconds: 1}
	if _, err := st.AddMessage(ctx, msg); err != nil {
		t.Fatal(err)
	}
	logo := store.LogoName(e.ID, 7)
	writeMedia(t, st, logo, "logo")
	if _, err := st.SetLogo(ctx, e.ID, 7); err != nil {
		t.Fatal(err)
	}
	named := []string{
		photo.OriginalName(), photo.VariantName("thumb"), photo.VariantName("display"),
		video.OriginalName(), video.VideoName(), video.VariantName("thumb"), video.VariantName("display"),
		msg.AudioName(), logo,
	}
	for _, n := range named {
		if n != logo {
			writeMedia(t, st, n, "named")
		}
	}

	// Files no record names, one of each kind the store writes.
	orphan := store.Photo{ID: store.NewID(), EventID: e.ID}
	orphanMsg := store.Message{ID: store.NewID(), EventID: e.ID}
	unnamed := []string{
		orphan.OriginalName(), orphan.VideoName(), orphan.VariantName("thumb"), orphan.VariantName("display"),
		photo.VideoName(), // a video file beside a photo that is no video
		orphanMsg.AudioName(),
		store.LogoName(e.ID, 3), // an old logo version
		store.MediaName(gone.ID, store.NewID()+".orig"),
	}
	fresh := store.Photo{ID: store.NewID(), EventID: e.ID}.OriginalName()
	for _, n := range append(slices.Clone(unnamed), fresh) {
		writeMedia(t, st, n, "unnamed")
	}
	if err := st.DeleteEvent(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	// The deleted event's folder comes back with a file in it, as when a
	// crash interrupts an upload to an event being deleted.
	writeMedia(t, st, unnamed[len(unnamed)-1], "unnamed")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp", "up-123456")
	if err := os.WriteFile(tmp, []byte("half an upload"), 0o600); err != nil {
		t.Fatal(err)
	}

	// Every file is an hour old but the fresh one, written 10 s ago.
	c.Advance(time.Hour)
	old, recent := c.Now().Add(-time.Hour), c.Now().Add(-10*time.Second)
	for _, n := range append(append(slices.Clone(named), unnamed...), fresh) {
		at := old
		if n == fresh {
			at = recent
		}
		if err := os.Chtimes(mediaPath(dir, n), at, at); err != nil {
			t.Fatal(err)
		}
	}

	st = open(t, dir, c)
	defer st.Close()
	for _, n := range named {
		if !st.Media().Exists(n) {
			t.Errorf("%s is named by a record and was removed", n)
		}
	}
	for _, n := range unnamed {
		if _, err := os.Stat(mediaPath(dir, n)); err == nil {
			t.Errorf("%s is named by no record and was kept", n)
		}
	}
	if !st.Media().Exists(fresh) {
		t.Errorf("%s, written inside the grace period, was removed", fresh)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Errorf("the temp file was kept")
	}
	if _, err := os.Stat(filepath.Join(dir, "media", gone.ID)); err == nil {
		t.Errorf("the deleted event's folder was kept")
	}

	// Past the grace period the fresh one goes too, and the sweep counts.
	c.Advance(store.DefaultMediaGrace)
	res, err := st.SweepMedia(ctx, store.DefaultMediaGrace)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 1 || res.Recent != 0 || st.Media().Exists(fresh) {
		t.Errorf("second sweep = %+v, fresh file kept: %v; want 1 removed", res, st.Media().Exists(fresh))
	}
}

func mediaPath(dir, name string) string {
	return filepath.Join(dir, "media", filepath.FromSlash(name))
}
