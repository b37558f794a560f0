package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// Service is a long-running part of the daemon. Run works until ctx is
// cancelled and then returns nil; it returns an error when it cannot go on.
type Service interface {
	Run(ctx context.Context) error
}

// Func adapts a function to Service.
type Func func(ctx context.Context) error

// Run calls f.
func (f Func) Run(ctx context.Context) error { return f(ctx) }

var _ Service = Func(nil)

// Member is a service of a Group.
type Member struct {
	// Name names the service in logs and errors.
	Name string
	// Service must not be nil.
	Service Service
	// Critical makes the group stop when the service fails: every other
	// member's context is cancelled and Group.Run returns the error. A
	// member that is not critical is restarted instead.
	Critical bool
}

// GroupConfig configures a Group.
type GroupConfig struct {
	// Logger receives failures and restarts; nil discards them.
	Logger *slog.Logger
	// MinRestart is the wait before the first restart of a failed member;
	// each failure in a row doubles it up to MaxRestart. A run that lasted
	// MaxRestart or longer starts the doubling afresh. Zero means 1 s and
	// 1 min.
	MinRestart, MaxRestart time.Duration
}

// Group runs services side by side. A member that fails (returns an
// error, or panics) while the group runs is logged and restarted after a
// growing wait, unless it is Critical; a member that returns nil before
// the group stops has finished and is not restarted. Group is itself a
// Service, so groups nest.
type Group struct {
	members  []Member
	log      *slog.Logger
	min, max time.Duration
}

var _ Service = (*Group)(nil)

// NewGroup returns a group of members; nothing runs before Run.
func NewGroup(cfg GroupConfig, members ...Member) *Group {
	g := &Group{members: members, log: cfg.Logger, min: cfg.MinRestart, max: cfg.MaxRestart}
	if g.log == nil {
		g.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if g.min <= 0 {
		g.min = time.Second
	}
	if g.max <= 0 {
		g.max = time.Minute
	}
	g.max = max(g.max, g.min)
	return g
}

// Run runs every member until ctx is cancelled or a critical member
// fails, and returns after each member has returned: nil after ctx was
// cancelled, the critical member's error otherwise.
func (g *Group) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		fatal error
	)
	for _, m := range g.members {
		wg.Go(func() {
			if err := g.keep(ctx, m); err != nil {
				once.Do(func() { fatal = err })
				cancel()
			}
		})
	}
	wg.Wait()
	return fatal
}

// keep runs m until ctx ends, restarting it after failures; it returns
// the error of a critical member's failure.
func (g *Group) keep(ctx context.Context, m Member) error {
	log := g.log.With("service", m.Name)
	wait := g.min
	for {
		started := time.Now()
		err := run(ctx, m.Service)
		if ctx.Err() != nil {
			if err != nil && !errors.Is(err, context.Canceled) {
				log.WarnContext(ctx, "service stopped with an error", "error", err)
			}
			return nil
		}
		if err == nil {
			log.InfoContext(ctx, "service finished")
			return nil
		}
		if m.Critical {
			log.ErrorContext(ctx, "critical service failed; stopping", "error", err)
			return fmt.Errorf("service %s: %w", m.Name, err)
		}
		if time.Since(started) >= g.max {
			wait = g.min
		}
		log.ErrorContext(ctx, "service failed; restarting", "error", err, "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		wait = min(wait*2, g.max)
	}
}

// run calls s.Run, turning a panic into an error.
func run(ctx context.Context, s Service) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return s.Run(ctx)
}
