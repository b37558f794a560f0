package store_test

import (
	"context"
	"encoding/json"
	"testing"

	"eventbox/store"
)

// TestCancelPrint: a queued print's job goes; a running one is marked in
// its payload, which its progress, a retry and a reopened store keep, and
// its CUPS job is answered; a print unknown or finished is not found.
func TestCancelPrint(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	spec := func(id string) store.JobSpec {
		sp, err := store.PrintJobSpec(store.PrintJob{ID: id, Document: store.PrintTest, Copies: 1, By: "owner"})
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	cancel := func(id string) store.PrintCancel {
		t.Helper()
		pc, err := st.Printing().CancelPrint(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return pc
	}
	queued, running := store.NewID(), store.NewID()
	enqueue(t, st, spec(running))
	cl := claim(t, st, store.PrintJobKind, noLimits)
	if !cl.Claimed || cl.Job.Key != running {
		t.Fatalf("claim %+v", cl)
	}
	enqueue(t, st, spec(queued))

	if pc := cancel(queued); !pc.Found || !pc.Removed {
		t.Errorf("the queued print: %+v", pc)
	}
	if got, _ := st.Jobs().Unfinished(ctx, store.PrintJobKind, 0); len(got) != 1 || got[0].Key != running {
		t.Errorf("unfinished after the cancel: %+v", got)
	}
	if pc := cancel(store.NewID()); pc.Found {
		t.Errorf("an unknown print: %+v", pc)
	}

	state, _ := json.Marshal(store.PrintState{Printer: "Photo", CUPSJob: 7})
	if err := st.Jobs().SetProgress(ctx, cl.Job.ID, cl.Job.Tries, store.JobProgress{Note: "sent", State: state}); err != nil {
		t.Fatal(err)
	}
	pc := cancel(running)
	if !pc.Found || pc.Removed || pc.State != (store.PrintState{Printer: "Photo", CUPSJob: 7}) {
		t.Errorf("the running print: %+v", pc)
	}
	if again := cancel(running); again != pc {
		t.Errorf("cancelled twice: %+v, then %+v", pc, again)
	}
	// The attempt ends in a retry; the store is reopened.
	if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeError, Error: "busy"}, noLimits); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, c)
	defer st.Close()
	var pj store.PrintJob
	if err := json.Unmarshal(job(t, st, cl.Job.ID).Payload, &pj); err != nil || !pj.Cancelled || pj.ID != running {
		t.Errorf("the running print's payload after a reopen: %+v, %v", pj, err)
	}
	// Queued again for its retry: a second cancel removes it.
	if pc := cancel(running); !pc.Found || !pc.Removed {
		t.Errorf("the print waiting for its retry: %+v", pc)
	}
}
