// Package backups makes the box's own backups: the nightly one as a job
// of the `backup` kind, one before an update when asked (BackupNow), one
// at a time, into the chosen storage (backupzip.ChooseTarget), pruned to the
// retention, never filling the card. The ZIP itself is daemon/backupzip's.
package backups

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"eventbox/daemon/backupzip"
	"eventbox/daemon/jobs"
	"eventbox/store"
)

// JobKind is the job kind of scheduled backups: the nightly one (Key
// "nightly-<date>") and any other a part of the daemon queues.
const JobKind = "backup"

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

// ErrNoRoom is a backup skipped because it would leave less than the
// storage guard's margin on the card (or would not fit on the drive).
var ErrNoRoom = errors.New("not enough free space for a backup")

// Config is what a Service needs.
type Config struct {
	// Store is the box's store, backed up.
	Store *store.Store
	// Logger, Now: the service's log and clock (nil: time.Now).
	Logger *slog.Logger
	Now    func() time.Time
	// App is the running version, written into each manifest.
	App string
	// Target is where backups may go (the card or a USB drive).
	Target backupzip.TargetConfig
	// Margin is the free space, in bytes, a backup must leave on the
	// card (the storage guard's).
	Margin int64
	// Free answers the free bytes of the file system holding a path.
	Free func(path string) (int64, error)
	// Jobs is the runner that works the backup kind: the service nudges
	// the notice kind through it and queues its nightly job with it; nil:
	// jobs go to the store alone.
	Jobs *jobs.Runner
}

// Service makes the box's backups. Build it with New over the job runner
// (Config.Jobs) and register its Kind with that runner. Its methods are
// safe for concurrent use.
type Service struct {
	cfg    Config
	log    *slog.Logger
	runner *jobs.Runner

	mu     sync.Mutex // one backup at a time
	lastOK atomic.Int64
}

// New returns the service over cfg.Store, with the last good backup as
// the store records it.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	b := &Service{cfg: cfg, log: cfg.Logger, runner: cfg.Jobs}
	state, err := cfg.Store.Backups().State(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the backup state: %w", err)
	}
	if state.LastOK != nil {
		b.lastOK.Store(state.LastOK.At)
	}
	return b, nil
}

// Target answers where a backup would go now.
func (b *Service) Target() backupzip.Target { return backupzip.ChooseTarget(b.cfg.Target) }

// LastBackup answers when the latest successful backup ended, and false
// before the first.
func (b *Service) LastBackup() (time.Time, bool) {
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
func (b *Service) BackupNow(ctx context.Context, reason string) (name string, err error) {
	if !validReason.MatchString(reason) {
		return "", fmt.Errorf("backup reason %q: want a-z only", reason)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	target := b.Target()
	res := store.BackupResult{Reason: reason, Storage: target.Kind}
	defer func() {
		res.At = b.cfg.Now().UnixMilli()
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
	backupzip.ClearPartial(target.Dir)
	name = backupzip.FileName(b.cfg.Now(), reason)
	_, size, err := backupzip.WriteFile(ctx, b.cfg.Store, target.Dir, name, backupzip.WriteOptions{App: b.cfg.App, Now: b.cfg.Now})
	if err != nil {
		return "", fmt.Errorf("writing backup to %s: %w", target.Dir, err)
	}
	res.Name, res.Bytes = name, size
	b.log.InfoContext(ctx, "backup written", "file", name, "storage", target.Kind, "bytes", size)
	state, err := b.cfg.Store.Backups().State(ctx)
	if err != nil {
		return name, fmt.Errorf("reading the retention: %w", err)
	}
	removed, err := backupzip.Prune(target.Dir, state.RetentionDays, b.cfg.Now())
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
func (b *Service) fits(ctx context.Context, target backupzip.Target) error {
	usage, err := b.cfg.Store.Usage(ctx)
	if err != nil {
		return fmt.Errorf("measuring the data to back up: %w", err)
	}
	// The ZIP's own headers: well under 200 bytes per file.
	need := usage.Bytes + int64(usage.Files+2)*200
	probe := target.Dir
	if target.Kind == backupzip.OnCard {
		probe = b.cfg.Target.DataDir
	}
	free, err := b.cfg.Free(probe)
	if err != nil {
		return err
	}
	keep := int64(0)
	if target.Kind == backupzip.OnCard {
		keep = b.cfg.Margin
	}
	if free-need < keep {
		return fmt.Errorf("%w: it needs %d MB and would leave %d MB, below the %d MB kept free",
			ErrNoRoom, need>>20, (free-need)>>20, keep>>20)
	}
	return nil
}

// record stores the result and, for a failure, enqueues the
// backup.failed notice in the same transaction.
func (b *Service) record(ctx context.Context, res store.BackupResult) error {
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
	if err := b.cfg.Store.Backups().Record(context.WithoutCancel(ctx), res, specs...); err != nil {
		return fmt.Errorf("recording the backup's result: %w", err)
	}
	if res.OK {
		b.lastOK.Store(res.At)
	} else {
		b.log.WarnContext(ctx, "backup failed", "reason", res.Reason, "error", res.Error)
		if b.runner != nil {
			b.runner.Notify(store.NoticeJobKind)
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

// Kind is the backup job kind. A scheduled backup that fails is not
// retried (the next night tries again); the failure is recorded and
// announced.
func (b *Service) Kind() jobs.Kind {
	return jobs.Kind{Name: JobKind, Handler: b.handle,
		Retry: jobs.Policy{MaxFailures: 1, Timeout: 6 * time.Hour}}
}

// payload is a backup job's input.
type payload struct {
	Reason string `json:"reason"`
}

func (b *Service) handle(ctx context.Context, j jobs.Job) error {
	var p payload
	if err := j.Decode(&p); err != nil {
		return err
	}
	if p.Reason == ReasonNightly {
		defer func() {
			if err := b.ScheduleNightly(context.WithoutCancel(ctx)); err != nil {
				b.log.WarnContext(ctx, "next nightly backup not scheduled", "error", err)
			}
		}()
		state, err := b.cfg.Store.Backups().State(ctx)
		if err != nil {
			return fmt.Errorf("reading the retention: %w", err)
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

// ScheduleNightly queues the next nightly backup unless scheduled backups
// are off; queuing it twice adds nothing (its Key is its date).
func (b *Service) ScheduleNightly(ctx context.Context) error {
	state, err := b.cfg.Store.Backups().State(ctx)
	if err != nil {
		return fmt.Errorf("reading the retention: %w", err)
	}
	if state.RetentionDays == 0 {
		return nil
	}
	at := nextNightly(b.cfg.Now())
	payload := []byte(`{"reason":"` + ReasonNightly + `"}`)
	spec := store.JobSpec{Kind: JobKind, Key: "nightly-" + at.Format("2006-01-02"), Payload: payload, RunAt: at}
	if b.runner != nil {
		_, err = b.runner.Enqueue(ctx, spec)
	} else {
		_, err = b.cfg.Store.Jobs().Enqueue(ctx, spec)
	}
	if err != nil {
		return fmt.Errorf("scheduling the nightly backup: %w", err)
	}
	return nil
}
