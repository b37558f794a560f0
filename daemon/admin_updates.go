package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/daemon/update"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Backups is what the updates and the metrics need of the backup
// service: a backup now, before an update, and when the last good one
// was made. The backup service satisfies it; nil means there is none
// (an apply without skipBackup then answers 409).
type Backups interface {
	// BackupNow makes a backup and answers its name; reason, a-z only,
	// is part of the name ("update").
	BackupNow(ctx context.Context, reason string) (name string, err error)
	// LastBackup answers when the last good backup was made; false when
	// there is none.
	LastBackup() (time.Time, bool)
}

// The update routes' answers beyond the spec's codes (docs/decisions.md,
// "Updates").
var (
	// errUpdateUnreachable: the release host could not be reached or
	// answered an error.
	errUpdateUnreachable = &web.Error{Status: http.StatusBadGateway, Code: "update_unreachable"}
	// errUpdateInvalid: the release manifest is unsigned, wrongly
	// signed or malformed.
	errUpdateInvalid = &web.Error{Status: http.StatusBadGateway, Code: "update_invalid"}
	// errBackupFailed: the backup before the update failed.
	errBackupFailed = &web.Error{Status: http.StatusBadGateway, Code: "backup_failed"}
	// errBackupUnavailable: no backup service, and skipBackup not set.
	errBackupUnavailable = &web.Error{Status: http.StatusConflict, Code: "backup_unavailable",
		Message: "no backup service: apply with skipBackup to update without a backup"}
	// errUpdateBusy: an update is already being applied.
	errUpdateBusy = &web.Error{Status: http.StatusConflict, Code: "update_busy"}
)

// updateJobKind is the job that downloads, checks and swaps in a release.
const updateJobKind = "update"

// updateJob is the payload of an update job: the version and its binary
// as the signed manifest gave them, its URL made absolute, and the signed
// release itself, kept beside the binary once installed.
type updateJob struct {
	Version string        `json:"version"`
	Binary  update.Binary `json:"binary"`
	Release []byte        `json:"release,omitempty"`
}

// updateKind is the job kind: one at a time, a download that failed for
// a passing reason (the network, a 5xx) retried three times a few minutes
// apart, a refused one (update.Refusal) set aside at once.
func (s *Server) updateKind() jobs.Kind {
	return jobs.Kind{Name: updateJobKind, Handler: s.runUpdate,
		Retry: jobs.Policy{Base: time.Minute, Cap: 10 * time.Minute, MaxFailures: 3, Timeout: 30 * time.Minute}}
}

// runUpdate is one attempt of an update job: download, verify, swap, and
// restart through the service manager when there is one.
func (s *Server) runUpdate(ctx context.Context, j jobs.Job) error {
	var p updateJob
	if err := j.Decode(&p); err != nil {
		return err
	}
	if !update.Newer(p.Version, s.cfg.Version) {
		// Tried again after the restart into that version (or a newer
		// one): done, and the history already says so.
		return nil
	}
	if err := s.updater.Begin(p.Version, j.ID); err != nil {
		return err
	}
	err := s.updater.Install(ctx, p.Version, p.Binary, p.Release, j.ID, func(done, total int64) {
		if err := j.Report(ctx, store.JobProgress{Done: done, Total: total, Note: "downloading"}); err != nil {
			s.log.DebugContext(ctx, "reporting update progress", "error", err)
		}
	})
	if err != nil {
		if ferr := s.updater.Fail(j.ID, err); ferr != nil {
			s.log.WarnContext(ctx, "recording a failed update", "error", ferr)
		}
		if update.Refusal(err) {
			// A 404, a binary naming another version, a bad hash or
			// signature: the next try would be refused the same.
			return jobs.Permanent(err)
		}
		return err
	}
	s.log.InfoContext(ctx, "update installed", "version", p.Version, "from", s.cfg.Version)
	if s.cfg.Restart != nil {
		s.cfg.Restart()
	}
	return nil
}

type updatesBody struct {
	Current      string       `json:"current"`
	Latest       *string      `json:"latest"`
	Available    *string      `json:"available"`
	CheckEnabled bool         `json:"checkEnabled"`
	CheckedAt    *int64       `json:"checkedAt"`
	History      []attemptDTO `json:"history"`
	Updater      string       `json:"updater"`
	Arch         string       `json:"arch"`
	Applying     *applyingDTO `json:"applying"`
}

// attemptDTO is one update attempt, newest first in history.
type attemptDTO struct {
	Version string `json:"version"`
	From    string `json:"from"`
	At      int64  `json:"at"`
	Status  string `json:"status"`
	Error   string `json:"error,omitempty"`
}

