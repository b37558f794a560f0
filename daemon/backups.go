package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"eventbox/daemon/backup"
	"eventbox/daemon/jobs"
	"eventbox/store"
)

// BackupJobKind is the job kind of scheduled backups: the nightly one
// (Key "nightly-<date>") and any other a part of the daemon queues.
const BackupJobKind = "backup"

// nightlyHour is the local hour of the nightly backup: the party is over
// and nobody uploads.
const nightlyHour = 3

// Reasons a backup is made, part of its file name.
const (
	ReasonNightly = "nightly"
	ReasonUpdate  = "update"
	ReasonManual  = "manual"
)

var validReason = regexp.MustCompile(`^[a-z]{1,20}$`)

// errNoRoom is a backup skipped because it would leave less than the
// storage guard's margin on the card (or would not fit on the drive).
var errNoRoom = errors.New("not enough free space for a backup")

// backupService makes the box's own backups: nightly as jobs, before an
// update when asked (BackupNow), one at a time, into the chosen storage
// (backup.ChooseTarget), pruned to the retention, never filling the card.
type backupService struct {
	st      *store.Store
	log     *slog.Logger
	now     func() time.Time
	app     string
	target  backup.TargetConfig
	storage *storageGuard
	free    func(path string) (int64, error)
	runner  func() *jobs.Runner

	mu     sync.Mutex // one backup at a time
	lastOK atomic.Int64
}

func newBackupService(s *Server) (*backupService, error) {
	b := &backupService{st: s.store, log: s.log.With("component", "backup"), now: s.now, app: s.cfg.Version,
		target:  backup.TargetConfig{DataDir: s.cfg.DataDir, Mounts: s.cfg.Mounts, USBRoots: s.cfg.USBRoots},
		storage: s.storage, free: s.storage.free, runner: func() *jobs.Runner { return s.jobs }}
	state, err := s.store.Backups().State(context.Background())
	if err != nil {
		return nil, err
	}
	if state.LastOK != nil {
		b.lastOK.Store(state.LastOK.At)
	}
	return b, nil
}

// LastBackup answers when the latest successful backup ended, and false
// before the first.
func (b *backupService) LastBackup() (time.Time, bool) {
	ms := b.lastOK.Load()
	if ms == 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}

