package netsetup_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/netsetup"
)

// watchedWiFi is a box on its hotspot with the home network "Home"
// (password letmein123) in range, and a fall-back watcher over its Wi-Fi
// that logs to logs (not running yet).
func watchedWiFi(t *testing.T, logs *lockedBuffer) (netsetup.WiFi, *fakeNM, *netsetup.Fallback) {
	t.Helper()
	w, nm := newWiFi(t)
	nm.inRange = []fakeAP{{ssid: "Home", signal: 80, security: "WPA2", password: "letmein123"}}
	nm.active[netsetup.DefaultConnection] = "activated"
	fb := netsetup.NewFallback(netsetup.FallbackConfig{Link: w, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	return w, nm, fb
}

// TestFallbackBringsTheHotspotBack runs the watcher against the
// NetworkManager stand-in in a synctest bubble, whose clock moves only when
// every goroutine waits: two minutes pass in no time.
func TestFallbackBringsTheHotspotBack(t *testing.T) {
	type step struct {
		at       time.Duration // since the join
		do       func(nm *fakeNM)
		wantSpot bool // the hotspot is up after this step
	}
	tests := []struct {
		name     string
		password string
		steps    []step
		wantLog  string
	}{
		{
			name: "a wrong password: back on the hotspot two minutes after the join", password: "wrongpass1",
			steps: []step{
				{at: 1*time.Minute + 55*time.Second, wantSpot: false},
				{at: 2*time.Minute + 5*time.Second, wantSpot: true},
			},
			wantLog: "not connected 2m0s after joining",
		},
		{
			name: "the right password: the home Wi-Fi stays", password: "letmein123",
			steps: []step{{at: 10 * time.Minute, wantSpot: false}},
		},
		{
			name: "a short loss is waited out", password: "letmein123",
			steps: []step{
				{at: time.Minute, do: (*fakeNM).lose},
				{at: 2*time.Minute + 30*time.Second, do: func(nm *fakeNM) {
					nm.mu.Lock()
					nm.active[netsetup.DefaultHomeConnection] = "activated"
					nm.mu.Unlock()
				}},
				{at: 10 * time.Minute, wantSpot: false},
			},
		},
		{
			name: "the home Wi-Fi lost for two minutes", password: "letmein123",
			steps: []step{
				{at: 5 * time.Minute, do: (*fakeNM).lose},
				{at: 6*time.Minute + 55*time.Second, wantSpot: false},
				{at: 7*time.Minute + 5*time.Second, wantSpot: true},
			},
			wantLog: "lost for 2m0s",
		},
		{
			name: "a failure to bring the hotspot up is tried again", password: "wrongpass1",
			steps: []step{
				{at: 0, do: func(nm *fakeNM) { nm.setFail("nmcli connection up eventbox-hotspot", "Error: device busy") }},
				{at: 2*time.Minute + 5*time.Second, wantSpot: false, do: func(nm *fakeNM) { nm.setFail("nmcli connection up eventbox-hotspot", "") }},
				{at: 2*time.Minute + 15*time.Second, wantSpot: true},
			},
			wantLog: "bringing the hotspot back failed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var logs lockedBuffer
				w, nm, fb := watchedWiFi(t, &logs)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error)
				go func() { done <- fb.Run(ctx) }()

				start := time.Now()
				fb.Joined("Home")
				_ = w.Join(ctx, "Home", tc.password) // a failure is the watcher's to handle
				for _, s := range tc.steps {
					time.Sleep(time.Until(start.Add(s.at)))
					synctest.Wait()
					if s.do != nil {
						s.do(nm)
					}
					if s.at == 0 {
						continue
					}
					if got := nm.isActive(netsetup.DefaultConnection); got != s.wantSpot {
						t.Errorf("at %v after the join: hotspot up = %v, want %v\n%s", s.at, got, s.wantSpot, logs.String())
					}
				}
				if tc.wantLog != "" && !strings.Contains(logs.String(), tc.wantLog) {
					t.Errorf("log lacks %q:\n%s", tc.wantLog, logs.String())
				}
				if tc.wantLog == "" && logs.String() != "" {
					t.Errorf("log = %q, want nothing", logs.String())
				}
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Run = %v, want nil once cancelled", err)
				}
			})
		})
	}
}

