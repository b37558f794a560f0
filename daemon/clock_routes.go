package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"eventbox/daemon/clock"
	"eventbox/daemon/web"
	"eventbox/store"
)

// The box's clock (daemon/clock; docs/decisions/trust.md, "A clock the box
// can trust"): its state in GET /api/health, POST /api/admin/clock for the
// console to set it from an owner's browser while it is unsure, the
// two-step sign-in that works with a clock days off, and the re-dating of
// what was recorded meanwhile.

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

// newClock makes the clock service over the Config's hooks.
func (s *Server) newClock() *clock.Service {
	return clock.New(clock.Config{Now: s.now, Synced: s.cfg.Clock.Synced, SetTime: s.cfg.Clock.SetTime,
		BootID: s.cfg.Clock.BootID, StateFile: filepath.Join(s.cfg.DataDir, clockStateFile),
		Redate: s.redate, Logger: s.log.With("component", "clock")})
}

// redate moves the records the wrong clock dated, plans the nightly
// backup again from the right time, and tells the job runner that what
// was waiting may now be due.
func (s *Server) redate(ctx context.Context, from, to time.Time, offset time.Duration) error {
	n, err := s.store.Redate(ctx, from, to, offset)
	if err != nil {
		return err
	}
	s.log.InfoContext(ctx, "records re-dated after the clock was set", "photos", n.Photos, "messages", n.Messages,
		"guests", n.Guests, "events", n.Events, "jobs", n.Jobs, "sessions", n.Sessions, "invitations", n.Invitations)
	queued, err := s.store.Jobs().Unfinished(ctx, BackupJobKind, 100)
	if err != nil {
		return fmt.Errorf("listing the scheduled backups: %w", err)
	}
	for _, j := range queued {
		if j.Status == store.JobQueued && strings.HasPrefix(j.Key, "nightly-") {
			if _, err := s.store.Jobs().Cancel(ctx, BackupJobKind, j.Key); err != nil {
				return err
			}
		}
	}
	if err := s.backups.scheduleNightly(ctx); err != nil {
		return err
	}
	if s.jobs != nil {
		s.jobs.Notify()
	}
	return nil
}

type clockRequest struct {
	// Now is the browser's time, epoch ms.
	Now *int64 `json:"now"`
}

type clockBody struct {
	Clock    clock.State `json:"clock"`
	Changed  bool        `json:"changed"`
	OffsetMs int64       `json:"offsetMs"`
}

// handleSetClock sets the box's clock from an owner's browser while it is
// unsure; a clock already synced or set is left alone (changed false).
func (s *Server) handleSetClock(w http.ResponseWriter, r *http.Request) error {
	var req clockRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Now == nil {
		return web.Field("now", "required")
	}
	res, err := s.clock.Set(r.Context(), time.UnixMilli(*req.Now))
	if errors.Is(err, clock.ErrOutOfRange) {
		return web.Field("now", "must be a time between 2025 and 2100")
	}
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, clockBody{Clock: res.State, Changed: res.Changed, OffsetMs: res.Offset.Milliseconds()})
}

// signInClock is what a sign-in's pair of authenticator codes told of the
// time.
type signInClock struct {
	offset time.Duration
	told   bool
}

// spendSignInCode is spendCode for the second sign-in step. While the
// clock is unsure one authenticator code proves nothing (its time is not
// known), so it takes two consecutive codes matched within three days
// (clock.MatchTOTPPair), which also tell the time, or a recovery code.
func (s *Server) spendSignInCode(ctx context.Context, a *store.Account, code string, now time.Time, c *signInClock) bool {
	if s.clock.State(ctx) != clock.Unsure {
		return spendCode(a, code, now, true)
	}
	if m, ok := clock.MatchTOTPPair(a.TOTPSecret, normalizeCode(code), now, a.LastTOTPStep); ok {
		a.LastTOTPStep = m.Step
		*c = signInClock{offset: m.Offset, told: true}
		return true
	}
	if len(normalizeCode(code)) == 6 {
		return false // one authenticator code against an unknown time
	}
	return spendCode(a, code, now, true)
}

// setClockFromSignIn sets the clock from what the sign-in's codes told.
// A failure is logged: the host is in, and the console can still set it.
func (s *Server) setClockFromSignIn(ctx context.Context, now time.Time, c signInClock) {
	if !c.told {
		return
	}
	if _, err := s.clock.Set(ctx, now.Add(c.offset)); err != nil {
		s.log.ErrorContext(ctx, "setting the clock from a sign-in's codes", "error", err)
	}
}
