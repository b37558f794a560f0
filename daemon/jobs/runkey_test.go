package jobs_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/store"
)

// RunKey runs one job by its key in the caller's goroutine, when it is
// queued and due, and records the attempt like the dispatcher would.
func TestRunKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st := openStore(t, t.TempDir())
		defer st.Close()
		hold, release := make(chan struct{}), make(chan struct{})
		r, err := jobs.New(jobs.Config{Store: st, Kinds: []jobs.Kind{{Name: "thumbs",
			Retry: jobs.Policy{Base: time.Minute, MaxFailures: 2},
			Handler: func(ctx context.Context, j jobs.Job) error {
				switch j.Key {
				case "bad":
					return errors.New("corrupt")
				case "slow":
					close(hold)
					<-release
				}
				return nil
			}}}})
		if err != nil {
			t.Fatal(err)
		}
		ids, err := st.Jobs().Enqueue(ctx, store.JobSpec{Kind: "thumbs", Key: "good"},
			store.JobSpec{Kind: "thumbs", Key: "bad"}, store.JobSpec{Kind: "thumbs", Key: "slow"})
		if err != nil {
			t.Fatal(err)
		}
		// The runner is not running: RunKey does not need it.
		run := func(key string) (jobs.KeyRun, error) {
			t.Helper()
			return r.RunKey(ctx, "thumbs", key)
		}
		if got, err := run("good"); got != jobs.KeyRan || err != nil {
			t.Fatalf("a due job: %v, %v", got, err)
		}
		if j := getJob(t, st, ids[0]); j.Status != store.JobDone || j.Tries != 1 {
			t.Fatalf("after running it: %+v", j)
		}
		if got, err := run("good"); got != jobs.KeyNone || err != nil {
			t.Fatalf("a done job: %v, %v", got, err)
		}
		if got, err := run("bad"); got != jobs.KeyRan || err == nil {
			t.Fatalf("a failing job: %v, %v", got, err)
		}
		if got, err := run("bad"); got != jobs.KeyWaiting || err != nil {
			t.Fatalf("a job waiting for its retry: %v, %v", got, err)
		}
		time.Sleep(time.Minute)
		if got, err := run("bad"); got != jobs.KeyRan || err == nil {
			t.Fatalf("the retry: %v, %v", got, err)
		}
		if j := getJob(t, st, ids[1]); j.Status != store.JobFailed || j.Failures != 2 {
			t.Fatalf("after its limit: %+v", j)
		}
		if got, err := run("bad"); got != jobs.KeyNone || err != nil {
			t.Fatalf("a set-aside job: %v, %v", got, err)
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			if got, err := run("slow"); got != jobs.KeyRan || err != nil {
				t.Errorf("the slow job: %v, %v", got, err)
			}
		})
		<-hold
		if got, err := run("slow"); got != jobs.KeyBusy || err != nil {
			t.Fatalf("a job another attempt holds: %v, %v", got, err)
		}
		close(release)
		wg.Wait()
		if _, err := r.RunKey(ctx, "other", "x"); err == nil {
			t.Fatal("an unregistered kind was run")
		}
	})
}

// A job whose last attempt died with the process runs alone under
// DiedAlone: nothing else of its kind runs beside it.
func TestDiedAloneRunsAlone(t *testing.T) {
	for _, alone := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			st := openStore(t, dir)
			var specs []store.JobSpec
			for range 4 {
				specs = append(specs, store.JobSpec{Kind: "decode"})
			}
			if _, err := st.Jobs().Enqueue(ctx, specs...); err != nil {
				t.Fatal(err)
			}
			// Two were being decoded when the process died.
			for range 2 {
				if c, err := st.Jobs().Claim(ctx, "decode", store.JobLimits{}); err != nil || !c.Claimed {
					t.Fatalf("claim: %+v, %v", c, err)
				}
			}
			// They are due again at the next start, after the two
			// fresh ones: the dispatcher claims those first.
			time.Sleep(time.Second)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			st = openStore(t, dir)
			defer st.Close()
			var (
				mu      sync.Mutex
				running int // attempts running
				died    int // of which jobs whose last attempt died
				beside  int // starts that overlapped a died job's attempt
			)
			r, _ := start(t, st, jobs.Kind{Name: "decode", Concurrency: 3, DiedAlone: alone,
				Handler: func(ctx context.Context, j jobs.Job) error {
					// Overlap is judged when an attempt starts, while the
					// others started with it are still asleep: judged at
					// the end, attempts ending at the same instant could
					// be counted in either order.
					mu.Lock()
					running++
					if j.Deaths > 0 {
						died++
					}
					if (j.Deaths > 0 && running > 1) || (j.Deaths == 0 && died > 0) {
						beside++
					}
					mu.Unlock()
					time.Sleep(time.Second)
					mu.Lock()
					running--
					if j.Deaths > 0 {
						died--
					}
					mu.Unlock()
					return nil
				}})
			waitIdle(t, r)
			if alone && beside != 0 {
				t.Fatalf("%d attempts ran beside a job that died", beside)
			}
			if !alone && beside == 0 {
				t.Fatal("without DiedAlone the jobs ran one at a time: the test shows nothing")
			}
		})
	}
}
