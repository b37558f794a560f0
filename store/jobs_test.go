package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"eventbox/store"
)

var noLimits = store.JobLimits{}

func enqueue(t *testing.T, st *store.Store, specs ...store.JobSpec) []uint64 {
	t.Helper()
	ids, err := st.Jobs().Enqueue(context.Background(), specs...)
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	return ids
}

func claim(t *testing.T, st *store.Store, kind string, lim store.JobLimits) store.JobClaim {
	t.Helper()
	c, err := st.Jobs().Claim(context.Background(), kind, lim)
	if err != nil {
		t.Fatalf("claim %s: %v", kind, err)
	}
	return c
}

func job(t *testing.T, st *store.Store, id uint64) store.Job {
	t.Helper()
	j, err := st.Jobs().Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestJobSurvivesReopen(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	ids := enqueue(t, st, store.JobSpec{Kind: "mail", Payload: []byte(`{"to":"ana@example.org"}`)})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, c)
	defer st.Close()
	got := claim(t, st, "mail", noLimits)
	if !got.Claimed || got.Job.ID != ids[0] || string(got.Job.Payload) != `{"to":"ana@example.org"}` {
		t.Fatalf("claim after reopen = %+v", got)
	}
	if got.Job.Status != store.JobRunning || got.Job.Tries != 1 || len(got.Job.Attempts) != 1 ||
		got.Job.Attempts[0].Outcome != store.OutcomeRunning || got.Job.Attempts[0].Start != c.Now().UnixMilli() {
		t.Fatalf("claimed job = %+v", got.Job)
	}
}

func TestClaimTakesDueJobsOfOneKindInDueOrder(t *testing.T) {
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	now := c.Now()
	ids := enqueue(t, st,
		store.JobSpec{Kind: "mail", RunAt: now.Add(2 * time.Minute)},
		store.JobSpec{Kind: "mail"},
		store.JobSpec{Kind: "mailx"}, // a kind whose name starts like another's
		store.JobSpec{Kind: "mail", RunAt: now.Add(-time.Minute)},
		store.JobSpec{Kind: "mail"},
	)
	var order []uint64
	for {
		cl := claim(t, st, "mail", noLimits)
		if !cl.Claimed {
			if !cl.Waiting || cl.Next != 2*time.Minute {
				t.Fatalf("after the due jobs: waiting %v next %v, want a job in 2m", cl.Waiting, cl.Next)
			}
			break
		}
		order = append(order, cl.Job.ID)
	}
	if want := []uint64{ids[3], ids[1], ids[4]}; !slices.Equal(order, want) {
		t.Fatalf("claim order %v, want %v (due order, then enqueue order)", order, want)
	}
	c.Advance(2 * time.Minute)
	if cl := claim(t, st, "mail", noLimits); !cl.Claimed || cl.Job.ID != ids[0] {
		t.Fatalf("the later job is due now: %+v", cl)
	}
	if cl := claim(t, st, "mail", noLimits); cl.Claimed || cl.Waiting {
		t.Fatalf("queue should be empty: %+v", cl)
	}
	if cl := claim(t, st, "mailx", noLimits); !cl.Claimed || cl.Job.ID != ids[2] {
		t.Fatalf("mailx job: %+v", cl)
	}
}

func TestEnqueueRejectsBadSpecs(t *testing.T) {
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	for _, sp := range []store.JobSpec{
		{Kind: ""},
		{Kind: "Mail"},
		{Kind: "mail/x"},
		{Kind: "mail", Payload: []byte("{not json")},
	} {
		if _, err := st.Jobs().Enqueue(context.Background(), store.JobSpec{Kind: "ok"}, sp); err == nil {
			t.Errorf("enqueue %+v: no error", sp)
		}
	}
	if page, _ := st.Jobs().List(context.Background(), store.JobFilter{}); len(page.Jobs) != 0 {
		t.Fatalf("a rejected batch left %d jobs", len(page.Jobs))
	}
}

