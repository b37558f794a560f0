package main

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"eventbox/cmd/eventbox/internal/sdnotify"
)

// supervision is the daemon's side of systemd's notify protocol: READY=1
// when the start is over, WATCHDOG=1 while the daemon answers its own
// health check. Without NOTIFY_SOCKET it does nothing.
type supervision struct {
	notify *sdnotify.Notifier
	log    *slog.Logger
	// base is the URL being served, nil between two daemons (a
	// restart after a restore) and before the first.
	base atomic.Pointer[string]
}

// send tells the service manager state; a failure is only logged.
func (s *supervision) send(state string) {
	if err := s.notify.Send(state); err != nil {
		s.log.Warn("telling systemd", "state", state, "error", err)
	}
}

// serving records the URL the daemon serves on; "" while it serves none.
func (s *supervision) serving(base string) {
	if base == "" {
		s.base.Store(nil)
		return
	}
	s.base.Store(&base)
}

// keepWatchdog sends WATCHDOG=1 every third of the unit's WatchdogSec
// until ctx ends: while no daemon serves (the start, a restart), because
// the process is alive; while one serves, only when its /api/health
// answers 200 within that third. A daemon that stops answering for a
// whole WatchdogSec is killed by systemd and started again.
func (s *supervision) keepWatchdog(ctx context.Context) {
	period := s.notify.Watchdog()
	if period == 0 {
		return
	}
	every := period / 3
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if base := s.base.Load(); base == nil {
			s.send("WATCHDOG=1")
		} else {
			hctx, cancel := context.WithTimeout(ctx, every)
			err := healthCheck(*base)(hctx)
			cancel()
			if err == nil {
				s.send("WATCHDOG=1")
			} else if ctx.Err() == nil {
				s.log.Warn("no watchdog ping: the daemon's health check failed", "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
