package network_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/daemon/network"
	"eventbox/daemon/web"
	"eventbox/netsetup"
	"eventbox/netsetup/nmtest"
	"eventbox/store"
)

// noJobs is a job store with no jobs.
type noJobs struct{}

func (noJobs) List(context.Context, store.JobFilter) (store.JobPage, error) {
	return store.JobPage{}, nil
}

// serve calls one of the API's handlers as the router would.
func serve(t *testing.T, h web.HandlerFunc, method, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res := httptest.NewRecorder()
	if err := h(res, req); err != nil {
		web.WriteError(slog.New(slog.NewTextHandler(io.Discard, nil)), res, req, err)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Body.Bytes(), &out); err != nil {
		t.Fatalf("answer %q: %v", res.Body, err)
	}
	return res.Code, out
}

// TestJoinFallsBackToTheHotspot joins a home Wi-Fi through the route, with
// the fall-back watcher running, in a synctest bubble whose clock moves
// only when every goroutine waits: minutes pass in no time.
func TestJoinFallsBackToTheHotspot(t *testing.T) {
	home := nmtest.AP{SSID: "Home", Security: "WPA2", Password: "homepass99", Signal: 80}
	type step struct {
		at       time.Duration // since the join
		do       func(nm *nmtest.NM, api *network.API)
		wantSpot bool // the hotspot is up after this step
	}
	tests := []struct {
		name         string
		password     string
		steps        []step
		wantFellBack float64
		wantError    bool // the state names why the join failed
	}{
		{
			name: "a wrong password: the hotspot is back two minutes after the join", password: "wrongpass1",
			steps: []step{
				{at: 5 * time.Second, wantSpot: false},
				{at: 1*time.Minute + 55*time.Second, wantSpot: false},
				{at: 2*time.Minute + 5*time.Second, wantSpot: true},
			},
			wantFellBack: 1, wantError: true,
		},
		{
			name: "the right password: the box stays on the home Wi-Fi", password: "homepass99",
			steps: []step{{at: 10 * time.Minute, wantSpot: false}},
		},
		{
			name: "the home Wi-Fi lost for two minutes: the hotspot is back", password: "homepass99",
			steps: []step{
				// Between two looks (every 5 s), so that the last look
				// that saw it up is at 5:00 whatever runs first.
				{at: 5*time.Minute + 2*time.Second, do: func(nm *nmtest.NM, _ *network.API) { nm.Lose() }},
				{at: 6*time.Minute + 55*time.Second, wantSpot: false},
				{at: 7*time.Minute + 5*time.Second, wantSpot: true},
			},
			wantFellBack: 1,
		},
		{
			name: "back to the hotspot by hand: the watch stops", password: "wrongpass1",
			steps: []step{
				{at: 30 * time.Second, wantSpot: true, do: func(nm *nmtest.NM, api *network.API) {
					if code, _ := serve(t, api.Back, "POST", ""); code != http.StatusOK {
						t.Errorf("back answered %d", code)
					}
				}},
				{at: 10 * time.Minute, wantSpot: true},
			},
			wantError: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				nm := nmtest.New()
				nm.InRange = []nmtest.AP{home}
				logger := slog.New(slog.NewTextHandler(io.Discard, nil))
				api := network.New(network.Config{
					Box:  network.NM{WiFi: netsetup.WiFi{Runner: nm, Logger: logger}, TmpDir: t.TempDir()},
					Jobs: noJobs{}, Logger: logger,
				})
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error)
				go func() { done <- api.Fallback().Run(ctx) }()
				start := time.Now()
				code, got := serve(t, api.Join, "POST", `{"ssid":"Home","password":"`+tc.password+`"}`)
				if code != http.StatusAccepted || got["ssid"] != "Home" {
					t.Fatalf("join answered %d %v", code, got)
				}
				api.WaitJoins()
				for _, s := range tc.steps {
					time.Sleep(time.Until(start.Add(s.at)))
					if s.do != nil {
						s.do(nm, api)
					}
					synctest.Wait()
					if up := nm.IsActive(netsetup.DefaultConnection); up != s.wantSpot {
						t.Errorf("at %v: hotspot up = %v, want %v", s.at, up, s.wantSpot)
					}
				}
				_, st := serve(t, api.State, "GET", "")
				if g := at(st, "home.fellBack"); g != tc.wantFellBack {
					t.Errorf("home.fellBack = %v, want %v", g, tc.wantFellBack)
				}
				if g, _ := at(st, "home.error").(string); (g != "") != tc.wantError {
					t.Errorf("home.error = %q, want an error: %v", g, tc.wantError)
				}
				for _, c := range nm.Calls() {
					if strings.Contains(c, tc.password) {
						t.Errorf("the password is on a command line: %q", c)
					}
				}
				if _, psk, _ := nm.Home(); psk != tc.password {
					t.Errorf("NetworkManager keeps the password %q, want %q", psk, tc.password)
				}
				cancel()
				if err := <-done; err != nil {
					t.Errorf("fall-back: %v", err)
				}
			})
		})
	}
}