// applyingDTO is the update job under way.
type applyingDTO struct {
	Job     uint64 `json:"job"`
	Version string `json:"version"`
	Status  string `json:"status"`
	Done    int64  `json:"done"`
	Total   int64  `json:"total"`
	Note    string `json:"note,omitempty"`
	Error   string `json:"error,omitempty"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// updaterName is "systemd" when the service manager restarts the daemon
// after an update, else "none" (the new version runs at the next start).
func (s *Server) updaterName() string {
	if s.cfg.Restart != nil {
		return "systemd"
	}
	return "none"
}

func (s *Server) handleUpdates(w http.ResponseWriter, r *http.Request) error {
	st, err := s.updater.State()
	if err != nil {
		return err
	}
	body := updatesBody{Current: s.cfg.Version, Latest: optString(st.Latest), CheckEnabled: s.updater.Enabled(),
		History: []attemptDTO{}, Updater: s.updaterName(), Arch: s.updater.Arch()}
	if update.Newer(st.Available, s.cfg.Version) {
		body.Available = optString(st.Available)
	}
	if st.CheckedAt > 0 {
		body.CheckedAt = &st.CheckedAt
	}
	for _, a := range slices.Backward(st.History) {
		body.History = append(body.History, attemptDTO{Version: a.Version, From: a.From, At: a.At, Status: a.Status, Error: a.Error})
	}
	if body.Applying, err = s.applying(r.Context()); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// applying answers the unfinished update job, if any.
func (s *Server) applying(ctx context.Context) (*applyingDTO, error) {
	js, err := s.store.Jobs().Unfinished(ctx, updateJobKind, 1)
	if err != nil || len(js) == 0 {
		return nil, err
	}
	j := js[0]
	var p updateJob
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return nil, fmt.Errorf("decoding update job %d: %w", j.ID, err)
	}
	a := &applyingDTO{Job: j.ID, Version: p.Version, Status: string(j.Status), Error: j.LastError}
	if j.Progress != nil {
		a.Done, a.Total, a.Note = j.Progress.Done, j.Progress.Total, j.Progress.Note
	}
	return a, nil
}

type availableBody struct {
	Available *string `json:"available"`
	Latest    *string `json:"latest"`
}

func (s *Server) handleUpdatesCheck(w http.ResponseWriter, r *http.Request) error {
	m, err := s.fetchRelease(r.Context())
	if err != nil {
		return err
	}
	body := availableBody{Latest: &m.Version}
	if _, ok := s.updater.Available(m); ok {
		body.Available = &m.Version
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// fetchRelease fetches and verifies the manifest, as a 502 when it
// cannot.
func (s *Server) fetchRelease(ctx context.Context) (update.Manifest, error) {
	m, err := s.updater.Fetch(ctx)
	switch {
	case err == nil:
		return m, nil
	case errors.Is(err, update.ErrInvalid):
		s.log.WarnContext(ctx, "release manifest refused", "error", err)
		c := *errUpdateInvalid
		c.Message = err.Error()
		return m, &c
	case errors.Is(err, update.ErrNoURL):
		c := *errUpdateUnreachable
		c.Message = "no UPDATE_URL is set"
		return m, &c
	case errors.Is(err, context.Canceled):
		return m, err
	default:
		s.log.WarnContext(ctx, "release host unreachable", "error", err)
		c := *errUpdateUnreachable
		c.Message = "the release host could not be reached"
		return m, &c
	}
}

type applyRequest struct {
	Version    string `json:"version"`
	SkipBackup bool   `json:"skipBackup"`
}

type applyBody struct {
	Job    uint64  `json:"job"`
	Backup *string `json:"backup"`
}

// handleUpdatesApply checks that version is the available release, backs
// up (unless skipped), and enqueues the update job: 202 { job, backup }.
func (s *Server) handleUpdatesApply(w http.ResponseWriter, r *http.Request) error {
	var req applyRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Version == "" {
		return web.Field("version", "is required")
	}
	ctx := r.Context()
	m, err := s.fetchRelease(ctx)
	if err != nil {
		return err
	}
	bin, ok := s.updater.Available(m)
	switch {
	case !ok:
		return web.Field("version", fmt.Sprintf("no update is available for %s (latest is %s)", s.updater.Arch(), m.Version))
	case req.Version != m.Version:
		return web.Field("version", fmt.Sprintf("only the available version %s can be applied", m.Version))
	}
	if busy, err := s.applying(ctx); err != nil {
		return err
	} else if busy != nil {
		return errUpdateBusy.With(map[string]string{"version": fmt.Sprintf("%s is being applied", busy.Version)})
	}
	if waiting, err := s.updater.Waiting(); err != nil {
		return err
	} else if waiting == m.Version {
		return errUpdateBusy.With(map[string]string{"version": fmt.Sprintf("%s is installed and runs after the next restart", waiting)})
	}
	var backup *string
	if !req.SkipBackup {
		if s.updateBackups == nil {
			return errBackupUnavailable
		}
		name, err := s.updateBackups.BackupNow(ctx, "update")
		if err != nil {
			s.log.WarnContext(ctx, "backup before update failed", "error", err)
			c := *errBackupFailed
			c.Message = "the backup before the update failed; nothing was changed"
			return &c
		}
		backup = &name
	}
	payload, err := json.Marshal(updateJob{Version: m.Version, Binary: bin, Release: m.Signed})
	if err != nil {
		return err
	}
	ids, err := s.jobs.Enqueue(ctx, store.JobSpec{Kind: updateJobKind, Key: updateJobKind, Payload: payload})
	if err != nil {
		return fmt.Errorf("enqueuing the update: %w", err)
	}
	s.log.InfoContext(ctx, "update queued", "version", m.Version, "job", ids[0], "backup", backup != nil)
	return web.JSON(w, r, http.StatusAccepted, applyBody{Job: ids[0], Backup: backup})
}
