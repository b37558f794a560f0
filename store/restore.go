package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A restore replaces the database and the media area with staged copies
// (docs/decisions.md, "Restore"). Everything happens in DATA_DIR/restore,
// on the same file system as the live data so that every move is a
// rename:
//
//	restore/new/      the staged data: eventbox.db and media/, checked
//	restore/journal   present once the swap is decided
//	restore/old/      what the swap moved out
//
// Without a journal, a restore folder is an unfinished staging: Open
// removes it and nothing changed. With one, Open finishes the swap (each
// step can be done again after a power cut: a live item moves to old/
// only while its staged twin is still waiting), then removes the journal
// and the old data. So a power cut leaves either the old data whole (cut
// before the journal) or, at the next start, the new data whole.

// restoreItems are the parts of DATA_DIR a restore replaces, in order.
var restoreItems = []string{DBFile, "media"}

const restoreDirName = "restore"

func restoreDir(dataDir string) string { return filepath.Join(dataDir, restoreDirName) }
func journalPath(dataDir string) string {
	return filepath.Join(restoreDir(dataDir), "journal")
}

// StagingDir is where a restore stages the new data inside dataDir: a
// folder laid out like DATA_DIR.
func StagingDir(dataDir string) string { return filepath.Join(restoreDir(dataDir), "new") }

// PrepareStaging empties the restore area (an earlier, unfinished
// staging) and creates an empty staging folder. It refuses when a swap is
// decided but not finished.
func PrepareStaging(dataDir string) (string, error) {
	if _, err := os.Stat(journalPath(dataDir)); err == nil {
		return "", errors.New("a restore is waiting for the next start to finish")
	}
	if err := os.RemoveAll(restoreDir(dataDir)); err != nil {
		return "", fmt.Errorf("clearing the restore area: %w", err)
	}
	dir := StagingDir(dataDir)
	if err := os.MkdirAll(filepath.Join(dir, "media"), 0o750); err != nil {
		return "", fmt.Errorf("creating the staging area: %w", err)
	}
	return dir, nil
}

// AbandonStaging removes a staging that will not be swapped in. It leaves
// a decided swap alone.
func AbandonStaging(dataDir string) error {
	if _, err := os.Stat(journalPath(dataDir)); err == nil {
		return nil
	}
	if err := os.RemoveAll(restoreDir(dataDir)); err != nil {
		return fmt.Errorf("removing the staging area: %w", err)
	}
	return nil
}

// CommitRestore decides the swap of the staged data: it writes the
// journal durably. The next Open of dataDir swaps the data in.
func CommitRestore(dataDir string) error {
	for _, item := range restoreItems {
		if _, err := os.Stat(filepath.Join(StagingDir(dataDir), item)); err != nil {
			return fmt.Errorf("staged %s: %w", item, err)
		}
	}
	if err := syncTree(StagingDir(dataDir)); err != nil {
		return fmt.Errorf("syncing the staged data: %w", err)
	}
	err := writeFileAtomic(journalPath(dataDir), func(w io.Writer) error {
		_, err := w.Write([]byte("swap\n"))
		return err
	})
	if err != nil {
		return fmt.Errorf("writing the restore journal: %w", err)
	}
	return syncDir(restoreDir(dataDir))
}

// RestorePending reports whether a decided swap waits for the next Open.
func RestorePending(dataDir string) bool {
	_, err := os.Stat(journalPath(dataDir))
	return err == nil
}

// errCrash stops finishRestore at a crash point in tests.
var errCrash = errors.New("crash point")

// finishRestore completes or clears a restore of dataDir. crash, when not
// nil, is called after each step with its name; an error from it stops
// there, as a power cut would (tests).
func finishRestore(ctx context.Context, dataDir string, crash func(step string) error) (bool, error) {
	if crash == nil {
		crash = func(string) error { return nil }
	}
	dir := restoreDir(dataDir)
	if _, err := os.Stat(journalPath(dataDir)); errors.Is(err, fs.ErrNotExist) {
		if err := os.RemoveAll(dir); err != nil {
			return false, fmt.Errorf("clearing an unfinished restore: %w", err)
		}
		return false, nil
	}
	old := filepath.Join(dir, "old")
	if err := os.MkdirAll(old, 0o750); err != nil {
		return false, fmt.Errorf("creating %s: %w", old, err)
	}
	for _, item := range restoreItems {
		staged := filepath.Join(StagingDir(dataDir), item)
		live := filepath.Join(dataDir, item)
		moved := filepath.Join(old, item)
		if _, err := os.Lstat(staged); errors.Is(err, fs.ErrNotExist) {
			continue // already swapped in
		}
		if _, err := os.Lstat(live); err == nil {
			if _, err := os.Lstat(moved); err == nil {
				return false, fmt.Errorf("restore of %s: both the live and the moved-out copy exist", item)
			}
			if err := os.Rename(live, moved); err != nil {
				return false, fmt.Errorf("moving out %s: %w", item, err)
			}
			if err := errors.Join(syncDir(dataDir), syncDir(old)); err != nil {
				return false, fmt.Errorf("syncing after moving out %s: %w", item, err)
			}
			if err := crash("out " + item); err != nil {
				return false, err
			}
		}
		if err := os.Rename(staged, live); err != nil {
			return false, fmt.Errorf("moving in %s: %w", item, err)
		}
		if err := errors.Join(syncDir(dataDir), syncDir(StagingDir(dataDir))); err != nil {
			return false, fmt.Errorf("syncing after moving in %s: %w", item, err)
		}
		if err := crash("in " + item); err != nil {
			return false, err
		}
	}
	if err := os.Remove(journalPath(dataDir)); err != nil {
		return false, fmt.Errorf("removing the restore journal: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return false, fmt.Errorf("syncing the restore area: %w", err)
	}
	if err := crash("journal removed"); err != nil {
		return false, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return true, fmt.Errorf("removing the replaced data: %w", err)
	}
	return true, nil
}

// RestoreSteps names finishRestore's crash points in order (tests).
func RestoreSteps() []string {
	var steps []string
	for _, item := range restoreItems {
		steps = append(steps, "out "+item, "in "+item)
	}
	return append(steps, "journal removed")
}

// syncTree fsyncs every file and folder under dir, so a journal written
// after it never points at data still in the page cache.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		return errors.Join(f.Sync(), f.Close())
	})
}