func TestFinishJob(t *testing.T) {
	lim := store.JobLimits{MaxFailures: 2, MaxAge: 48 * time.Hour}
	tests := []struct {
		name        string
		failures    int // failed attempts before the one finished here
		age         time.Duration
		end         store.JobEnd
		wantStatus  store.JobStatus
		wantDueIn   time.Duration // for queued
		wantFailure int
	}{
		{"success is done", 0, 0, store.JobEnd{Outcome: store.OutcomeOK, Result: "250 ok"}, store.JobDone, 0, 0},
		{"an error is retried after RetryIn", 0, 0, store.JobEnd{Outcome: store.OutcomeError, Error: "refused", RetryIn: 30 * time.Second}, store.JobQueued, 30 * time.Second, 1},
		{"the last allowed error sets it aside", 1, 0, store.JobEnd{Outcome: store.OutcomeError, Error: "refused", RetryIn: time.Second}, store.JobFailed, 0, 2},
		{"a retry past MaxAge sets it aside", 0, 47 * time.Hour, store.JobEnd{Outcome: store.OutcomeError, Error: "offline", RetryIn: 2 * time.Hour}, store.JobFailed, 0, 1},
		{"a retry within MaxAge waits", 0, 47 * time.Hour, store.JobEnd{Outcome: store.OutcomeError, Error: "offline", RetryIn: 30 * time.Minute}, store.JobQueued, 30 * time.Minute, 1},
		{"a permanent error sets it aside at once", 0, 0, store.JobEnd{Outcome: store.OutcomePermanent, Error: "bad address"}, store.JobFailed, 0, 1},
		{"an interruption is due again now, uncharged", 0, 0, store.JobEnd{Outcome: store.OutcomeInterrupted, Error: "context canceled"}, store.JobQueued, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, c := context.Background(), newClock()
			st := open(t, t.TempDir(), c)
			defer st.Close()
			id := enqueue(t, st, store.JobSpec{Kind: "hook"})[0]
			for range tt.failures {
				cl := claim(t, st, "hook", lim)
				if _, err := st.Jobs().Finish(ctx, id, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeError, Error: "x"}, lim); err != nil {
					t.Fatal(err)
				}
			}
			c.Advance(tt.age)
			cl := claim(t, st, "hook", lim)
			if !cl.Claimed {
				t.Fatalf("not claimed: %+v", cl)
			}
			c.Advance(time.Second)
			j, err := st.Jobs().Finish(ctx, id, cl.Job.Tries, tt.end, lim)
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != tt.wantStatus || j.Failures != tt.wantFailure {
				t.Fatalf("status %s failures %d, want %s %d (%+v)", j.Status, j.Failures, tt.wantStatus, tt.wantFailure, j)
			}
			if j.Status == store.JobQueued && j.DueAt != c.Now().Add(tt.wantDueIn).UnixMilli() {
				t.Fatalf("due at %d, want now+%s", j.DueAt, tt.wantDueIn)
			}
			if j.Status != store.JobQueued && j.FinishedAt != c.Now().UnixMilli() {
				t.Fatalf("finishedAt %d, want now", j.FinishedAt)
			}
			last := j.Attempts[len(j.Attempts)-1]
			if last.Outcome != tt.end.Outcome || last.Error != tt.end.Error || last.Result != tt.end.Result ||
				last.End != c.Now().UnixMilli() || last.Start != c.Now().Add(-time.Second).UnixMilli() {
				t.Fatalf("attempt recorded as %+v", last)
			}
			if stored := job(t, st, id); stored.Status != j.Status || len(stored.Attempts) != tt.failures+1 {
				t.Fatalf("stored job %+v", stored)
			}
			// The attempt no longer holds the job.
			if _, err := st.Jobs().Finish(ctx, id, cl.Job.Tries, tt.end, lim); !errors.Is(err, store.ErrJobLost) {
				t.Fatalf("finishing twice: %v, want ErrJobLost", err)
			}
		})
	}
}

// A job in flight when the process dies (here: the store is closed while
// it is claimed) has that attempt recorded as died at the next Open, and
// is set aside once MaxDeaths is reached instead of killing the box in a
// loop.
func TestJobInFlightAtCrashCountsADeath(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	lim := store.JobLimits{MaxFailures: 5, MaxDeaths: 3}
	st := open(t, dir, c)
	id := enqueue(t, st, store.JobSpec{Kind: "variants", Key: "photo1"})[0]
	for death := 1; death <= 3; death++ {
		if cl := claim(t, st, "variants", lim); !cl.Claimed || cl.Job.ID != id {
			t.Fatalf("death %d: not claimed: %+v", death, cl)
		}
		if err := st.Close(); err != nil { // the power cut
			t.Fatal(err)
		}
		c.Advance(time.Minute)
		st = open(t, dir, c)
		j := job(t, st, id)
		last := j.Attempts[len(j.Attempts)-1]
		if j.Status != store.JobQueued || j.Deaths != death || j.Tries != death || j.Failures != 0 ||
			last.Outcome != store.OutcomeDied || last.End != c.Now().UnixMilli() || j.DueAt != c.Now().UnixMilli() {
			t.Fatalf("after death %d: %+v", death, j)
		}
	}
	defer st.Close()
	cl := claim(t, st, "variants", lim)
	if cl.Claimed || len(cl.SetAside) != 1 || cl.SetAside[0].ID != id {
		t.Fatalf("claim after 3 deaths = %+v, want the job set aside", cl)
	}
	if j := job(t, st, id); j.Status != store.JobFailed || j.LastError == "" || j.Tries != 3 {
		t.Fatalf("set-aside job %+v", j)
	}
	// Its key is free again: a new job for the photo can be queued.
	if ids := enqueue(t, st, store.JobSpec{Kind: "variants", Key: "photo1"}); ids[0] == id {
		t.Fatal("the failed job still holds its key")
	}
}

