package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"eventbox/daemon/backups"
	"eventbox/daemon/clock"
	"eventbox/daemon/jobs"
	"eventbox/store"
)

// The box's clock (daemon/clock; docs/decisions/trust.md, "A clock the box
// can trust"): its state in GET /api/health and POST /api/admin/clock
// (daemon/api/box), the two-step sign-in that works with a clock days off
// (daemon/api/accounts), and the re-dating of what was recorded meanwhile
// (here).

// ClockHooks reach the system's clock; nil fields are the real system's
// (clock.KernelSynced, clock.SetSystemClock, clock.ReadBootID). Tests
// give a box whose clock is wrong.
type ClockHooks struct {
	// Synced reports whether NTP keeps the kernel's clock.
	Synced func() (bool, error)
	// SetTime sets the system clock; it must move Config.Now with it.
	SetTime func(time.Time) error
	// BootID names the running boot.
	BootID func() (string, error)
}

// clockStateFile keeps the clock's state across restarts of the daemon
// within one boot.
const clockStateFile = "clock.json"

// newClock makes the clock service over the Config's hooks; redate is
// what it calls once it is set.
func newClock(cfg Config, log *slog.Logger, redate func(ctx context.Context, from, to time.Time, offset time.Duration) error) *clock.Service {
	return clock.New(clock.Config{Now: cfg.Now, Synced: cfg.Clock.Synced, SetTime: cfg.Clock.SetTime,
		BootID: cfg.Clock.BootID, StateFile: filepath.Join(cfg.DataDir, clockStateFile),
		Redate: redate, Logger: log.With("component", "clock")})
}

// redate moves the records the wrong clock dated, plans the nightly
// backup again from the right time, and tells the job runner that what
// was waiting may now be due. It is called once the clock is set, when
// the backups and the runner exist.
func redate(ctx context.Context, st *store.Store, bk *backups.Service, runner *jobs.Runner, log *slog.Logger, from, to time.Time, offset time.Duration) error {
	n, err := st.Redate(ctx, from, to, offset)
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "records re-dated after the clock was set", "photos", n.Photos, "messages", n.Messages,
		"guests", n.Guests, "events", n.Events, "jobs", n.Jobs, "sessions", n.Sessions, "invitations", n.Invitations)
	queued, err := st.Jobs().Unfinished(ctx, backups.JobKind, 100)
	if err != nil {
		return fmt.Errorf("listing the scheduled backups: %w", err)
	}
	for _, j := range queued {
		if j.Status == store.JobQueued && strings.HasPrefix(j.Key, "nightly-") {
			if _, err := st.Jobs().Cancel(ctx, backups.JobKind, j.Key); err != nil {
				return err
			}
		}
	}
	if err := bk.ScheduleNightly(ctx); err != nil {
		return err
	}
	if runner != nil {
		runner.Notify()
	}
	return nil
}