// BackupNow writes a backup to the chosen storage and answers its file
// name. reason ("update", "nightly", "manual") is part of the name. It
// refuses, recording a failed result and a backup.failed notice, when the
// backup would leave less than the storage guard's margin on the card.
// Kept backups older than the retention are removed afterwards, oldest
// first.
func (b *backupService) BackupNow(ctx context.Context, reason string) (name string, err error) {
	if !validReason.MatchString(reason) {
		return "", fmt.Errorf("backup reason %q: want a-z only", reason)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	target := backup.ChooseTarget(b.target)
	res := store.BackupResult{Reason: reason, Storage: target.Kind}
	defer func() {
		res.At = b.now().UnixMilli()
		res.OK = err == nil
		if err != nil {
			res.Error = short(err)
		}
		if rerr := b.record(ctx, res); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}()
	if err := b.fits(ctx, target); err != nil {
		return "", err
	}
	backup.ClearPartial(target.Dir)
	name = backup.FileName(b.now(), reason)
	_, size, err := backup.WriteFile(ctx, b.st, target.Dir, name, backup.WriteOptions{App: b.app, Now: b.now})
	if err != nil {
		return "", fmt.Errorf("writing backup to %s: %w", target.Dir, err)
	}
	res.Name, res.Bytes = name, size
	b.log.InfoContext(ctx, "backup written", "file", name, "storage", target.Kind, "bytes", size)
	state, err := b.st.Backups().State(ctx)
	if err != nil {
		return name, err
	}
	removed, err := backup.Prune(target.Dir, state.RetentionDays, b.now())
	if len(removed) > 0 {
		b.log.InfoContext(ctx, "old backups removed", "files", removed)
	}
	if err != nil {
		b.log.WarnContext(ctx, "pruning backups", "error", err)
	}
	return name, nil
}

// fits checks that a backup (at most the size of the database and the
// media) leaves the storage guard's margin on the card, or fits on the
// drive.
func (b *backupService) fits(ctx context.Context, target backup.Target) error {
	usage, err := b.st.Usage(ctx)
	if err != nil {
		return err
	}
	// The ZIP's own headers: well under 200 bytes per file.
	need := usage.Bytes + int64(usage.Files+2)*200
	probe := target.Dir
	if target.Kind == backup.OnCard {
		probe = b.target.DataDir
	}
	free, err := b.free(probe)
	if err != nil {
		return err
	}
	keep := int64(0)
	if target.Kind == backup.OnCard {
		keep = b.storage.margin
	}
	if free-need < keep {
		return fmt.Errorf("%w: it needs %d MB and would leave %d MB, below the %d MB kept free",
			errNoRoom, need>>20, (free-need)>>20, keep>>20)
	}
	return nil
}

// record stores the result and, for a failure, enqueues the
// backup.failed notice in the same transaction.
func (b *backupService) record(ctx context.Context, res store.BackupResult) error {
	var specs []store.JobSpec
	if !res.OK {
		spec, err := store.NoticeJobSpec(store.Notice{Kind: store.NoticeBackupFailed, At: res.At},
			map[string]any{"reason": res.Reason, "storage": res.Storage, "error": res.Error})
		if err != nil {
			return err
		}
		specs = append(specs, spec)
	}
	// The result is recorded even when the request's context ended.
	if err := b.st.Backups().Record(context.WithoutCancel(ctx), res, specs...); err != nil {
		return err
	}
	if res.OK {
		b.lastOK.Store(res.At)
	} else {
		b.log.WarnContext(ctx, "backup failed", "reason", res.Reason, "error", res.Error)
		if r := b.runner(); r != nil {
			r.Notify(store.NoticeJobKind)
		}
	}
	return nil
}

// short is an error for the console: the outermost message, bounded.
func short(err error) string {
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

// kind is the backup job kind. A scheduled backup that fails is not
// retried (the next night tries again); the failure is recorded and
// announced.
func (b *backupService) kind() jobs.Kind {
	return jobs.Kind{Name: BackupJobKind, Handler: b.handle,
		Retry: jobs.Policy{MaxFailures: 1, Timeout: 6 * time.Hour}}
}

// backupPayload is a backup job's input.
type backupPayload struct {
	Reason string `json:"reason"`
}

func (b *backupService) handle(ctx context.Context, j jobs.Job) error {
	var p backupPayload
	if err := j.Decode(&p); err != nil {
		return err
	}
	if p.Reason == ReasonNightly {
		defer func() {
			if err := b.scheduleNightly(context.WithoutCancel(ctx)); err != nil {
				b.log.WarnContext(ctx, "next nightly backup not scheduled", "error", err)
			}
		}()
		state, err := b.st.Backups().State(ctx)
		if err != nil {
			return err
		}
		if state.RetentionDays == 0 {
			return nil // scheduled backups are off
		}
	}
	name, err := b.BackupNow(ctx, p.Reason)
	if err != nil {
		return jobs.Permanent(err)
	}
	j.SetResult(name)
	return nil
}

// nextNightly is the next nightlyHour after now, in now's location.
func nextNightly(now time.Time) time.Time {
	t := time.Date(now.Year(), now.Month(), now.Day(), nightlyHour, 0, 0, 0, now.Location())
	if !t.After(now) {
		t = t.AddDate(0, 0, 1)
	}
	return t
}

// scheduleNightly queues the next nightly backup unless scheduled backups
// are off; queuing it twice adds nothing (its Key is its date).
func (b *backupService) scheduleNightly(ctx context.Context) error {
	state, err := b.st.Backups().State(ctx)
	if err != nil || state.RetentionDays == 0 {
		return err
	}
	at := nextNightly(b.now())
	payload := []byte(`{"reason":"` + ReasonNightly + `"}`)
	spec := store.JobSpec{Kind: BackupJobKind, Key: "nightly-" + at.Format("2006-01-02"), Payload: payload, RunAt: at}
	if r := b.runner(); r != nil {
		_, err = r.Enqueue(ctx, spec)
	} else {
		_, err = b.st.Jobs().Enqueue(ctx, spec)
	}
	if err != nil {
		return fmt.Errorf("scheduling the nightly backup: %w", err)
	}
	return nil
}
