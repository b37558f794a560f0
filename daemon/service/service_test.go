package service_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/daemon/service"
)

// blocker runs until ctx is cancelled, then takes a second to stop.
func blocker(stopped *bool) service.Func {
	return func(ctx context.Context) error {
		<-ctx.Done()
		time.Sleep(time.Second)
		*stopped = true
		return nil
	}
}

func TestGroupReturnsAfterEveryMemberReturned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var a, b bool
		g := service.NewGroup(service.GroupConfig{},
			service.Member{Name: "a", Service: blocker(&a)},
			service.Member{Name: "b", Service: blocker(&b)})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- g.Run(ctx) }()
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("returned before cancel: %v", err)
		default:
		}
		cancel()
		if err := <-done; err != nil || !a || !b {
			t.Fatalf("run = %v; a stopped %v, b stopped %v", err, a, b)
		}
	})
}

func TestFailingMemberIsRestartedWithGrowingWaits(t *testing.T) {
	tests := []struct {
		name      string
		cfg       service.GroupConfig
		fail      func(n int) error // the n-th run's failure; nil: block
		wantWaits []time.Duration
	}{
		{"errors double the wait", service.GroupConfig{}, func(n int) error {
			if n <= 4 {
				return errors.New("gpio busy")
			}
			return nil
		}, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{"the wait is capped", service.GroupConfig{MinRestart: time.Second, MaxRestart: 3 * time.Second}, func(n int) error {
			if n <= 4 {
				return errors.New("gpio busy")
			}
			return nil
		}, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}},
		{"a panic is a failure", service.GroupConfig{}, func(n int) error {
			if n == 1 {
				panic("nil map")
			}
			return nil
		}, []time.Duration{time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var logs bytes.Buffer
				var mu sync.Mutex
				var starts []time.Time
				flaky := service.Func(func(ctx context.Context) error {
					mu.Lock()
					starts = append(starts, time.Now())
					n := len(starts)
					mu.Unlock()
					if err := tt.fail(n); err != nil {
						return err
					}
					<-ctx.Done()
					return nil
				})
				tt.cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				var other bool
				g := service.NewGroup(tt.cfg, service.Member{Name: "booth", Service: flaky},
					service.Member{Name: "other", Service: blocker(&other)})
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				if err := g.Run(ctx); err != nil {
					t.Fatal(err)
				}
				var waits []time.Duration
				for i := 1; i < len(starts); i++ {
					waits = append(waits, starts[i].Sub(starts[i-1]))
				}
				if !slices.Equal(waits, tt.wantWaits) {
					t.Fatalf("waits between runs %v, want %v", waits, tt.wantWaits)
				}
				if !other || !strings.Contains(logs.String(), "service failed; restarting") || !strings.Contains(logs.String(), "service=booth") {
					t.Fatalf("other stopped %v; logs:\n%s", other, logs.String())
				}
			})
		})
	}
}

func TestCriticalMemberStopsTheGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errDisk := errors.New("disk gone")
		var other bool
		g := service.NewGroup(service.GroupConfig{},
			service.Member{Name: "store", Critical: true, Service: service.Func(func(ctx context.Context) error {
				time.Sleep(5 * time.Second)
				return errDisk
			})},
			service.Member{Name: "other", Service: blocker(&other)})
		start := time.Now()
		err := g.Run(context.Background())
		if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "store") || !other {
			t.Fatalf("run = %v, other stopped %v", err, other)
		}
		if took := time.Since(start); took != 6*time.Second {
			t.Fatalf("took %s, want 5 s plus the other's 1 s to stop", took)
		}
	})
}

func TestFinishedMemberIsNotRestarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		runs := 0
		var other bool
		g := service.NewGroup(service.GroupConfig{},
			service.Member{Name: "once", Service: service.Func(func(ctx context.Context) error { runs++; return nil })},
			service.Member{Name: "other", Service: blocker(&other)})
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		if err := g.Run(ctx); err != nil || runs != 1 || !other {
			t.Fatalf("run = %v, %d runs, other stopped %v", err, runs, other)
		}
	})
}

func TestGroupsNest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var a bool
		inner := service.NewGroup(service.GroupConfig{}, service.Member{Name: "a", Service: blocker(&a)})
		outer := service.NewGroup(service.GroupConfig{}, service.Member{Name: "inner", Service: inner})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := outer.Run(ctx); err != nil || !a {
			t.Fatalf("run = %v, a stopped %v", err, a)
		}
	})
}
