package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// restoreFixture makes a live DATA_DIR with event "Old" and its file, and
// a staged restore with event "New" and its file; commit decides the
// swap.
func restoreFixture(t *testing.T, commit bool) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	fill := func(d, name string) {
		st, err := Open(ctx, d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a := Account{Username: "owner-" + strings.ToLower(name), Role: RoleOwner}
		if err := st.Accounts().Create(ctx, &a); err != nil {
			t.Fatal(err)
		}
		e := NewEvent(name)
		if err := st.Events().Create(ctx, &e); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Media().Write(MediaName(e.ID, strings.ToLower(name)+".jpg"), strings.NewReader(name)); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	fill(dir, "Old")
	staging, err := PrepareStaging(dir)
	if err != nil {
		t.Fatal(err)
	}
	fill(staging, "New")
	if commit {
		if err := CommitRestore(dir); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// whole opens dir and answers the one event's name, checking that its
// media file is there and no other, that the restore area is gone, and
// that the database in place passes the restore's own check (VerifyDB:
// whole, with its schema, buckets and owner) with mode 0600.
func whole(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatalf("opening after the cut: %v", err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if err := VerifyDB(filepath.Join(dir, DBFile), time.Second); err != nil {
			t.Errorf("the database after the cut: %v", err)
		}
		if info, err := os.Stat(filepath.Join(dir, DBFile)); err != nil {
			t.Error(err)
		} else if info.Mode().Perm() != 0o600 {
			t.Errorf("the database after the cut has mode %o; want 600", info.Mode().Perm())
		}
	}()
	events, err := st.Events().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Fatalf("%d events after the cut; want 1 whole data set", len(events))
	}
	e := events[0]
	var files []string
	if err := walkMedia(filepath.Join(dir, "media"), func(name, _ string, _ int64) error {
		files = append(files, name)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := MediaName(e.ID, strings.ToLower(e.Name)+".jpg")
	if len(files) != 1 || files[0] != want {
		t.Errorf("media %v with event %s; want only %s", files, e.Name, want)
	}
	if _, err := os.Stat(restoreDir(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("restore area left behind: %v", err)
	}
	return e.Name
}

// TestRestoreCutAtEachStep cuts the swap after each of its steps, as a
// power cut would, and opens the store again: the next start finishes the
// swap, so the new data is there whole. A staging never decided (no
// journal) is dropped and the old data stays.
func TestRestoreCutAtEachStep(t *testing.T) {
	ctx := context.Background()
	t.Run("a staging cut before the journal leaves the old data", func(t *testing.T) {
		dir := restoreFixture(t, false)
		if got := whole(t, dir); got != "Old" {
			t.Errorf("event %q; want Old", got)
		}
	})
	for _, step := range RestoreSteps() {
		t.Run("a swap cut after "+step+" is finished at the next start", func(t *testing.T) {
			dir := restoreFixture(t, true)
			_, err := Open(ctx, dir, Options{restoreCrash: func(s string) error {
				if s == step {
					return errCrash
				}
				return nil
			}})
			if !errors.Is(err, errCrash) {
				t.Fatalf("open with a cut after %s: %v; want the cut", step, err)
			}
			if got := whole(t, dir); got != "New" {
				t.Errorf("event %q; want New", got)
			}
		})
	}
	t.Run("a swap cut twice is still finished", func(t *testing.T) {
		dir := restoreFixture(t, true)
		for _, step := range RestoreSteps()[:3] {
			_, _ = Open(ctx, dir, Options{restoreCrash: func(s string) error {
				if s == step {
					return errCrash
				}
				return nil
			}})
		}
		if got := whole(t, dir); got != "New" {
			t.Errorf("event %q; want New", got)
		}
	})
}
