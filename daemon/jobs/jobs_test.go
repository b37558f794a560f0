package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/daemon/service"
	"eventbox/store"
)

var _ service.Service = (*jobs.Runner)(nil)

// These tests run inside testing/synctest bubbles: the store's clock and
// the runner's timers are the bubble's fake time, which moves only when
// every goroutine waits, so backoffs of hours take no real time.

func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// start runs a runner over st until the returned stop is called (or the
// test ends).
func start(t *testing.T, st *store.Store, kinds ...jobs.Kind) (*jobs.Runner, func()) {
	t.Helper()
	r, err := jobs.New(jobs.Config{Store: st, Kinds: kinds})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return r, stop
}

func waitIdle(t *testing.T, rs ...*jobs.Runner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 24*time.Hour)
	defer cancel()
	for _, r := range rs {
		if err := r.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func getJob(t *testing.T, st *store.Store, id uint64) store.Job {
	t.Helper()
	j, err := st.Jobs().Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// counter counts handler calls by job id.
type counter struct {
	mu    sync.Mutex
	calls map[uint64]int
}

func (c *counter) add(id uint64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[uint64]int{}
	}
	c.calls[id]++
	return c.calls[id]
}

func (c *counter) get(id uint64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[id]
}

func TestJobRunsAfterARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		st := openStore(t, dir)
		ids, err := st.Jobs().Enqueue(context.Background(), store.JobSpec{Kind: "mail", Payload: []byte(`{"to":"ana@example.org"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		st = openStore(t, dir)
		defer st.Close()
		var got string
		r, stop := start(t, st, jobs.Kind{Name: "mail", Handler: func(ctx context.Context, j jobs.Job) error {
			var p struct{ To string }
			if err := j.Decode(&p); err != nil {
				return err
			}
			got = p.To
			j.SetResult("250 queued")
			return nil
		}})
		waitIdle(t, r)
		stop()
		j := getJob(t, st, ids[0])
		if got != "ana@example.org" || j.Status != store.JobDone || j.Attempts[0].Result != "250 queued" {
			t.Fatalf("handler saw %q; job %+v", got, j)
		}
	})
}

func TestFailingJobBacksOffAndIsSetAside(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		policy := jobs.Policy{Base: time.Second, Cap: 8 * time.Second, Jitter: 0.2, MaxFailures: 7}
		var calls counter
		r, _ := start(t, st, jobs.Kind{Name: "hook", Retry: policy, Handler: func(ctx context.Context, j jobs.Job) error {
			return fmt.Errorf("refused %d", calls.add(j.ID))
		}})
		ids, err := r.Enqueue(context.Background(), store.JobSpec{Kind: "hook"})
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(t, r)
		if j := getJob(t, st, ids[0]); j.Status != store.JobQueued || j.Failures != 1 {
			t.Fatalf("after one failure: %+v", j)
		}
		time.Sleep(time.Minute) // more than 1+2+4+8+8+8 s
		waitIdle(t, r)
		j := getJob(t, st, ids[0])
		if j.Status != store.JobFailed || j.Failures != 7 || len(j.Attempts) != 7 || calls.get(j.ID) != 7 {
			t.Fatalf("after a minute: status %s, %d failures, %d attempts, %d calls", j.Status, j.Failures, len(j.Attempts), calls.get(j.ID))
		}
		for i, a := range j.Attempts {
			if a.Outcome != store.OutcomeError || a.Error != fmt.Sprintf("refused %d", i+1) {
				t.Errorf("attempt %d: %+v", i+1, a)
			}
			if i == 0 {
				continue
			}
			full := min(time.Second<<(i-1), 8*time.Second)
			wait := time.Duration(a.Start-j.Attempts[i-1].End) * time.Millisecond
			if lo := time.Duration(0.8*float64(full)) - time.Millisecond; wait < lo || wait > full {
				t.Errorf("wait before attempt %d = %s, want within [%s, %s]", i+1, wait, lo, full)
			}
		}
		if !strings.HasPrefix(j.LastError, "refused 7") {
			t.Errorf("last error %q", j.LastError)
		}
	})
}

func TestDelayGrowsIsCappedAndJittered(t *testing.T) {
	p := jobs.Policy{Base: 10 * time.Second, Cap: time.Minute, Jitter: 0.5}
	tests := []struct {
		name     string
		failures int
		r        float64
		want     time.Duration
	}{
		{"first failure waits Base", 1, 0, 10 * time.Second},
		{"second failure doubles", 2, 0, 20 * time.Second},
		{"fourth failure is capped", 4, 0, time.Minute},
		{"a huge count stays capped", 500, 0, time.Minute},
		{"jitter takes off its share", 2, 0.5, 15 * time.Second},
		{"full jitter draw takes off Jitter", 4, 1, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Delay(tt.failures, tt.r); got != tt.want {
				t.Fatalf("Delay(%d, %v) = %s, want %s", tt.failures, tt.r, got, tt.want)
			}
		})
	}
	if got := (jobs.Policy{}).Delay(1, 0); got != jobs.DefaultBase {
		t.Fatalf("zero policy: %s", got)
	}
	if got := (jobs.Policy{Jitter: -1}).Delay(100, 0.99); got != jobs.DefaultCap {
		t.Fatalf("no jitter: %s", got)
	}
}

// A job in flight at a power cut (the store is closed while the job is
// claimed) counts a death; after MaxDeaths it is set aside without
// running again.
func TestJobDyingWithTheProcessIsSetAside(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		st := openStore(t, dir)
		ids, err := st.Jobs().Enqueue(context.Background(), store.JobSpec{Kind: "variants", Key: "p1"}, store.JobSpec{Kind: "variants", Key: "p2"})
		if err != nil {
			t.Fatal(err)
		}
		// p1 dies three times; p2 once.
		for death := range 3 {
			n := 1 // p1, first in due order
			if death == 0 {
				n = 2
			}
			for range n {
				if _, err := st.Jobs().Claim(context.Background(), "variants", store.JobLimits{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			st = openStore(t, dir)
		}
		defer st.Close()
		if d1, d2 := getJob(t, st, ids[0]).Deaths, getJob(t, st, ids[1]).Deaths; d1 != 3 || d2 != 1 {
			t.Fatalf("deaths %d and %d, want 3 and 1", d1, d2)
		}
		var calls counter
		r, _ := start(t, st, jobs.Kind{Name: "variants", Retry: jobs.Policy{MaxDeaths: 3},
			Handler: func(ctx context.Context, j jobs.Job) error { calls.add(j.ID); return nil }})
		waitIdle(t, r)
		if j := getJob(t, st, ids[0]); j.Status != store.JobFailed || calls.get(ids[0]) != 0 {
			t.Fatalf("job that died 3 times: status %s, ran %d times", j.Status, calls.get(ids[0]))
		}
		if j := getJob(t, st, ids[1]); j.Status != store.JobDone || calls.get(ids[1]) != 1 || j.Attempts[0].Outcome != store.OutcomeDied {
			t.Fatalf("job that died once: %+v, ran %d times", j, calls.get(ids[1]))
		}
	})
}

// Two runners on one store (as two dispatch loops would be), each with
// several workers, run every job exactly once.
func TestTwoRunnersNeverRunTheSameJob(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	var calls counter
	kind := jobs.Kind{Name: "hook", Concurrency: 4, Handler: func(ctx context.Context, j jobs.Job) error {
		calls.add(j.ID)
		return nil
	}}
	r1, _ := start(t, st, kind)
	r2, _ := start(t, st, kind)
	const n = 150
	var specs []store.JobSpec
	for i := range n {
		specs = append(specs, store.JobSpec{Kind: "hook", Payload: fmt.Appendf(nil, "%d", i)})
	}
	ids, err := r1.Enqueue(context.Background(), specs[:n/2]...)
	if err != nil {
		t.Fatal(err)
	}
	more, err := r2.Enqueue(context.Background(), specs[n/2:]...)
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(t, r1, r2)
	waitIdle(t, r1)
	for _, id := range append(ids, more...) {
		if c := calls.get(id); c != 1 {
			t.Fatalf("job %d ran %d times", id, c)
		}
	}
	page, err := st.Jobs().List(context.Background(), store.JobFilter{Status: store.JobDone, Limit: 1000})
	if err != nil || len(page.Jobs) != n {
		t.Fatalf("%d done jobs, want %d (%v)", len(page.Jobs), n, err)
	}
}

func TestWakeRunsAWaitingJobAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		var calls counter
		r, _ := start(t, st,
			jobs.Kind{Name: "hook", Retry: jobs.Policy{Base: time.Hour}, Handler: func(ctx context.Context, j jobs.Job) error {
				if calls.add(j.ID) == 1 {
					return errors.New("network unreachable")
				}
				return nil
			}},
			jobs.Kind{Name: "mail", Handler: func(ctx context.Context, j jobs.Job) error { return nil }})
		ids, err := r.Enqueue(context.Background(), store.JobSpec{Kind: "hook"})
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(t, r)
		t0 := time.Now()
		if j := getJob(t, st, ids[0]); j.Status != store.JobQueued || j.DueAt < t0.Add(45*time.Minute).UnixMilli() {
			t.Fatalf("after the failure the job waits about an hour: %+v", j)
		}
		if n, err := r.Wake(context.Background(), "mail"); err != nil || n != 0 {
			t.Fatalf("waking another kind: %d %v", n, err)
		}
		n, err := r.Wake(context.Background())
		if err != nil || n != 1 {
			t.Fatalf("wake: %d %v", n, err)
		}
		waitIdle(t, r)
		if j := getJob(t, st, ids[0]); j.Status != store.JobDone || calls.get(ids[0]) != 2 {
			t.Fatalf("after wake: %+v", j)
		}
		if waited := time.Since(t0); waited != 0 {
			t.Fatalf("the woken job ran after %s, want at once", waited)
		}
	})
}

func TestASuccessWakesTheWaitingJobsOfWakeOnSuccessKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		var calls counter
		down := true
		var mu sync.Mutex
		flaky := func(ctx context.Context, j jobs.Job) error {
			calls.add(j.ID)
			mu.Lock()
			defer mu.Unlock()
			if down {
				return errors.New("network unreachable")
			}
			return nil
		}
		slow := jobs.Policy{Base: time.Hour}
		r, _ := start(t, st,
			jobs.Kind{Name: "webhook", Retry: slow, WakeOnSuccess: true, Handler: flaky},
			jobs.Kind{Name: "mail", Retry: slow, WakeOnSuccess: true, Handler: flaky},
			jobs.Kind{Name: "export", Retry: slow, Handler: flaky})
		ids, err := r.Enqueue(context.Background(),
			store.JobSpec{Kind: "mail"}, store.JobSpec{Kind: "export"})
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(t, r)
		t0 := time.Now()
		mu.Lock()
		down = false
		mu.Unlock()
		// A new delivery goes through at its first try: the network is back.
		if _, err := r.Enqueue(context.Background(), store.JobSpec{Kind: "webhook"}); err != nil {
			t.Fatal(err)
		}
		waitIdle(t, r)
		if j := getJob(t, st, ids[0]); j.Status != store.JobDone || calls.get(ids[0]) != 2 {
			t.Fatalf("the waiting mail was not woken by the webhook's success: %+v", j)
		}
		if j := getJob(t, st, ids[1]); j.Status != store.JobQueued || calls.get(ids[1]) != 1 {
			t.Fatalf("an export (no WakeOnSuccess) was woken: %+v", j)
		}
		if waited := time.Since(t0); waited != 0 {
			t.Fatalf("the woken mail ran after %s, want at once", waited)
		}
	})
}

func TestConcurrencyIsPerKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		var mu sync.Mutex
		active, peak := map[string]int{}, map[string]int{}
		peakAll := 0
		handler := func(ctx context.Context, j jobs.Job) error {
			mu.Lock()
			active[j.Kind]++
			peak[j.Kind] = max(peak[j.Kind], active[j.Kind])
			peakAll = max(peakAll, active["export"]+active["mail"])
			mu.Unlock()
			time.Sleep(time.Second)
			mu.Lock()
			active[j.Kind]--
			mu.Unlock()
			return nil
		}
		r, _ := start(t, st,
			jobs.Kind{Name: "mail", Concurrency: 3, Handler: handler},
			jobs.Kind{Name: "export", Handler: handler})
		var specs []store.JobSpec
		for range 10 {
			specs = append(specs, store.JobSpec{Kind: "mail"}, store.JobSpec{Kind: "export"})
		}
		if _, err := r.Enqueue(context.Background(), specs...); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		waitIdle(t, r)
		if peak["mail"] != 3 || peak["export"] != 1 || peakAll != 4 {
			t.Fatalf("peaks mail %d export %d together %d, want 3, 1, 4", peak["mail"], peak["export"], peakAll)
		}
		if took := time.Since(t0); took != 10*time.Second {
			t.Fatalf("took %s, want 10 s (export one at a time, mail alongside)", took)
		}
	})
}

func TestHandlerAnswers(t *testing.T) {
	tests := []struct {
		name        string
		handler     jobs.Handler
		wantStatus  store.JobStatus
		wantOutcome store.Outcome
		wantDueIn   time.Duration // for a queued job, exactly
	}{
		{"a permanent error stops retries", func(ctx context.Context, j jobs.Job) error {
			return jobs.Permanent(errors.New("550 no such user"))
		}, store.JobFailed, store.OutcomePermanent, 0},
		{"a payload that does not decode is permanent", func(ctx context.Context, j jobs.Job) error {
			var n int
			return j.Decode(&n)
		}, store.JobFailed, store.OutcomePermanent, 0},
		{"RetryAfter chooses the wait", func(ctx context.Context, j jobs.Job) error {
			return jobs.RetryAfter(5*time.Minute, errors.New("429 slow down"))
		}, store.JobQueued, store.OutcomeError, 5 * time.Minute},
		{"a panic is a failure, retried", func(ctx context.Context, j jobs.Job) error {
			panic("boom")
		}, store.JobQueued, store.OutcomeError, -1},
		{"an attempt past Timeout fails and is retried", func(ctx context.Context, j jobs.Job) error {
			<-ctx.Done()
			return ctx.Err()
		}, store.JobQueued, store.OutcomeError, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := openStore(t, t.TempDir())
				defer st.Close()
				var calls counter
				r, _ := start(t, st, jobs.Kind{Name: "hook", Retry: jobs.Policy{Base: time.Hour, Timeout: 30 * time.Second},
					Handler: func(ctx context.Context, j jobs.Job) error {
						calls.add(j.ID)
						return tt.handler(ctx, j)
					}})
				ids, err := r.Enqueue(context.Background(), store.JobSpec{Kind: "hook", Payload: []byte(`"text"`)})
				if err != nil {
					t.Fatal(err)
				}
				waitIdle(t, r)
				j := getJob(t, st, ids[0])
				a := j.Attempts[len(j.Attempts)-1]
				if j.Status != tt.wantStatus || a.Outcome != tt.wantOutcome || calls.get(j.ID) != 1 || a.Error == "" {
					t.Fatalf("status %s outcome %s calls %d error %q", j.Status, a.Outcome, calls.get(j.ID), a.Error)
				}
				if tt.wantDueIn > 0 && j.DueAt != a.End+tt.wantDueIn.Milliseconds() {
					t.Fatalf("due %d ms after the attempt, want %s", j.DueAt-a.End, tt.wantDueIn)
				}
				if j.Status == store.JobFailed {
					time.Sleep(3 * time.Hour) // past when a retry would have come
					waitIdle(t, r)
					if calls.get(j.ID) != 1 {
						t.Fatalf("a set-aside job ran again")
					}
				}
			})
		})
	}
}

// Stopping the runner cancels a running attempt: it is recorded as
// interrupted, not charged, and the next run resumes from its progress.
func TestShutdownInterruptsAndTheNextRunResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		type state struct{ Next int }
		var resumedAt int
		export := func(block bool) jobs.Kind {
			return jobs.Kind{Name: "export", Handler: func(ctx context.Context, j jobs.Job) error {
				var s state
				if j.Progress != nil {
					if err := json.Unmarshal(j.Progress.State, &s); err != nil {
						return err
					}
				}
				resumedAt = s.Next
				for i := s.Next; i < 10; i++ {
					if block && i == 4 {
						<-ctx.Done()
						return ctx.Err()
					}
					if err := j.Report(ctx, store.JobProgress{Done: int64(i + 1), Total: 10,
						State: fmt.Appendf(nil, `{"Next":%d}`, i+1)}); err != nil {
						return err
					}
				}
				return nil
			}}
		}
		r, stop := start(t, st, export(true))
		ids, err := r.Enqueue(context.Background(), store.JobSpec{Kind: "export"})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		stop()
		j := getJob(t, st, ids[0])
		if j.Status != store.JobQueued || j.Failures != 0 || j.Attempts[0].Outcome != store.OutcomeInterrupted || j.Progress.Done != 4 {
			t.Fatalf("after shutdown: %+v", j)
		}
		r2, _ := start(t, st, export(false))
		waitIdle(t, r2)
		j = getJob(t, st, ids[0])
		if j.Status != store.JobDone || resumedAt != 4 || j.Progress.Done != 10 || j.Progress.Total != 10 {
			t.Fatalf("after the second run: resumed at %d, %+v", resumedAt, j)
		}
	})
}

func TestNewRejectsBadKinds(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	ok := func(context.Context, jobs.Job) error { return nil }
	tests := []struct {
		name  string
		kinds []jobs.Kind
	}{
		{"an invalid name", []jobs.Kind{{Name: "Mail", Handler: ok}}},
		{"no handler", []jobs.Kind{{Name: "mail"}}},
		{"a name twice", []jobs.Kind{{Name: "mail", Handler: ok}, {Name: "mail", Handler: ok}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := jobs.New(jobs.Config{Store: st, Kinds: tt.kinds}); err == nil {
				t.Fatal("no error")
			}
		})
	}
	r, err := jobs.New(jobs.Config{Store: st, Kinds: []jobs.Kind{{Name: "mail", Handler: ok}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Enqueue(context.Background(), store.JobSpec{Kind: "hook"}); err == nil {
		t.Fatal("enqueued a kind the runner does not know")
	}
}

// TestRegisterAddsKindsBeforeRun registers kinds after New, as the
// daemon's services do with the runner they are given: a registered kind
// takes jobs, a name already there is refused, and nothing is registered
// once Run runs.
func TestRegisterAddsKindsBeforeRun(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	ok := func(context.Context, jobs.Job) error { return nil }
	r, err := jobs.New(jobs.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := r.Enqueue(ctx, store.JobSpec{Kind: "mail", Key: "a"}); err == nil {
		t.Fatal("enqueued before the kind was registered")
	}
	if err := r.Register(jobs.Kind{Name: "mail", Handler: ok}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(jobs.Kind{Name: "mail", Handler: ok}); err == nil {
		t.Fatal("registered a name twice")
	}
	if _, err := r.Enqueue(ctx, store.JobSpec{Kind: "mail", Key: "a"}); err != nil {
		t.Fatalf("enqueue after Register: %v", err)
	}
	if got := r.Kinds(); len(got) != 1 || got[0] != "mail" {
		t.Fatalf("kinds %v", got)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = r.Run(runCtx); close(done) }()
	defer func() { cancel(); <-done }()
	if err := r.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(jobs.Kind{Name: "hook", Handler: ok}); err == nil {
		t.Fatal("registered a kind while the runner runs")
	}
}
