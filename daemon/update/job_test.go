package update_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"eventbox/daemon/jobs"
	"eventbox/daemon/update"
	"eventbox/store"
)

// TestUpdateJob runs the update job kind on the real job runner over a
// real store: an installed release restarts the daemon, a release the
// host refuses is set aside at its first failure, a host that fails is
// retried, and a job for the running version is done without a download.
func TestUpdateJob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		running string
		// host changes what the release host serves after the manifest
		// was signed, and may point the binary elsewhere.
		host        func(r *release, b *update.Binary)
		wantErr     bool
		permanent   bool
		wantStatus  store.JobStatus
		wantRestart int32
		wantHistory int
	}{
		{name: "an installed release restarts the daemon", running: "1.0.0",
			wantStatus: store.JobDone, wantRestart: 1, wantHistory: 1},
		{name: "a binary the host does not have is set aside at once", running: "1.0.0",
			host:    func(r *release, _ *update.Binary) { delete(r.files, "eventbox-amd64-1.1.0") },
			wantErr: true, permanent: true, wantStatus: store.JobFailed, wantHistory: 1},
		{name: "a host that fails is tried again later", running: "1.0.0",
			host: func(_ *release, b *update.Binary) {
				down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					http.Error(w, "busy", http.StatusServiceUnavailable)
				}))
				t.Cleanup(down.Close)
				b.URL = down.URL + "/eventbox"
			},
			wantErr: true, wantStatus: store.JobQueued, wantHistory: 1},
		{name: "a job for the running version is done without a download", running: "1.1.0",
			host:       func(r *release, _ *update.Binary) { delete(r.files, "eventbox-amd64-1.1.0") },
			wantStatus: store.JobDone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r := newRelease(t)
			u := newUpdater(t, r, t.TempDir(), tc.running)
			r.publish(t, "1.1.0", "amd64", script("1.1.0"))
			m, err := u.Fetch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			bin, ok := u.Available(m)
			if tc.running == "1.0.0" && !ok {
				t.Fatal("1.1.0 not available")
			}
			if !ok {
				bin = m.Binaries["amd64"]
			}
			if tc.host != nil {
				tc.host(r, &bin)
			}
			st, err := store.Open(ctx, t.TempDir(), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var restarts atomic.Int32
			w := update.NewWorker(update.WorkerConfig{Updater: u, Version: tc.running,
				Restart: func() { restarts.Add(1) }, Logger: slog.New(slog.DiscardHandler)})
			runner, err := jobs.New(jobs.Config{Store: st, Logger: slog.New(slog.DiscardHandler), Kinds: []jobs.Kind{w.Kind()}})
			if err != nil {
				t.Fatal(err)
			}
			payload, err := json.Marshal(update.JobPayload{Version: m.Version, Binary: bin, Release: m.Signed})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := runner.Enqueue(ctx, store.JobSpec{Kind: update.JobKind, Key: update.JobKind, Payload: payload}); err != nil {
				t.Fatal(err)
			}
			ran, err := runner.RunKey(ctx, update.JobKind, update.JobKind)
			if ran != jobs.KeyRan {
				t.Fatalf("RunKey: %v, %v; want the attempt run", ran, err)
			}
			if (err != nil) != tc.wantErr || (err != nil && update.Refusal(err) != tc.permanent) {
				t.Errorf("attempt: %v; want an error %v, a refusal %v", err, tc.wantErr, tc.permanent)
			}
			page, err := st.Jobs().List(ctx, store.JobFilter{Kind: update.JobKind, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Jobs) != 1 || page.Jobs[0].Status != tc.wantStatus {
				var got []store.JobStatus
				for _, j := range page.Jobs {
					got = append(got, j.Status)
				}
				t.Errorf("update jobs %v; want one %s", got, tc.wantStatus)
			}
			if got := restarts.Load(); got != tc.wantRestart {
				t.Errorf("%d restarts; want %d", got, tc.wantRestart)
			}
			state, err := u.State()
			if err != nil {
				t.Fatal(err)
			}
			if len(state.History) != tc.wantHistory {
				t.Errorf("history %+v; want %d attempts", state.History, tc.wantHistory)
			}
			if tc.wantErr && (len(state.History) == 0 || state.History[0].Status != update.StatusFailed) {
				t.Errorf("history %+v; want the attempt recorded as failed", state.History)
			}
		})
	}
}