func TestJobKeyIsUniqueWhileUnfinished(t *testing.T) {
	ctx, c := context.Background(), newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	a := enqueue(t, st, store.JobSpec{Kind: "variants", Key: "p1"}, store.JobSpec{Kind: "variants", Key: "p1"},
		store.JobSpec{Kind: "export", Key: "p1"})
	if a[0] != a[1] || a[2] == a[0] {
		t.Fatalf("ids %v: the same (kind, key) twice must be one job, another kind another", a)
	}
	cl := claim(t, st, "variants", noLimits)
	if again := enqueue(t, st, store.JobSpec{Kind: "variants", Key: "p1"}); again[0] != a[0] {
		t.Fatalf("while running, enqueue gave %d, want %d", again[0], a[0])
	}
	if found, err := st.Jobs().Cancel(ctx, "variants", "p1"); err != nil || found {
		t.Fatalf("cancelling a running job: %v %v, want left alone", found, err)
	}
	if _, err := st.Jobs().Finish(ctx, a[0], cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeOK}, noLimits); err != nil {
		t.Fatal(err)
	}
	b := enqueue(t, st, store.JobSpec{Kind: "variants", Key: "p1"})
	if b[0] == a[0] {
		t.Fatal("a done job still holds its key")
	}
	if found, err := st.Jobs().Cancel(ctx, "variants", "p1"); err != nil || !found {
		t.Fatalf("cancel queued: %v %v", found, err)
	}
	if _, err := st.Jobs().Get(ctx, b[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("cancelled job still there: %v", err)
	}
	if cl := claim(t, st, "variants", noLimits); cl.Claimed {
		t.Fatalf("claimed a cancelled job: %+v", cl)
	}
}

func TestWakeMakesRetriesDueNowButNotScheduledJobs(t *testing.T) {
	ctx, c := context.Background(), newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	ids := enqueue(t, st, store.JobSpec{Kind: "hook"}, store.JobSpec{Kind: "mail"},
		store.JobSpec{Kind: "backup", RunAt: c.Now().Add(6 * time.Hour)})
	for _, kind := range []string{"hook", "mail"} {
		cl := claim(t, st, kind, noLimits)
		if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeError, Error: "offline", RetryIn: time.Hour}, noLimits); err != nil {
			t.Fatal(err)
		}
	}
	n, err := st.Jobs().Wake(ctx, "hook")
	if err != nil || n != 1 {
		t.Fatalf("wake hook: %d %v", n, err)
	}
	if cl := claim(t, st, "hook", noLimits); !cl.Claimed || cl.Job.ID != ids[0] {
		t.Fatalf("woken hook not due: %+v", cl)
	}
	if cl := claim(t, st, "mail", noLimits); cl.Claimed {
		t.Fatal("waking hook woke mail")
	}
	if n, err := st.Jobs().Wake(ctx); err != nil || n != 1 {
		t.Fatalf("wake all: %d %v, want only the mail retry", n, err)
	}
	if cl := claim(t, st, "mail", noLimits); !cl.Claimed {
		t.Fatal("woken mail not due")
	}
	if cl := claim(t, st, "backup", noLimits); cl.Claimed || cl.Next != 6*time.Hour {
		t.Fatalf("a scheduled job was woken: %+v", cl)
	}
}

func TestJobsPageOrderAndFilters(t *testing.T) {
	ctx, c := context.Background(), newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	// ids 1..6: mail, hook, mail, hook, mail, hook; 1 and 2 done, 3 failed.
	var specs []store.JobSpec
	for i := range 6 {
		specs = append(specs, store.JobSpec{Kind: []string{"mail", "hook"}[i%2]})
	}
	enqueue(t, st, specs...)
	for _, kind := range []string{"mail", "hook"} {
		cl := claim(t, st, kind, noLimits)
		if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeOK}, noLimits); err != nil {
			t.Fatal(err)
		}
	}
	cl := claim(t, st, "mail", noLimits)
	if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomePermanent, Error: "no"}, noLimits); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		filter   store.JobFilter
		want     []uint64
		wantNext uint64
	}{
		{"all, newest first", store.JobFilter{}, []uint64{6, 5, 4, 3, 2, 1}, 0},
		{"all, a page", store.JobFilter{Limit: 4}, []uint64{6, 5, 4, 3}, 3},
		{"all, the next page", store.JobFilter{Limit: 4, Before: 3}, []uint64{2, 1}, 0},
		{"one kind", store.JobFilter{Kind: "mail"}, []uint64{5, 3, 1}, 0},
		{"one kind, a page", store.JobFilter{Kind: "hook", Limit: 2}, []uint64{6, 4}, 4},
		{"one kind, the next page", store.JobFilter{Kind: "hook", Before: 4}, []uint64{2}, 0},
		{"one status", store.JobFilter{Status: store.JobQueued}, []uint64{6, 5, 4}, 0},
		{"status and kind", store.JobFilter{Status: store.JobDone, Kind: "hook"}, []uint64{2}, 0},
		{"failed", store.JobFilter{Status: store.JobFailed}, []uint64{3}, 0},
		{"a kind with no jobs", store.JobFilter{Kind: "export"}, nil, 0},
		{"before the first", store.JobFilter{Before: 1}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := st.Jobs().List(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, j := range page.Jobs {
				got = append(got, j.ID)
			}
			if !slices.Equal(got, tt.want) || page.Next != tt.wantNext {
				t.Fatalf("got %v next %d, want %v next %d", got, page.Next, tt.want, tt.wantNext)
			}
		})
	}
	page, _ := st.Jobs().List(ctx, store.JobFilter{Status: store.JobFailed})
	if a := page.Jobs[0].Attempts; len(a) != 1 || a[0].Outcome != store.OutcomePermanent || a[0].Error != "no" {
		t.Fatalf("listed attempts %+v", a)
	}
}

