package clock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// State is how far the box's time can be trusted.
type State string

// The states of the box's clock, as GET /api/health answers them.
const (
	// Synced: the kernel's clock is kept by NTP (or was, in this run).
	Synced State = "synced"
	// Set: a host set the clock in this boot.
	Set State = "set"
	// Unsure: nothing vouches for the box's time.
	Unsure State = "unsure"
)

// Earliest and Latest bound the times a host may set: a browser whose
// clock says 1970 or 2200 is wrong, not the box.
var (
	Earliest = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	Latest   = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Tolerance is how close a host's time must be to the box's for Set to
// take the box's clock as right and leave the system clock alone.
const Tolerance = 2 * time.Second

// ErrOutOfRange: the time to set is before Earliest or after Latest.
var ErrOutOfRange = errors.New("time out of range")

// Config is what a Service needs. Zero fields take the real system's.
type Config struct {
	// Now is the clock the box dates its records with; nil means time.Now.
	// It must follow what SetTime sets.
	Now func() time.Time
	// Synced reports whether the kernel's clock is synchronised; nil
	// means KernelSynced.
	Synced func() (bool, error)
	// SetTime sets the system clock; nil means SetSystemClock (it needs
	// CAP_SYS_TIME).
	SetTime func(time.Time) error
	// BootID names the running boot, so a state kept in StateFile is only
	// believed in the boot that wrote it; nil means ReadBootID.
	BootID func() (string, error)
	// StateFile keeps the state and the start of the unsure span across
	// restarts of the daemon in the same boot (DATA_DIR/clock.json); empty:
	// nothing is kept.
	StateFile string
	// Redate shifts by offset the records dated in [from, to] of the box's
	// wrong clock (store.Redate); nil: nothing is re-dated.
	Redate func(ctx context.Context, from, to time.Time, offset time.Duration) error
	// Logger must not be nil.
	Logger *slog.Logger
}

// Service keeps the clock's state. Its methods are safe for concurrent use.
type Service struct {
	cfg Config
	mu  sync.Mutex
	// trusted is Synced or Set once either was seen in this boot, else "".
	trusted State
	// since is the box's time when it started to be unsure: the start of
	// the span of records Set re-dates.
	since time.Time
	boot  string
	// kept is the state last written to StateFile.
	kept State
}

// Result is what Set did.
type Result struct {
	// State is the state after Set.
	State State
	// Changed: the clock was unsure and is now set.
	Changed bool
	// Offset is how far the clock moved (the new time minus the old).
	Offset time.Duration
}

// kept is the StateFile's content.
type kept struct {
	Boot  string `json:"boot"`
	State State  `json:"state"`
	// Since is epoch ms, the start of the unsure span.
	Since int64 `json:"since"`
}

// New starts a Service: the unsure span starts now, unless StateFile was
// written in this boot (a restart of the daemon), whose state and span it
// takes over.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Synced == nil {
		cfg.Synced = KernelSynced
	}
	if cfg.SetTime == nil {
		cfg.SetTime = SetSystemClock
	}
	if cfg.BootID == nil {
		cfg.BootID = ReadBootID
	}
	s := &Service{cfg: cfg, since: cfg.Now()}
	if id, err := cfg.BootID(); err == nil {
		s.boot = id
	} else {
		cfg.Logger.Warn("boot id unknown: the clock's state is not kept across restarts", "error", err)
	}
	if k, ok := s.load(); ok {
		s.kept = k.State
		switch k.State {
		case Set, Synced:
			s.trusted = k.State
		case Unsure:
			s.since = time.UnixMilli(k.Since)
		}
	}
	return s
}

// State answers the clock's state: Synced while the kernel says so (and
// for the rest of the boot once it did), Set once a host set it, else
// Unsure.
func (s *Service) State(ctx context.Context) State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state(ctx)
}

func (s *Service) state(ctx context.Context) State {
	if s.trusted != "" {
		return s.trusted
	}
	ok, err := s.cfg.Synced()
	if err != nil {
		s.cfg.Logger.WarnContext(ctx, "reading the kernel's clock state", "error", err)
	}
	if ok {
		s.trust(ctx, Synced)
		return Synced
	}
	s.keep(ctx, Unsure)
	return Unsure
}

// Set sets the clock to t while it is unsure: the system clock first,
// then the records dated since the box started are shifted by the same
// offset. A clock already synced or set is left alone (Changed false).
func (s *Service) Set(ctx context.Context, t time.Time) (Result, error) {
	if t.Before(Earliest) || t.After(Latest) {
		return Result{}, ErrOutOfRange
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.state(ctx); st != Unsure {
		return Result{State: st}, nil
	}
	before := s.cfg.Now()
	offset := t.Sub(before)
	if offset > -Tolerance && offset < Tolerance {
		// The clock was right: trust it, touch nothing.
		s.trust(ctx, Set)
		return Result{State: Set, Changed: true}, nil
	}
	if err := s.cfg.SetTime(t); err != nil {
		return Result{State: Unsure}, fmt.Errorf("setting the system clock: %w", err)
	}
	s.trust(ctx, Set)
	s.cfg.Logger.InfoContext(ctx, "clock set by a host", "offset", offset.Round(time.Second).String(), "unsureSince", s.since.UTC().Format(time.RFC3339))
	if s.cfg.Redate != nil && offset != 0 {
		if err := s.cfg.Redate(ctx, s.since, before, offset); err != nil {
			return Result{State: Set, Changed: true, Offset: offset}, fmt.Errorf("re-dating the records made while the clock was unsure: %w", err)
		}
	}
	return Result{State: Set, Changed: true, Offset: offset}, nil
}

// trust records a trusted state for the rest of the boot.
func (s *Service) trust(ctx context.Context, st State) {
	s.trusted = st
	s.keep(ctx, st)
}

func (s *Service) load() (kept, bool) {
	if s.cfg.StateFile == "" || s.boot == "" {
		return kept{}, false
	}
	b, err := os.ReadFile(s.cfg.StateFile)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.cfg.Logger.Warn("reading the clock's state", "error", err)
		}
		return kept{}, false
	}
	var k kept
	if err := json.Unmarshal(b, &k); err != nil || k.Boot != s.boot {
		return kept{}, false
	}
	return k, true
}

// keep writes the state for a restart of the daemon in this boot, when
// it changed.
func (s *Service) keep(ctx context.Context, st State) {
	if s.cfg.StateFile == "" || s.boot == "" {
		return
	}
	if s.kept == st {
		return
	}
	s.kept = st
	b, err := json.Marshal(kept{Boot: s.boot, State: st, Since: s.since.UnixMilli()})
	if err == nil {
		err = writeAtomic(s.cfg.StateFile, b)
	}
	if err != nil {
		s.cfg.Logger.WarnContext(ctx, "keeping the clock's state", "error", err)
	}
}

func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".clock-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadBootID reads the kernel's id of the running boot.
func ReadBootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", fmt.Errorf("reading the boot id: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
