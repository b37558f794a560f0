package box

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"eventbox/daemon/backupzip"
	"eventbox/daemon/cookie"
	"eventbox/daemon/ingest"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Backup and restore routes (owners). docs/decisions.md, "Backups and
// restore", says how the pieces fit.

// keptDTO is a kept backup file.
type keptDTO struct {
	Name      string `json:"name"`
	Bytes     int64  `json:"bytes"`
	CreatedAt int64  `json:"createdAt"`
}

// backupResult is the latest backup's outcome.
type backupResult struct {
	At      int64  `json:"at"`
	OK      bool   `json:"ok"`
	Reason  string `json:"reason"`
	Name    string `json:"name"`
	Storage string `json:"storage"`
	Bytes   int64  `json:"bytes"`
	Error   string `json:"error"`
}

// storageDTO is the storage guard's state: in GET /api/admin/backup
// (space) and GET /api/admin/storage.
type storageDTO struct {
	Low         bool  `json:"low"`
	FreeBytes   int64 `json:"freeBytes"`
	MarginBytes int64 `json:"marginBytes"`
}

// manifestDTO is a backup's manifest as answered: its figures, without
// the list of files.
type manifestDTO struct {
	Version   int    `json:"version"`
	App       string `json:"app"`
	CreatedAt int64  `json:"createdAt"`
	Files     int    `json:"files"`
	Bytes     int64  `json:"bytes"`
	DB        dbDTO  `json:"db"`
}

// dbDTO is the database part of a manifest.
type dbDTO struct {
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	Schema uint64 `json:"schema"`
}

func newManifestDTO(m backupzip.Manifest) manifestDTO {
	return manifestDTO{Version: m.Version, App: m.App, CreatedAt: m.CreatedAt, Files: len(m.Files), Bytes: m.Bytes,
		DB: dbDTO{Bytes: m.DB.Bytes, SHA256: m.DB.SHA256, Schema: m.DB.Schema}}
}

