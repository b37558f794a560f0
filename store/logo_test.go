package store_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"eventbox/store"
)

// writeMedia stores text under a media name.
func writeMedia(t *testing.T, st *store.Store, name, text string) {
	t.Helper()
	if _, err := st.Media().Write(name, strings.NewReader(text)); err != nil {
		t.Fatalf("writing %s: %v", name, err)
	}
}

// readMedia returns a media file's text, or fails.
func readMedia(t *testing.T, st *store.Store, name string) string {
	t.Helper()
	f, err := st.Media().Open(name)
	if err != nil {
		t.Fatalf("opening %s: %v", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLogoVersions(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	e := store.NewEvent("Party")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	if e.LogoName() != "" {
		t.Fatalf("a new event has logo %q", e.LogoName())
	}

	t.Run("a first logo sets the version", func(t *testing.T) {
		writeMedia(t, st, store.LogoName(e.ID, 100), "first")
		got, err := st.Events().SetLogo(ctx, e.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		if got.LogoVersion != 100 || got.LogoName() != e.ID+"/logo-100.png" {
			t.Errorf("version %d, name %q", got.LogoVersion, got.LogoName())
		}
	})
	t.Run("a new logo removes the old file", func(t *testing.T) {
		writeMedia(t, st, store.LogoName(e.ID, 200), "second")
		got, err := st.Events().SetLogo(ctx, e.ID, 200)
		if err != nil {
			t.Fatal(err)
		}
		if got.LogoVersion != 200 {
			t.Errorf("version %d, want 200", got.LogoVersion)
		}
		if st.Media().Exists(store.LogoName(e.ID, 100)) {
			t.Error("the old logo file is still there")
		}
		if txt := readMedia(t, st, got.LogoName()); txt != "second" {
			t.Errorf("logo file holds %q", txt)
		}
	})
	t.Run("removing the logo clears the version and the file", func(t *testing.T) {
		got, err := st.Events().RemoveLogo(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.LogoVersion != 0 {
			t.Errorf("version %d after removal", got.LogoVersion)
		}
		if st.Media().Exists(store.LogoName(e.ID, 200)) {
			t.Error("the logo file is still there")
		}
	})
	t.Run("a version that is not positive is refused", func(t *testing.T) {
		if _, err := st.Events().SetLogo(ctx, e.ID, 0); err == nil {
			t.Error("version 0 accepted")
		}
	})
	t.Run("an unknown event is not found", func(t *testing.T) {
		if _, err := st.Events().SetLogo(ctx, store.NewID(), 5); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
	})
}

func TestDuplicateEvent(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	src := store.NewEvent("Wedding")
	src.AccessCode = "roses"
	src.Moderation = "pre"
	src.Challenges = []store.Challenge{{ID: store.NewID(), Label: "First dance"}}
	src.CaptureFilters.Enabled = []string{"bw"}
	src.QRStyle = store.QRStyle{Foreground: "#1a235a", Background: "#fffaf0", Dots: "round", Logo: true}
	src.WallStyle.Layout = "grid"
	if err := st.Events().Create(ctx, &src); err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"Bar", "Garden", "Dance floor"} {
		c.Advance(time.Second)
		if err := st.Spots().Create(ctx, &store.Spot{EventID: src.ID, Label: label}); err != nil {
			t.Fatal(err)
		}
	}
	writeMedia(t, st, store.LogoName(src.ID, 7), "logo bytes")
	if _, err := st.Events().SetLogo(ctx, src.ID, 7); err != nil {
		t.Fatal(err)
	}
	g := store.Guest{EventID: src.ID}
	if err := st.Guests().Create(ctx, &g); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Events().Update(ctx, src.ID, func(e *store.Event) error {
		e.EndedAt = c.Now().UnixMilli()
		e.UploadsOpen = false
		e.UploadsCloseAt = 12345
		e.BoothKeyHash = store.HashToken("a-booth-key-of-some-length")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute)

	dup, err := st.Events().Duplicate(ctx, src.ID, "Wedding (copy)")
	if err != nil {
		t.Fatal(err)
	}
	src, _ = st.Events().Get(ctx, src.ID)

	t.Run("the copy is a new event with the given name", func(t *testing.T) {
		if dup.ID == src.ID || dup.Slug == src.Slug || dup.Name != "Wedding (copy)" {
			t.Errorf("id %s slug %s name %q", dup.ID, dup.Slug, dup.Name)
		}
		if dup.CreatedAt != c.Now().UnixMilli() {
			t.Errorf("createdAt %d", dup.CreatedAt)
		}
		bySlug, err := st.Events().BySlug(ctx, dup.Slug)
		if err != nil || bySlug.ID != dup.ID {
			t.Errorf("slug lookup: %v %s", err, bySlug.ID)
		}
		all, _ := st.Events().List(ctx)
		if len(all) != 2 || all[0].ID != dup.ID {
			t.Errorf("event list does not start with the copy")
		}
	})
	t.Run("settings, challenges and styles are copied", func(t *testing.T) {
		if dup.AccessCode != "roses" || dup.Moderation != "pre" || dup.WallStyle.Layout != "grid" ||
			dup.QRStyle != src.QRStyle || len(dup.CaptureFilters.Enabled) != 1 {
			t.Errorf("settings not copied: %+v", dup)
		}
		if len(dup.Challenges) != 1 || dup.Challenges[0] != src.Challenges[0] {
			t.Errorf("challenges %v, want %v", dup.Challenges, src.Challenges)
		}
	})
	t.Run("the lifecycle and the booth key start afresh", func(t *testing.T) {
		if dup.EndedAt != 0 || !dup.UploadsOpen || dup.UploadsCloseAt != 0 || dup.BoothKeyHash != "" {
			t.Errorf("ended %d open %v closeAt %d booth %q", dup.EndedAt, dup.UploadsOpen, dup.UploadsCloseAt, dup.BoothKeyHash)
		}
	})
	t.Run("places are copied in order with new ids", func(t *testing.T) {
		spots, err := st.Spots().List(ctx, dup.ID)
		if err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, sp := range spots {
			labels = append(labels, sp.Label)
			if _, err := st.Spots().Get(ctx, src.ID, sp.ID); err == nil {
				t.Errorf("place %s has the id of a source place", sp.Label)
			}
		}
		if strings.Join(labels, ",") != "Bar,Garden,Dance floor" {
			t.Errorf("places %v", labels)
		}
	})
	t.Run("the logo file is copied", func(t *testing.T) {
		if dup.LogoVersion != 7 {
			t.Fatalf("logo version %d", dup.LogoVersion)
		}
		if txt := readMedia(t, st, dup.LogoName()); txt != "logo bytes" {
			t.Errorf("logo holds %q", txt)
		}
	})
	t.Run("guests are not copied", func(t *testing.T) {
		counts, _ := st.Events().Counts(ctx, dup.ID)
		if counts.Guests != 0 {
			t.Errorf("%d guests", counts.Guests)
		}
		if _, err := st.Guests().Get(ctx, dup.ID, g.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("guest found in the copy: %v", err)
		}
	})
	t.Run("deleting the source keeps the copy's logo", func(t *testing.T) {
		if err := st.Events().Delete(ctx, src.ID); err != nil {
			t.Fatal(err)
		}
		if !st.Media().Exists(dup.LogoName()) {
			t.Error("the copy lost its logo")
		}
	})
	t.Run("an unknown event is not found", func(t *testing.T) {
		if _, err := st.Events().Duplicate(ctx, store.NewID(), "x"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("got %v", err)
		}
	})
}