func TestProgressSurvivesARetry(t *testing.T) {
	ctx, c := context.Background(), newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	id := enqueue(t, st, store.JobSpec{Kind: "export"})[0]
	cl := claim(t, st, "export", noLimits)
	p := store.JobProgress{Done: 40, Total: 100, Note: "uploading", State: []byte(`{"after":"k2m4"}`)}
	if err := st.Jobs().SetProgress(ctx, id, cl.Job.Tries, p); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Jobs().Finish(ctx, id, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeError, Error: "timeout"}, noLimits); err != nil {
		t.Fatal(err)
	}
	if err := st.Jobs().SetProgress(ctx, id, cl.Job.Tries, p); !errors.Is(err, store.ErrJobLost) {
		t.Fatalf("progress from a finished attempt: %v, want ErrJobLost", err)
	}
	next := claim(t, st, "export", noLimits)
	got := next.Job.Progress
	if got == nil || got.Done != 40 || got.Total != 100 || string(got.State) != `{"after":"k2m4"}` || got.At != c.Now().UnixMilli() {
		t.Fatalf("the next attempt sees progress %+v", got)
	}
}

func TestRequeueAndPrune(t *testing.T) {
	ctx, c := context.Background(), newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	ids := enqueue(t, st, store.JobSpec{Kind: "mail"}, store.JobSpec{Kind: "mail"}, store.JobSpec{Kind: "mail"})
	outcomes := []store.Outcome{store.OutcomeOK, store.OutcomePermanent}
	for _, o := range outcomes {
		cl := claim(t, st, "mail", noLimits)
		if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: o}, noLimits); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Jobs().Requeue(ctx, ids[0]); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("requeue a done job: %v", err)
	}
	if err := st.Jobs().Requeue(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	if j := job(t, st, ids[1]); j.Status != store.JobQueued || j.Failures != 0 || len(j.Attempts) != 1 {
		t.Fatalf("requeued %+v", j)
	}
	cl := claim(t, st, "mail", noLimits) // ids[1], due now, before ids[2]? both due now: id order
	if cl.Job.ID != ids[1] && cl.Job.ID != ids[2] {
		t.Fatalf("claimed %d", cl.Job.ID)
	}
	if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomePermanent}, noLimits); err != nil {
		t.Fatal(err)
	}
	c.Advance(8 * 24 * time.Hour)
	n, err := st.Jobs().Prune(ctx, 7*24*time.Hour, 30*24*time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("prune: %d %v, want the done job only", n, err)
	}
	if _, err := st.Jobs().Get(ctx, ids[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("pruned job: %v", err)
	}
	page, _ := st.Jobs().List(ctx, store.JobFilter{Kind: "mail"})
	if len(page.Jobs) != 2 {
		t.Fatalf("after prune: %d jobs listed, want 2", len(page.Jobs))
	}
}

// Many goroutines claim from one queue; each job is claimed exactly once.
func TestConcurrentClaimsNeverShareAJob(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	const n = 200
	var specs []store.JobSpec
	for i := range n {
		specs = append(specs, store.JobSpec{Kind: "hook", Payload: fmt.Appendf(nil, "%d", i)})
	}
	enqueue(t, st, specs...)
	var mu sync.Mutex
	seen := map[uint64]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				cl, err := st.Jobs().Claim(ctx, "hook", noLimits)
				if err != nil {
					t.Error(err)
					return
				}
				if !cl.Claimed {
					return
				}
				mu.Lock()
				seen[cl.Job.ID]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("%d jobs claimed, want %d", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("job %d claimed %d times", id, k)
		}
	}
}
