package store_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"

	"eventbox/store"
)

func TestNewEventFollowsTheRules(t *testing.T) {
	e, r := store.NewEvent("Party"), store.Rules()
	choices := []struct {
		field string
		c     store.Choice
		v     string
	}{
		{"moderation", r.Moderation, e.Moderation},
		{"captureMode", r.CaptureMode, e.CaptureMode},
		{"frame", r.Frame, e.Frame},
		{"wallStyle.layout", r.WallLayout, e.WallStyle.Layout},
		{"qrStyle.dots", r.QRDots, e.QRStyle.Dots},
	}
	for _, c := range choices {
		if !c.c.Allows(c.v) {
			t.Errorf("the default %s %q is not one of %v", c.field, c.v, c.c)
		}
	}
	ranges := []struct {
		field string
		r     store.Range
		v     int
	}{
		{"name", r.Name, len([]rune(e.Name))},
		{"maxPhotosPerGuest", r.MaxPhotosPerGuest, e.MaxPhotosPerGuest},
		{"galleryLinkDays", r.GalleryLinkDays, e.GalleryLinkDays},
		{"wallStyle.interval", r.WallInterval, e.WallStyle.Interval},
		{"challenges", r.Challenges, len(e.Challenges)},
	}
	for _, c := range ranges {
		if !c.r.Contains(c.v) {
			t.Errorf("the default %s %d is outside %d to %d", c.field, c.v, c.r.Min, c.r.Max)
		}
	}
	for _, f := range e.CaptureFilters.Enabled {
		if !r.CaptureFilters.Allows(f) {
			t.Errorf("the default filter %q is unknown", f)
		}
	}
}

func TestChoicePhrase(t *testing.T) {
	for _, tt := range []struct {
		c    store.Choice
		want string
	}{
		{store.Choice{}, ""},
		{store.Choice{"post"}, "post"},
		{store.Choice{"post", "pre"}, "post or pre"},
		{store.Choice{"camera", "picker", "both"}, "camera, picker or both"},
	} {
		if got := tt.c.Phrase(); got != tt.want {
			t.Errorf("%v.Phrase() = %q, want %q", tt.c, got, tt.want)
		}
	}
}

// TestOldEventRecordsReadTheirDefaults writes a database in the shape of
// schema 1 whose event records lack the keys of the fields whose default
// is not their zero value, as a binary from before those fields would have
// written them, and opens it with this binary.
func TestOldEventRecordsReadTheirDefaults(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	older := store.NewEvent("Written before")
	chosen := store.NewEvent("Chosen by the host")
	for _, e := range []*store.Event{&older, &chosen} {
		if err := st.Events().Create(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// Back to schema 1: strip the keys from one record; in the other the
	// host switched the same fields off, which must stay as it is.
	path := filepath.Join(dir, store.DBFile)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	stripped := []string{
		"uploadsOpen", "moderation", "captureMode", "askGuestName", "notifyAdminSummary",
		"emailGuestsGallery", "galleryLinkDays", "galleryLinkDownload", "guestbookEnabled",
		"guestbookVoice", "challenges", "wallStyle", "frame", "captureFilters", "allowVideos",
		"qrStyle", "albumShared",
	}
	err = db.Update(func(tx *bolt.Tx) error {
		events := tx.Bucket([]byte("events"))
		rewrite := func(id string, edit func(map[string]any)) error {
			var rec map[string]any
			if err := json.Unmarshal(events.Get([]byte(id)), &rec); err != nil {
				return err
			}
			edit(rec)
			b, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			return events.Put([]byte(id), b)
		}
		if err := rewrite(older.ID, func(rec map[string]any) {
			for _, k := range stripped {
				delete(rec, k)
			}
			// Written when a new event's mail left the gallery password
			// out: it stays so.
			rec["galleryMailIncludesPassword"] = false
		}); err != nil {
			return err
		}
		if err := rewrite(chosen.ID, func(rec map[string]any) {
			rec["albumShared"], rec["allowVideos"], rec["galleryLinkDays"] = false, false, 0
		}); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte{0, 0, 0, 0, 0, 0, 0, 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	st = open(t, dir, c)
	defer st.Close()
	got, err := st.Events().Get(ctx, older.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := store.Event{
		ID: older.ID, Slug: older.Slug, Name: "Written before", CreatedAt: older.CreatedAt,
		UploadsOpen: true, Moderation: "post", CaptureMode: "both", AskGuestName: true,
		NotifyAdminSummary: true, EmailGuestsGallery: true, GalleryLinkDays: 30,
		GalleryLinkDownload: true, GuestbookEnabled: true, GuestbookVoice: true,
		Challenges: []store.Challenge{}, Frame: "none", AllowVideos: true, AlbumShared: true,
		WallStyle:      store.WallStyle{Interval: 8, Layout: "single", ShowNames: true, ShowQR: true},
		CaptureFilters: store.CaptureFilters{Enabled: []string{}},
		QRStyle:        store.QRStyle{Foreground: "#000000", Background: "#ffffff", Dots: "square"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("old record after migrating =\n%+v\nwant\n%+v", got, want)
	}
	kept, err := st.Events().Get(ctx, chosen.ID)
	if err != nil {
		t.Fatal(err)
	}
	if kept.AlbumShared || kept.AllowVideos || kept.GalleryLinkDays != 0 {
		t.Errorf("the host's choices were overwritten: albumShared %v, allowVideos %v, galleryLinkDays %d; want false, false, 0",
			kept.AlbumShared, kept.AllowVideos, kept.GalleryLinkDays)
	}
	if _, err := os.Stat(path + ".schema-1.bak"); err != nil {
		t.Errorf("no copy of the database before migrating: %v", err)
	}
}
