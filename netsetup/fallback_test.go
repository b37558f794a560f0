package netsetup_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/netsetup"
)

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
				w, nm := newWiFi(t)
				nm.inRange = []fakeAP{{ssid: "Home", signal: 80, security: "WPA2", password: "letmein123"}}
				nm.active[netsetup.DefaultConnection] = "activated"
				var logs lockedBuffer
				fb := netsetup.NewFallback(netsetup.FallbackConfig{Link: w, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
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
