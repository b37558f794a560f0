package update

import (
	"context"
	"log/slog"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/store"
)

// JobKind is the job that downloads, checks and swaps in a release; its
// Key is JobKind too, so one is queued at a time.
const JobKind = "update"

// JobPayload is the payload of an update job: the version and its binary
// as the signed manifest gave them, its URL made absolute, and the signed
// release itself, kept beside the binary once installed.
type JobPayload struct {
	Version string `json:"version"`
	Binary  Binary `json:"binary"`
	Release []byte `json:"release,omitempty"`
}

// WorkerConfig is what a Worker needs.
type WorkerConfig struct {
	// Updater installs the release.
	Updater *Updater
	// Version is the running binary's version: a job for it or an older
	// one is done at once.
	Version string
	// Restart, when not nil, restarts the daemon through the service
	// manager once an update is installed.
	Restart func()
	// Logger logs the installs.
	Logger *slog.Logger
}

// Worker applies updates: the handler of the JobKind jobs.
type Worker struct {
	cfg WorkerConfig
}

// NewWorker returns a worker with cfg.
func NewWorker(cfg WorkerConfig) *Worker {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Worker{cfg: cfg}
}

// Kind is the job kind: one at a time, a download that failed for a
// passing reason (the network, a 5xx) retried three times a few minutes
// apart, a refused one (Refusal) set aside at once.
func (w *Worker) Kind() jobs.Kind {
	return jobs.Kind{Name: JobKind, Handler: w.run,
		Retry: jobs.Policy{Base: time.Minute, Cap: 10 * time.Minute, MaxFailures: 3, Timeout: 30 * time.Minute}}
}

// run is one attempt of an update job: download, verify, swap, and
// restart through the service manager when there is one.
func (w *Worker) run(ctx context.Context, j jobs.Job) error {
	var p JobPayload
	if err := j.Decode(&p); err != nil {
		return err
	}
	if !Newer(p.Version, w.cfg.Version) {
		// Tried again after the restart into that version (or a newer
		// one): done, and the history already says so.
		return nil
	}
	u, log := w.cfg.Updater, w.cfg.Logger
	if err := u.Begin(p.Version, j.ID); err != nil {
		return err
	}
	err := u.Install(ctx, p.Version, p.Binary, p.Release, j.ID, func(done, total int64) {
		if err := j.Report(ctx, store.JobProgress{Done: done, Total: total, Note: "downloading"}); err != nil {
			log.DebugContext(ctx, "reporting update progress", "error", err)
		}
	})
	if err != nil {
		if ferr := u.Fail(j.ID, err); ferr != nil {
			log.WarnContext(ctx, "recording a failed update", "error", ferr)
		}
		if Refusal(err) {
			// A 404, a binary naming another version, a bad hash or
			// signature: the next try would be refused the same.
			return jobs.Permanent(err)
		}
		return err
	}
	log.InfoContext(ctx, "update installed", "version", p.Version, "from", w.cfg.Version)
	if w.cfg.Restart != nil {
		w.cfg.Restart()
	}
	return nil
}
