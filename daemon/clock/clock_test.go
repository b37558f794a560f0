package clock_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"eventbox/daemon/clock"
)

// box is a box's system clock: its time is the real time plus an error
// that setting the clock removes.
type box struct {
	mu     sync.Mutex
	real   time.Time
	off    time.Duration
	synced bool
	boot   string
	redate [][3]any
}

func (b *box) now() time.Time { b.mu.Lock(); defer b.mu.Unlock(); return b.real.Add(b.off) }
func (b *box) set(t time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.off = t.Sub(b.real)
	return nil
}

func (b *box) config(stateFile string) clock.Config {
	return clock.Config{
		Now:       b.now,
		Synced:    func() (bool, error) { return b.synced, nil },
		SetTime:   b.set,
		BootID:    func() (string, error) { return b.boot, nil },
		StateFile: stateFile,
		Redate: func(_ context.Context, from, to time.Time, offset time.Duration) error {
			b.redate = append(b.redate, [3]any{from, to, offset})
			return nil
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func TestServiceStates(t *testing.T) {
	ctx := context.Background()
	real := time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		synced    bool
		off       time.Duration
		set       time.Time
		wantErr   error
		before    clock.State
		after     clock.State
		changed   bool
		redateOff time.Duration
	}{
		{name: "unsure, three days behind, set by a host", off: -72 * time.Hour, set: real.Add(2 * time.Hour), before: clock.Unsure, after: clock.Set, changed: true, redateOff: 72 * time.Hour},
		{name: "unsure, an hour ahead, set by a host", off: time.Hour, set: real.Add(2 * time.Hour), before: clock.Unsure, after: clock.Set, changed: true, redateOff: -time.Hour},
		{name: "unsure but right: trusted, nothing moved", off: -time.Second, set: real.Add(2 * time.Hour), before: clock.Unsure, after: clock.Set, changed: true},
		{name: "synced: a host's time is not taken", synced: true, set: real.Add(time.Hour), before: clock.Synced, after: clock.Synced},
		{name: "a browser in 1970 is refused", off: -72 * time.Hour, set: time.Unix(0, 0), wantErr: clock.ErrOutOfRange, before: clock.Unsure, after: clock.Unsure},
		{name: "a browser in 2200 is refused", off: -72 * time.Hour, set: time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC), wantErr: clock.ErrOutOfRange, before: clock.Unsure, after: clock.Unsure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &box{real: real, off: tt.off, synced: tt.synced, boot: "boot-1"}
			s := clock.New(b.config(""))
			start := b.now()
			if got := s.State(ctx); got != tt.before {
				t.Fatalf("State before = %q, want %q", got, tt.before)
			}
			b.real = b.real.Add(2 * time.Hour) // the party goes on
			res, err := s.Set(ctx, tt.set)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Set error = %v, want %v", err, tt.wantErr)
			}
			if got := s.State(ctx); got != tt.after || (err == nil && res.State != tt.after) {
				t.Fatalf("State after = %q (Set answered %q), want %q", got, res.State, tt.after)
			}
			if res.Changed != tt.changed {
				t.Fatalf("Changed = %v", res.Changed)
			}
			if !tt.changed || tt.redateOff == 0 {
				if len(b.redate) != 0 || b.off != tt.off {
					t.Fatalf("a clock not changed moved (%v) or re-dated %v", b.off, b.redate)
				}
				return
			}
			if !b.now().Equal(tt.set) {
				t.Errorf("system clock = %v, want %v", b.now(), tt.set)
			}
			if len(b.redate) != 1 {
				t.Fatalf("re-dated %d times", len(b.redate))
			}
			r := b.redate[0]
			if !r[0].(time.Time).Equal(start) || !r[1].(time.Time).Equal(real.Add(2*time.Hour+tt.off)) || r[2] != tt.redateOff {
				t.Errorf("Redate(%v, %v, %v), want from the start %v to the old now by %v", r[0], r[1], r[2], start, tt.redateOff)
			}
			// Set once; a second host's time is not taken.
			if res, _ := s.Set(ctx, tt.set.Add(time.Hour)); res.Changed || res.State != clock.Set {
				t.Errorf("second Set = %+v", res)
			}
		})
	}
}

// TestServiceKeepsStateInTheBoot: a restart of the daemon keeps a clock
// set in the same boot, and the start of an unsure span; a new boot does
// not believe either.
func TestServiceKeepsStateInTheBoot(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "clock.json")
	b := &box{real: time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC), off: -72 * time.Hour, boot: "boot-1"}
	s := clock.New(b.config(file))
	start := b.now()
	if s.State(ctx) != clock.Unsure {
		t.Fatal("not unsure")
	}
	b.real = b.real.Add(time.Hour)
	s = clock.New(b.config(file)) // the daemon restarts, still unsure
	if _, err := s.Set(ctx, b.real); err != nil {
		t.Fatal(err)
	}
	if got := b.redate[0][0].(time.Time); !got.Equal(start) {
		t.Errorf("re-dated from %v, want the first start %v", got, start)
	}
	if got := clock.New(b.config(file)).State(ctx); got != clock.Set {
		t.Errorf("after a restart in the same boot: %q, want set", got)
	}
	b.boot = "boot-2"
	if got := clock.New(b.config(file)).State(ctx); got != clock.Unsure {
		t.Errorf("after a new boot: %q, want unsure", got)
	}
}

// TestServiceSetFails: a clock that cannot be set stays unsure and
// nothing is re-dated.
func TestServiceSetFails(t *testing.T) {
	ctx := context.Background()
	b := &box{real: time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC), off: -72 * time.Hour, boot: "boot-1"}
	cfg := b.config("")
	cfg.SetTime = func(time.Time) error { return errors.New("operation not permitted") }
	s := clock.New(cfg)
	if _, err := s.Set(ctx, b.real); err == nil {
		t.Fatal("Set did not fail")
	}
	if s.State(ctx) != clock.Unsure || len(b.redate) != 0 {
		t.Fatalf("state %q, re-dated %v", s.State(ctx), b.redate)
	}
}
