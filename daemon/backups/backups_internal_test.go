package backups

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"eventbox/daemon/backupzip"
	"eventbox/store"
)

// backupService is a Service over a fresh store whose card has free
// bytes of space and whose USB drives are the mounts under usbRoot, with
// its nightly backup scheduled as the daemon does at start. It answers the
// data directory too.
func backupService(t *testing.T, free *atomic.Int64, mounts []string, usbRoot string) (*Service, *store.Store, *time.Time, string) {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	clock := func() time.Time { return now }
	st, err := store.Open(ctx, dir, store.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := New(ctx, Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock,
		App: "test", Margin: 100 << 20,
		Target: backupzip.TargetConfig{DataDir: dir, USBRoots: []string{usbRoot},
			Mounts: func() ([]string, error) { return mounts, nil }},
		Free: func(string) (int64, error) { return free.Load(), nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ScheduleNightly(ctx); err != nil {
		t.Fatal(err)
	}
	return b, st, &now, dir
}

// TestBackupNow writes backups to the card, skips one that would leave
// less than the storage guard's margin (recording the failure and queuing
// backup.failed in the same transaction), prunes exactly the backups older
// than the retention, and goes to a USB drive with an eventbox-backups
// folder when one is mounted.
func TestBackupNow(t *testing.T) {
	ctx := context.Background()
	var free atomic.Int64
	free.Store(10 << 30)
	usb := t.TempDir()
	b, st, now, dataDir := backupService(t, &free, nil, usb)
	if _, ok := b.LastBackup(); ok {
		t.Fatal("a fresh box reports a backup")
	}

	card := filepath.Join(dataDir, "backups")
	if err := os.MkdirAll(card, 0o750); err != nil {
		t.Fatal(err)
	}
	// Kept backups of 40, 31, 29 and 1 days ago, and a file that is not
	// one of ours; the retention is 30 days.
	var old []string
	for _, days := range []int{40, 31, 29, 1} {
		name := backupzip.FileName(now.AddDate(0, 0, -days), ReasonNightly)
		if err := os.WriteFile(filepath.Join(card, name), []byte("zip"), 0o640); err != nil {
			t.Fatal(err)
		}
		old = append(old, name)
	}
	if err := os.WriteFile(filepath.Join(card, "notes.txt"), []byte("mine"), 0o640); err != nil {
		t.Fatal(err)
	}

	name, err := b.BackupNow(ctx, ReasonUpdate)
	if err != nil {
		t.Fatalf("BackupNow: %v", err)
	}
	if !strings.HasSuffix(name, "-update.zip") {
		t.Errorf("name %q", name)
	}
	if at, ok := b.LastBackup(); !ok || !at.Equal(*now) {
		t.Errorf("LastBackup = %v, %v; want %v", at, ok, *now)
	}
	entries, _ := os.ReadDir(card)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{old[2], old[3], name, "notes.txt"}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("backups kept %v; want %v (the two older than 30 days removed)", left, want)
	}

	t.Run("a backup that would leave less than the margin is skipped with backup.failed", func(t *testing.T) {
		free.Store(100<<20 + 1000)
		if _, err := b.BackupNow(ctx, ReasonNightly); !errors.Is(err, ErrNoRoom) {
			t.Fatalf("BackupNow with no room: %v; want ErrNoRoom", err)
		}
		state, err := st.Backups().State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if state.Last == nil || state.Last.OK || !strings.Contains(state.Last.Error, "not enough free space") {
			t.Errorf("last result %+v", state.Last)
		}
		if state.LastOK == nil || state.LastOK.Name != name {
			t.Errorf("last good backup %+v; want %s", state.LastOK, name)
		}
		jobs, err := st.Jobs().Unfinished(ctx, store.NoticeJobKind, 0)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, j := range jobs {
			var n store.Notice
			if err := json.Unmarshal(j.Payload, &n); err != nil {
				t.Fatal(err)
			}
			kinds = append(kinds, n.Kind)
		}
		if !slices.Equal(kinds, []string{store.NoticeBackupFailed}) {
			t.Errorf("notices queued %v; want one backup.failed", kinds)
		}
		if kept, _ := backupzip.List(card); len(kept) != 3 {
			t.Errorf("%d backups on the card; want the 3 from before", len(kept))
		}
	})

	t.Run("a USB drive with an eventbox-backups folder is chosen", func(t *testing.T) {
		free.Store(10 << 30)
		drive := filepath.Join(usb, "STICK")
		if err := os.MkdirAll(filepath.Join(drive, backupzip.USBFolder), 0o750); err != nil {
			t.Fatal(err)
		}
		b.cfg.Target.Mounts = func() ([]string, error) { return []string{"/", drive}, nil }
		name, err := b.BackupNow(ctx, ReasonManual)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(drive, backupzip.USBFolder, name)); err != nil {
			t.Errorf("backup not on the drive: %v", err)
		}
		state, _ := st.Backups().State(ctx)
		if state.Last.Storage != backupzip.OnUSB {
			t.Errorf("storage %q; want usb", state.Last.Storage)
		}
	})
}

// TestNightlyBackupIsScheduled: a new service queues the next nightly
// backup at 03:00; with retention 0 none is queued.
func TestNightlyBackupIsScheduled(t *testing.T) {
	var free atomic.Int64
	free.Store(10 << 30)
	_, st, now, _ := backupService(t, &free, nil, t.TempDir())
	jobs, err := st.Jobs().Unfinished(context.Background(), JobKind, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(now.Year(), now.Month(), now.Day()+1, nightlyHour, 0, 0, 0, now.Location())
	if len(jobs) != 1 || jobs[0].DueAt != want.UnixMilli() || jobs[0].Key != "nightly-2026-06-21" {
		t.Errorf("backup jobs %+v; want one due %v", jobs, want)
	}
	if got := nextNightly(time.Date(2026, 6, 20, 2, 0, 0, 0, time.UTC)); got.Day() != 20 || got.Hour() != 3 {
		t.Errorf("nextNightly before 03:00 = %v", got)
	}
}
