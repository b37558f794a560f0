package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"eventbox/store"
)

func TestWebhooksAreKeptAcrossAReopen(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	w, err := st.Webhooks().Add(ctx, store.Webhook{Name: "Phone", Type: store.WebhookNtfy, URL: "https://ntfy.sh/x",
		Kinds: []string{store.NoticeEventEnded}, Secret: "s", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Webhooks().Update(ctx, w.ID, func(w *store.Webhook) error { w.Enabled = false; w.CreatedAt = 1; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, c)
	defer st.Close()
	got, err := st.Webhooks().Get(ctx, w.ID)
	if err != nil || got.Enabled || got.Secret != "s" || got.CreatedAt != w.CreatedAt {
		t.Fatalf("webhook %+v %v", got, err)
	}
	if got.Wants(store.NoticeEventEnded) {
		t.Fatal("a disabled webhook wants a notice")
	}
	if err := st.Webhooks().Delete(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.Webhooks().Delete(ctx, w.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleting twice: %v", err)
	}
	if list, err := st.Webhooks().List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("webhooks %+v %v", list, err)
	}
}

func TestFanOutJob(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	lim := store.JobLimits{MaxFailures: 5}
	enqueue(t, st, store.JobSpec{Kind: "notice"}, store.JobSpec{Kind: "notice"}, store.JobSpec{Kind: "notice"})
	count := func(old json.RawMessage) (json.RawMessage, error) {
		var n int
		if err := json.Unmarshal(old, &n); err != nil {
			return nil, err
		}
		return json.Marshal(n + 1)
	}
	burst := func(alt string) store.FanOutSpec {
		return store.FanOutSpec{Spec: store.JobSpec{Kind: "webhook", Key: "burst", Payload: []byte("1")}, Merge: count, AltKey: alt}
	}

	n1 := claim(t, st, "notice", lim).Job
	if err := st.Jobs().FanOut(ctx, n1.ID, n1.Tries, []store.FanOutSpec{burst("alt1")}); err != nil {
		t.Fatal(err)
	}
	t.Run("a second fan-out of the same notice adds nothing", func(t *testing.T) {
		if err := st.Jobs().FanOut(ctx, n1.ID, n1.Tries, []store.FanOutSpec{burst("alt1")}); !errors.Is(err, store.ErrFannedOut) {
			t.Fatalf("second fan-out: %v", err)
		}
		if j := webhooks(t, st); len(j) != 1 || string(j[0].Payload) != "1" {
			t.Fatalf("jobs %+v", j)
		}
	})
	n2 := claim(t, st, "notice", lim).Job
	t.Run("a notice folds into a queued delivery never tried", func(t *testing.T) {
		if err := st.Jobs().FanOut(ctx, n2.ID, n2.Tries, []store.FanOutSpec{burst("alt2")}); err != nil {
			t.Fatal(err)
		}
		if j := webhooks(t, st); len(j) != 1 || string(j[0].Payload) != "2" {
			t.Fatalf("jobs %+v", j)
		}
	})
	n3 := claim(t, st, "notice", lim).Job
	t.Run("a notice gets its own delivery once the burst's was tried", func(t *testing.T) {
		claim(t, st, "webhook", lim)
		if err := st.Jobs().FanOut(ctx, n3.ID, n3.Tries, []store.FanOutSpec{burst("alt3")}); err != nil {
			t.Fatal(err)
		}
		j := webhooks(t, st)
		if len(j) != 2 || j[0].Key != "alt3" || string(j[0].Payload) != "1" || string(j[1].Payload) != "2" {
			t.Fatalf("jobs %+v", j)
		}
	})
	t.Run("an attempt that no longer holds the notice cannot fan out", func(t *testing.T) {
		if err := st.Jobs().FanOut(ctx, n3.ID, n3.Tries+1, nil); !errors.Is(err, store.ErrJobLost) {
			t.Fatalf("fan-out by a lost attempt: %v", err)
		}
	})
}

func webhooks(t *testing.T, st *store.Store) []store.Job {
	t.Helper()
	page, err := st.Jobs().List(context.Background(), store.JobFilter{Kind: "webhook"})
	if err != nil {
		t.Fatal(err)
	}
	return page.Jobs
}
