package box

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"eventbox/daemon/update"
	"eventbox/daemon/web"
	"eventbox/store"
)

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
func (a *API) updaterName() string {
	if a.cfg.Restart != nil {
		return "systemd"
	}
	return "none"
}

// Updates is GET /api/admin/updates: the running and latest versions,
// the history of attempts and the update under way.
func (a *API) Updates(w http.ResponseWriter, r *http.Request) error {
	st, err := a.cfg.Updater.State()
	if err != nil {
		return err
	}
	body := updatesBody{Current: a.cfg.Version, Latest: optString(st.Latest), CheckEnabled: a.cfg.Updater.Enabled(),
		History: []attemptDTO{}, Updater: a.updaterName(), Arch: a.cfg.Updater.Arch()}
	if update.Newer(st.Available, a.cfg.Version) {
		body.Available = optString(st.Available)
	}
	if st.CheckedAt > 0 {
		body.CheckedAt = &st.CheckedAt
	}
	for _, at := range slices.Backward(st.History) {
		body.History = append(body.History, attemptDTO{Version: at.Version, From: at.From, At: at.At, Status: at.Status, Error: at.Error})
	}
	if body.Applying, err = a.applying(r.Context()); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// applying answers the unfinished update job, if any.
func (a *API) applying(ctx context.Context) (*applyingDTO, error) {
	js, err := a.cfg.Store.Jobs().Unfinished(ctx, update.JobKind, 1)
	if err != nil || len(js) == 0 {
		return nil, err
	}
	j := js[0]
	var p update.JobPayload
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return nil, fmt.Errorf("decoding update job %d: %w", j.ID, err)
	}
	ap := &applyingDTO{Job: j.ID, Version: p.Version, Status: string(j.Status), Error: j.LastError}
	if j.Progress != nil {
		ap.Done, ap.Total, ap.Note = j.Progress.Done, j.Progress.Total, j.Progress.Note
	}
	return ap, nil
}

type availableBody struct {
	Available *string `json:"available"`
	Latest    *string `json:"latest"`
}

// UpdatesCheck is POST /api/admin/updates/check: the signed manifest
// fetched now.
func (a *API) UpdatesCheck(w http.ResponseWriter, r *http.Request) error {
	m, err := a.fetchRelease(r.Context())
	if err != nil {
		return err
	}
	body := availableBody{Latest: &m.Version}
	if _, ok := a.cfg.Updater.Available(m); ok {
		body.Available = &m.Version
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// fetchRelease fetches and verifies the manifest, as a 502 when it
// cannot.
func (a *API) fetchRelease(ctx context.Context) (update.Manifest, error) {
	m, err := a.cfg.Updater.Fetch(ctx)
	switch {
	case err == nil:
		return m, nil
	case errors.Is(err, update.ErrInvalid):
		a.log.WarnContext(ctx, "release manifest refused", "error", err)
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
		a.log.WarnContext(ctx, "release host unreachable", "error", err)
		c := *errUpdateUnreachable
		c.Message = "the release host could not be reached"
		return m, &c
	}
}

// unavailable is the answer to applying version when the release could
// not be fetched (fetchErr): 400 naming version unless version is the
// one the last check found available (only that one is accepted; with no
// UPDATE_URL, or no check that found one, nothing is), else fetchErr.
func (a *API) unavailable(version string, fetchErr error) error {
	var we *web.Error
	if !errors.As(fetchErr, &we) {
		return fetchErr
	}
	st, err := a.cfg.Updater.State()
	if err != nil {
		return err
	}
	if update.Newer(st.Available, a.cfg.Version) && st.Available == version {
		return fetchErr
	}
	msg := "no update is available"
	if we.Message != "" {
		msg += ": " + we.Message
	}
	return web.Field("version", msg)
}

type applyRequest struct {
	Version    string `json:"version"`
	SkipBackup bool   `json:"skipBackup"`
}

type applyBody struct {
	Job    uint64  `json:"job"`
	Backup *string `json:"backup"`
}

// UpdatesApply checks that version is the available release, backs
// up (unless skipped), and enqueues the update job: 202 { job, backup }.
func (a *API) UpdatesApply(w http.ResponseWriter, r *http.Request) error {
	var req applyRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Version == "" {
		return web.Field("version", "is required")
	}
	ctx := r.Context()
	m, err := a.fetchRelease(ctx)
	if err != nil {
		return a.unavailable(req.Version, err)
	}
	bin, ok := a.cfg.Updater.Available(m)
	switch {
	case !ok:
		return web.Field("version", fmt.Sprintf("no update is available for %s (latest is %s)", a.cfg.Updater.Arch(), m.Version))
	case req.Version != m.Version:
		return web.Field("version", fmt.Sprintf("only the available version %s can be applied", m.Version))
	}
	if busy, err := a.applying(ctx); err != nil {
		return err
	} else if busy != nil {
		return errUpdateBusy.With(map[string]string{"version": fmt.Sprintf("%s is being applied", busy.Version)})
	}
	if waiting, err := a.cfg.Updater.Waiting(); err != nil {
		return err
	} else if waiting == m.Version {
		return errUpdateBusy.With(map[string]string{"version": fmt.Sprintf("%s is installed and runs after the next restart", waiting)})
	}
	var backup *string
	if !req.SkipBackup {
		if a.cfg.UpdateBackups == nil {
			return errBackupUnavailable
		}
		name, err := a.cfg.UpdateBackups.BackupNow(ctx, "update")
		if err != nil {
			a.log.WarnContext(ctx, "backup before update failed", "error", err)
			c := *errBackupFailed
			c.Message = "the backup before the update failed; nothing was changed"
			return &c
		}
		backup = &name
	}
	payload, err := json.Marshal(update.JobPayload{Version: m.Version, Binary: bin, Release: m.Signed})
	if err != nil {
		return err
	}
	ids, err := a.cfg.Jobs.Enqueue(ctx, store.JobSpec{Kind: update.JobKind, Key: update.JobKind, Payload: payload})
	if err != nil {
		return fmt.Errorf("enqueuing the update: %w", err)
	}
	a.log.InfoContext(ctx, "update queued", "version", m.Version, "job", ids[0], "backup", backup != nil)
	return web.JSON(w, r, http.StatusAccepted, applyBody{Job: ids[0], Backup: backup})
}