// Backup is GET /api/admin/backup: what a backup would hold, where it
// would go, the kept backups, the latest result and the card's space; with
// download=1, a backup ZIP streamed to the owner.
func (a *API) Backup(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Query().Get("download") == "1" {
		return a.downloadBackup(w, r)
	}
	ctx := r.Context()
	usage, err := a.cfg.Store.Usage(ctx)
	if err != nil {
		return err
	}
	state, err := a.cfg.Store.Backups().State(ctx)
	if err != nil {
		return err
	}
	target := a.cfg.Backups.Target()
	kept, err := backupzip.List(target.Dir)
	if err != nil {
		return err
	}
	space := a.cfg.Storage.Check(ctx)
	body := backupAnswer{Files: usage.Files, Bytes: usage.Bytes, Storage: target.Kind, StorageDir: target.Dir,
		RetentionDays: state.RetentionDays, Backups: []keptDTO{},
		Space: storageDTO{Low: space.Low, FreeBytes: space.Free, MarginBytes: space.Margin}}
	for _, k := range kept {
		body.Backups = append(body.Backups, keptDTO(k))
	}
	if l := state.Last; l != nil {
		body.Last = &backupResult{At: l.At, OK: l.OK, Reason: l.Reason, Name: l.Name, Storage: l.Storage, Bytes: l.Bytes, Error: l.Error}
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// backupAnswer is GET /api/admin/backup.
type backupAnswer struct {
	Files         int           `json:"files"`
	Bytes         int64         `json:"bytes"`
	Storage       string        `json:"storage"`
	StorageDir    string        `json:"storageDir"`
	RetentionDays int           `json:"retentionDays"`
	Backups       []keptDTO     `json:"backups"`
	Last          *backupResult `json:"last"`
	Space         storageDTO    `json:"space"`
}

// downloadBackup streams a backup ZIP to the owner: nothing is staged on
// the card but hard links (backupzip.Write). After the first byte a failure
// cuts the connection.
func (a *API) downloadBackup(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", mediafile.ContentDisposition(backupzip.FileName(a.cfg.Now(), "download")))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	m, err := backupzip.Write(r.Context(), a.cfg.Store, w, backupzip.WriteOptions{App: a.cfg.Version, Now: a.cfg.Now})
	if err != nil {
		return a.cfg.AbortStream(r, err)
	}
	a.log.InfoContext(r.Context(), "backup downloaded", "files", len(m.Files), "bytes", m.Bytes)
	return nil
}

type retentionRequest struct {
	Days *int `json:"days"`
}

type retentionBody struct {
	RetentionDays int `json:"retentionDays"`
}

// Retention limits of the spec: 0 (scheduled backups off), or 14 to
// 3650 days.
const (
	minRetentionDays = 14
	maxRetentionDays = 3650
)

// BackupRetention is PUT /api/admin/backup/retention: the days kept
// backups are kept, 0 turning scheduled backups off.
func (a *API) BackupRetention(w http.ResponseWriter, r *http.Request) error {
	var req retentionRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Days == nil {
		return web.Field("days", "is required")
	}
	days := *req.Days
	if days != 0 && (days < minRetentionDays || days > maxRetentionDays) {
		return web.Field("days", fmt.Sprintf("must be 0 (scheduled backups off) or %d to %d", minRetentionDays, maxRetentionDays))
	}
	if err := a.cfg.Store.Backups().SetRetention(r.Context(), days); err != nil {
		return err
	}
	if err := a.cfg.Backups.ScheduleNightly(r.Context()); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, retentionBody{RetentionDays: days})
}

type restoreBody struct {
	OK       bool        `json:"ok"`
	Manifest manifestDTO `json:"manifest"`
}

// errRefused answers a backup that cannot be restored: 400 naming the
// file, with the reason as the message.
func errRefused(re *backupzip.RefusedError) *web.Error {
	e := web.BadRequest(map[string]string{"file": re.File})
	e.Message = re.Reason
	return e
}

// Restore restores a backup sent as the body. The ZIP is streamed
// to the temp area, checked and staged (backupzip.Stage: nothing live
// changes until every file checked out), then the swap is decided
// (store.CommitRestore) and the answer sent. From then on the API answers
// 503 until the daemon has restarted itself (Restarts) and the next
// store.Open has swapped the new data in. Sessions follow docs/design.md, "Restore and sessions": the
// restoring owner gets a session in the restored data when it has an
// owner of that username, else the cookie is cleared.
func (a *API) Restore(w http.ResponseWriter, r *http.Request) error {
	if !a.restoreMu.TryLock() {
		busy := *web.ErrUnavailable // another restore is under way
		busy.RetryAfter = 30
		return &busy
	}
	defer a.restoreMu.Unlock()
	ctx := r.Context()
	tooLarge := errRefused(&backupzip.RefusedError{File: backupzip.ZipName, Reason: "is larger than the free space on the card"})
	room := a.cfg.Storage.Room(ctx)
	if r.ContentLength > room {
		return tooLarge
	}
	tf, err := a.cfg.Store.Media().CreateTemp()
	if err != nil {
		return err
	}
	defer tf.Abort()
	// A body without a length is cut where the margin begins.
	// The card's fault is a 507 or 503 (ingest.Receive wraps it); the
	// client's (a body cut off) names the ZIP.
	n, err := ingest.Receive(tf, io.LimitReader(r.Body, max(room, 0)+1), "file")
	var fe *ingest.FieldError
	if errors.As(err, &fe) || errors.Is(err, ingest.ErrTooLarge) {
		return errRefused(&backupzip.RefusedError{File: backupzip.ZipName, Reason: "the upload was cut off"})
	}
	if err != nil {
		return fmt.Errorf("receiving backup: %w", err)
	}
	if n > room {
		w.Header().Set("Connection", "close")
		return tooLarge
	}
	zr, err := backupzip.OpenZip(tf.File, n)
	if re, ok := backupzip.IsRefused(err); ok {
		a.log.InfoContext(ctx, "restore refused", "file", re.File, "reason", re.Reason)
		return errRefused(re)
	}
	if err != nil {
		return fmt.Errorf("reading backup: %w", err)
	}
	username := visitor.Account(r).Username
	var token string
	m, err := backupzip.Stage(ctx, zr, backupzip.StageConfig{DataDir: a.cfg.DataDir, Room: a.cfg.Storage.Room(ctx),
		Logger: a.log.With("component", "restore"),
		Inspect: func(ctx context.Context, st *store.Store) error {
			a, err := st.Accounts().ByUsername(ctx, username)
			if errors.Is(err, store.ErrNotFound) || (err == nil && a.Role != store.RoleOwner) {
				return nil
			}
			if err != nil {
				return err
			}
			token, err = st.Sessions().Create(ctx, a.ID, false)
			return err
		}})
	if re, ok := backupzip.IsRefused(err); ok {
		a.log.InfoContext(ctx, "restore refused", "file", re.File, "reason", re.Reason)
		return errRefused(re)
	}
	if err != nil {
		return err
	}
	tf.Abort()
	a.restoring.Store(true)
	if err := store.CommitRestore(a.cfg.DataDir); err != nil {
		a.restoring.Store(false)
		return errors.Join(err, store.AbandonStaging(a.cfg.DataDir))
	}
	a.log.InfoContext(ctx, "restore decided: restarting to swap the data in", "files", len(m.Files), "bytes", m.Bytes)
	if token != "" {
		a.cfg.Visitors.SetSessionCookie(w, r, token)
	} else {
		cookie.Clear(w, r, visitor.AdminCookie)
	}
	err = web.JSON(w, r, http.StatusOK, restoreBody{OK: true, Manifest: newManifestDTO(m)})
	a.requestRestart()
	return err
}

// RestoreGate answers 503 unavailable to every API request once a restore
// is decided: what they would change is about to be replaced. Pages stay.
func (a *API) RestoreGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.restoring.Load() && web.IsAPIPath(r.URL.Path) {
			w.Header().Set("Retry-After", "5")
			a.cfg.WriteError(w, r, web.ErrUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Restarts is closed when the server asks to be replaced by a fresh one
// over a freshly opened store: after a restore was decided, the next
// store.Open swaps the restored data in (daemon.Server.Restarts).
func (a *API) Restarts() <-chan struct{} { return a.restart }

func (a *API) requestRestart() { a.restartOnce.Do(func() { close(a.restart) }) }