// TestFallbackCountsTheHotspotNetworkManagerBroughtBack: a join with a
// wrong password fails, and NetworkManager puts the hotspot back on the
// radio by itself before the watcher's two minutes. The watcher counts
// that as the fall-back as soon as it sees the hotspot up (the Network
// screen says "back on the hotspot" instead of still watching) and never
// brings the active hotspot up again, which would drop the phones on it.
func TestFallbackCountsTheHotspotNetworkManagerBroughtBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		w, nm, fb := watchedWiFi(t, &logs)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = fb.Run(ctx) }()

		fb.Joined("Home")
		if err := w.Join(ctx, "Home", "wrongpass1"); err == nil {
			t.Fatal("the join with a wrong password succeeded")
		}
		fb.JoinFailed("Home")
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if s := fb.State(); s.FellBack != 0 || !s.Armed {
			t.Errorf("with the hotspot still down: %+v, want still watching", s)
		}
		// NetworkManager brings the hotspot back by itself.
		nm.mu.Lock()
		nm.active[netsetup.DefaultConnection] = "activated"
		nm.mu.Unlock()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if s := fb.State(); s.FellBack != 1 || s.Armed {
			t.Errorf("30 s after the failed join, the hotspot back: %+v, want fallen back once, no longer watching\n%s", s, logs.String())
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		ups := 0
		for _, c := range nm.ran() {
			if c == "nmcli connection up "+netsetup.DefaultConnection {
				ups++
			}
		}
		if ups != 0 {
			t.Errorf("the watcher brought the active hotspot up %d times; want never (%v)", ups, nm.ran())
		}
		if !strings.Contains(logs.String(), "could not be joined and the hotspot is back") {
			t.Errorf("log lacks the fall-back:\n%s", logs.String())
		}
	})
}

// joinDuring is a home link whose HotspotActive answers while, at that
// very moment, the hosts start another join of the same network.
type joinDuring struct {
	fb   *netsetup.Fallback
	once bool
}

func (l *joinDuring) HomeConnected(context.Context) (bool, error) { return false, nil }
func (l *joinDuring) HotspotUp(context.Context) error             { return nil }
func (l *joinDuring) HotspotActive(context.Context) (bool, error) {
	if !l.once {
		l.once = true
		l.fb.Joined("Home") // the right password this time
	}
	return true, nil
}

// TestFallbackKeepsWatchingANewJoin: the watcher saw a failed join and,
// while it asks whether the hotspot is back, the hosts join the same
// network again. The new join is watched: what the watcher saw was of the
// old one.
func TestFallbackKeepsWatchingANewJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		link := &joinDuring{}
		fb := netsetup.NewFallback(netsetup.FallbackConfig{Link: link, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		link.fb = fb
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = fb.Run(ctx) }()
		fb.Joined("Home")
		fb.JoinFailed("Home")
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if s := fb.State(); !s.Armed || s.FellBack != 0 {
			t.Errorf("after a new join of the same network during the check: %+v, want watching the new join, no fall-back", s)
		}
	})
}

func TestFallbackDoesNothingUnlessArmed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, nm := newWiFi(t)
		fb := netsetup.NewFallback(netsetup.FallbackConfig{Link: w, Logger: quietLogger()})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = fb.Run(ctx) }()

		time.Sleep(10 * time.Minute)
		synctest.Wait()
		fb.Joined("Home")
		fb.Disarm()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if calls := nm.ran(); len(calls) != 0 {
			t.Errorf("ran %q while not armed", calls)
		}
		if st := fb.State(); st.Armed || st.FellBack != 0 {
			t.Errorf("State = %+v, want disarmed and no fall-back", st)
		}
	})
}
