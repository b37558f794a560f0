// Package box holds the routes of the box itself: its backups and their
// restore (/api/admin/backup), its updates (/api/admin/updates), its
// statistics, storage, About screen, metrics, health and API reference,
// and its CA for HTTPS (/ca.crt, /ca.mobileconfig). The background work
// behind them is in daemon/backups, daemon/update, daemon/storage.
package box

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"eventbox/daemon/backups"
	"eventbox/daemon/clock"
	"eventbox/daemon/jobs"
	"eventbox/daemon/storage"
	"eventbox/daemon/update"
	"eventbox/daemon/visitor"
	"eventbox/store"
)

// Backups is what the updates and the metrics need of the backup
// service: a backup now, before an update, and when the last good one
// was made. backups.Service satisfies it; nil means there is none (an
// apply without skipBackup then answers 409).
type Backups interface {
	// BackupNow makes a backup and answers its name; reason, a-z only,
	// is part of the name ("update").
	BackupNow(ctx context.Context, reason string) (name string, err error)
	// LastBackup answers when the last good backup was made; false when
	// there is none.
	LastBackup() (time.Time, bool)
}

// Config is what the box's routes need.
type Config struct {
	// Store is the box's store.
	Store *store.Store
	// Clock is the box's clock: its state in the health answer, set by an
	// owner's browser while it is unsure.
	Clock *clock.Service
	// Visitors sets the restoring owner's session in the restored data.
	Visitors *visitor.Resolver
	// Logger and Now: the routes' log and clock.
	Logger *slog.Logger
	Now    func() time.Time
	// Version is the running binary's version.
	Version string
	// DataDir is where a restore is staged.
	DataDir string
	// Storage is the storage guard.
	Storage *storage.Guard
	// Backups makes the box's own backups (where they go, the nightly
	// schedule after a retention change).
	Backups *backups.Service
	// UpdateBackups makes the backup before an update; nil: none.
	UpdateBackups Backups
	// Updater checks for and installs releases; Restart, when not nil,
	// is how the service manager restarts the daemon after one.
	Updater *update.Updater
	Restart func()
	// Jobs queues the update job.
	Jobs *jobs.Runner
	// Metrics serves the Prometheus metrics to a scraper that sends
	// MetricsToken as a bearer token.
	Metrics      http.Handler
	MetricsToken string
	// BoxCA is the box's own CA certificate (DER); empty: none.
	BoxCA []byte
	// BoothName is the name the booth's photos show under in the top
	// guests.
	BoothName string
	// AbortStream ends a streamed answer that failed after its first
	// byte (a downloaded backup): it cuts the connection and never
	// returns.
	AbortStream func(r *http.Request, err error) error
	// WriteError writes an error answer (the restore gate's 503).
	WriteError func(w http.ResponseWriter, r *http.Request, err error)
}

// API is the box's routes. Build it with New.
type API struct {
	cfg Config
	log *slog.Logger

	// restoreMu lets one restore run at a time; restoring is set once a
	// restore is decided, and restart is closed then (Restarts).
	restoreMu   sync.Mutex
	restoring   atomic.Bool
	restart     chan struct{}
	restartOnce sync.Once
}

// New returns the box's routes over cfg.
func New(cfg Config) *API {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &API{cfg: cfg, log: cfg.Logger, restart: make(chan struct{})}
}
