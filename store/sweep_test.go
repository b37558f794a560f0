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
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	gone := store.NewEvent("Deleted later")
	if err := st.Events().Create(ctx, &gone); err != nil {
		t.Fatal(err)
	}

	// Records and their files.
	photo := store.Photo{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible, Format: "jpeg"}
	video := store.Photo{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible, Format: "jpeg",
		Video: &store.VideoInfo{DurationMs: 1000, MIME: "video/mp4", Size: 5}}
	for _, p := range []store.Photo{photo, video} {
		if _, err := st.Photos().Add(ctx, p, 0); err != nil {
			t.Fatal(err)
		}
	}
	msg := store.Message{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible, AudioMIME: "audio/ogg", AudioExt: "ogg", Seconds: 1}
	if _, err := st.Messages().Add(ctx, msg); err != nil {
		t.Fatal(err)
	}
	logo := store.LogoName(e.ID, 7)
	writeMedia(t, st, logo, "logo")
	if _, err := st.Events().SetLogo(ctx, e.ID, 7); err != nil {
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
	if err := st.Events().Delete(ctx, gone.ID); err != nil {
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

// plantOld writes n media files of event that no record names, dated an
// hour before the clock.
func plantOld(t *testing.T, st *store.Store, dir string, c *clock, eventID string, n int) []string {
	t.Helper()
	var names []string
	old := c.Now().Add(-time.Hour)
	for i := 0; i < n; i++ {
		name := store.Photo{ID: store.NewID(), EventID: eventID}.OriginalName()
		writeMedia(t, st, name, "a photo")
		if err := os.Chtimes(mediaPath(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// TestSweepQuarantinesInBulk: when a start finds that the database names
// none of the media (a database swapped for an empty one), or a sweep
// would remove more than a handful of files at once, the files are moved
// into DATA_DIR/quarantine whole instead of removed; quarantined files
// are no media (not counted, not backed up) and later sweeps leave them.
// A few unnamed files among many still go.
func TestSweepQuarantinesInBulk(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name            string
		named, unnamed  int
		wantQuarantined bool
	}{
		{"every file of a box whose database names none", 0, 9, true},
		{"more than 20 files among many", 450, 21, true},
		{"6 files that are more than 5% of the media", 50, 6, true},
		{"5 files", 0, 5, false},
		{"6 files that are 5% of the media or less", 120, 6, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, c := t.TempDir(), newClock()
			st := open(t, dir, c)
			e := store.NewEvent("Party")
			if err := st.Events().Create(ctx, &e); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < tt.named; i++ {
				p := store.Photo{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible, Format: "jpeg"}
				if _, err := st.Photos().Add(ctx, p, 0); err != nil {
					t.Fatal(err)
				}
				writeMedia(t, st, p.OriginalName(), "named")
			}
			unnamed := plantOld(t, st, dir, c, e.ID, tt.unnamed)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			st = open(t, dir, c) // the start-up sweep
			defer st.Close()
			q, _ := filepath.Glob(filepath.Join(dir, store.QuarantineDirName, "*", e.ID))
			for _, n := range unnamed {
				if st.Media().Exists(n) {
					t.Errorf("%s is named by no record and stayed in media/", n)
				}
			}
			if !tt.wantQuarantined {
				if len(q) != 0 {
					t.Errorf("quarantined %v; want the %d files removed", q, tt.unnamed)
				}
				return
			}
			if len(q) != 1 {
				t.Fatalf("quarantine folders %v; want one", q)
			}
			for _, n := range unnamed {
				if b, err := os.ReadFile(filepath.Join(filepath.Dir(q[0]), filepath.FromSlash(n))); err != nil || string(b) != "a photo" {
					t.Errorf("%s not whole in the quarantine: %q %v", n, b, err)
				}
			}
			u, err := st.Usage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if u.Files != tt.named {
				t.Errorf("usage counts %d files; want the %d named ones (quarantine is no media)", u.Files, tt.named)
			}
			c.Advance(time.Hour)
			if res, err := st.SweepRunning(ctx, store.DefaultMediaGrace); err != nil || res.Removed+res.Quarantined != 0 {
				t.Errorf("a later sweep = %+v, %v; want nothing touched", res, err)
			}
			left, _ := filepath.Glob(filepath.Join(q[0], "*"))
			if len(left) != tt.unnamed {
				t.Errorf("%d files left in the quarantine after a later sweep; want %d", len(left), tt.unnamed)
			}
		})
	}
}

// TestSweepRunningSparesUploadsInFlight: the running sweep removes a
// stale temp file nobody holds, but not an upload's temp file however
// old, nor a file renamed into media/ within the grace period.
func TestSweepRunningSparesUploadsInFlight(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	defer st.Close()
	e := store.NewEvent("Party")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	inFlight, err := st.Media().CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	defer inFlight.Abort()
	stale := filepath.Join(dir, "tmp", "up-stale")
	if err := os.WriteFile(stale, []byte("left"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := c.Now().Add(-time.Hour)
	for _, p := range []string{stale, inFlight.Name()} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	orphan := plantOld(t, st, dir, c, e.ID, 1)[0]
	fresh := store.Photo{ID: store.NewID(), EventID: e.ID}.OriginalName()
	writeMedia(t, st, fresh, "renamed a moment ago")
	now := c.Now()
	if err := os.Chtimes(mediaPath(dir, fresh), now, now); err != nil {
		t.Fatal(err)
	}
	res, err := st.SweepRunning(ctx, store.DefaultMediaGrace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(inFlight.Name()); err != nil {
		t.Errorf("the upload in flight's temp file was removed: %v", err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the stale temp file was kept")
	}
	if st.Media().Exists(orphan) || !st.Media().Exists(fresh) {
		t.Errorf("orphan kept %v, fresh kept %v; want the orphan gone, the fresh file kept", st.Media().Exists(orphan), st.Media().Exists(fresh))
	}
	if res.Removed != 1 || res.Temp != 1 || res.Recent != 1 {
		t.Errorf("sweep = %+v; want 1 removed, 1 temp, 1 recent", res)
	}
}

// TestOpenCanLeaveTheMediaSweepToTheCaller: with MediaSweepLater, Open
// clears the temp area but leaves old unnamed media files to the caller's
// SweepRunning, which removes them; a start then does not walk every file.
func TestOpenCanLeaveTheMediaSweepToTheCaller(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	e := store.NewEvent("Party")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	orphans := plantOld(t, st, dir, c, e.ID, 1)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp", "up-123456")
	if err := os.WriteFile(tmp, []byte("half an upload"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dir, store.Options{Now: c.Now, MediaSweepLater: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Media().Exists(orphans[0]) {
		t.Fatalf("Open removed %s: it walked the media area", orphans[0])
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Errorf("the temp file was kept")
	}
	res, err := st.SweepRunning(ctx, store.DefaultMediaGrace)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 1 || st.Media().Exists(orphans[0]) {
		t.Errorf("the caller's sweep = %+v; want the old unnamed file removed", res)
	}
}
