package outbox_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/daemon/outbox"
	"eventbox/store"
)

// These tests run inside testing/synctest bubbles (the store's clock and
// the runner's timers are the bubble's fake time, so 48 hours of backoff
// take no real time). The receivers are http.Handlers reached through an
// in-memory transport: a real socket would keep the bubble from ever
// being idle.

// handlerTransport answers requests with an http.Handler.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// got is one request a receiver got.
type got struct {
	header http.Header
	body   []byte
	status int
}

// receiver records what it gets and answers status(n) to its n-th
// request (from 1). It checks the signature when it has a secret.
type receiver struct {
	t      *testing.T
	secret string
	status func(n int) int
	mu     sync.Mutex
	got    []got
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if rc.secret != "" {
		ts := r.Header.Get(outbox.HeaderTimestamp)
		m := hmac.New(sha256.New, []byte(rc.secret))
		m.Write([]byte(ts + "." + string(body)))
		if want := "sha256=" + hex.EncodeToString(m.Sum(nil)); r.Header.Get(outbox.HeaderSignature) != want {
			rc.t.Errorf("signature %q, want %q", r.Header.Get(outbox.HeaderSignature), want)
		}
		if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
			rc.t.Errorf("timestamp %q is not epoch seconds", ts)
		}
	}
	rc.mu.Lock()
	n := len(rc.got) + 1
	code := http.StatusOK
	if rc.status != nil {
		code = rc.status(n)
	}
	rc.got = append(rc.got, got{header: r.Header.Clone(), body: body, status: code})
	rc.mu.Unlock()
	w.WriteHeader(code)
	fmt.Fprintf(w, "answer %d", n)
}

func (rc *receiver) all() []got {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]got(nil), rc.got...)
}

// delivered are the requests the receiver took (2xx).
func (rc *receiver) delivered() []got {
	var out []got
	for _, g := range rc.all() {
		if g.status < 300 {
			out = append(out, g)
		}
	}
	return out
}

// box is a store, an outbox and a runner working its kinds.
type box struct {
	t      *testing.T
	st     *store.Store
	ob     *outbox.Outbox
	runner *jobs.Runner
	stop   func()
}

func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newOutbox(t *testing.T, st *store.Store, rc http.Handler, r *jobs.Runner) *outbox.Outbox {
	t.Helper()
	ob, err := outbox.New(outbox.Config{Store: st, Client: &http.Client{Transport: handlerTransport{rc}}, Jobs: r})
	if err != nil {
		t.Fatal(err)
	}
	return ob
}

// startBox runs the outbox's kinds over st until stop (or the test's end).
func startBox(t *testing.T, st *store.Store, rc http.Handler) *box {
	t.Helper()
	r, err := jobs.New(jobs.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ob := newOutbox(t, st, rc, r)
	if err := r.Register(ob.Kinds()...); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return &box{t: t, st: st, ob: ob, runner: r, stop: stop}
}

func (b *box) idle() {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 24*time.Hour)
	defer cancel()
	if err := b.runner.WaitIdle(ctx); err != nil {
		b.t.Fatal(err)
	}
}

// until lets fake time pass an hour at a time, up to limit, until ok.
func (b *box) until(limit time.Duration, ok func() bool) {
	b.t.Helper()
	for end := time.Now().Add(limit); !ok(); {
		if time.Now().After(end) {
			b.t.Fatalf("not done after %s", limit)
		}
		time.Sleep(time.Hour)
		b.idle()
	}
}

func addHook(t *testing.T, st *store.Store, typ, secret string, kinds ...string) store.Webhook {
	t.Helper()
	w, err := st.Webhooks().Add(context.Background(), store.Webhook{Name: typ, Type: typ,
		URL: "https://hooks.example.com/secret-path", Kinds: kinds, Secret: secret, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func addEvent(t *testing.T, st *store.Store, name string) store.Event {
	t.Helper()
	e := store.NewEvent(name)
	if err := st.Events().Create(context.Background(), &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func notice(t *testing.T, kind, eventID string, data any) store.JobSpec {
	t.Helper()
	sp, err := store.NoticeJobSpec(store.Notice{Kind: kind, At: time.Now().UnixMilli(), EventID: eventID}, data)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func webhookJobs(t *testing.T, st *store.Store) []store.Job {
	t.Helper()
	page, err := st.Jobs().List(context.Background(), store.JobFilter{Kind: outbox.WebhookJobKind, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return page.Jobs
}

func TestAJSONDeliveryIsSignedAndCarriesTheEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		rc := &receiver{t: t, secret: "s3cret"}
		b := startBox(t, st, rc)
		e := addEvent(t, st, "Ana & Ben")
		addHook(t, st, store.WebhookJSON, "s3cret", store.NoticeEventEnded)
		addHook(t, st, store.WebhookJSON, "s3cret", store.NoticeMessageCreated) // another kind: nothing
		if _, err := b.runner.Enqueue(context.Background(),
			notice(t, store.NoticeEventEnded, e.ID, map[string]int64{"endedAt": 42})); err != nil {
			t.Fatal(err)
		}
		b.idle()
		all := rc.all()
		if len(all) != 1 {
			t.Fatalf("got %d requests, want 1", len(all))
		}
		var body map[string]any
		if err := json.Unmarshal(all[0].body, &body); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"kind": "event.ended", "at": float64(time.Now().UnixMilli()),
			"event": map[string]any{"id": e.ID, "slug": e.Slug, "name": "Ana & Ben"},
			"data":  map[string]any{"endedAt": float64(42)}}
		if fmt.Sprint(body) != fmt.Sprint(want) {
			t.Fatalf("body %v, want %v", body, want)
		}
		jobs := webhookJobs(t, st)
		if len(jobs) != 1 || all[0].header.Get(outbox.HeaderDelivery) != strconv.FormatUint(jobs[0].ID, 10) {
			t.Fatalf("delivery header %q, jobs %+v", all[0].header.Get(outbox.HeaderDelivery), jobs)
		}
	})
}

func TestChatFormats(t *testing.T) {
	for _, tt := range []struct {
		typ, ctype string
		check      func(t *testing.T, g got)
	}{
		{store.WebhookNtfy, "text/plain; charset=utf-8", func(t *testing.T, g got) {
			if g.header.Get("Title") != "Ana & Ben" || string(g.body) != "A new guestbook message from Zoé" {
				t.Fatalf("ntfy: title %q body %q", g.header.Get("Title"), g.body)
			}
		}},
		{store.WebhookDiscord, "application/json", func(t *testing.T, g got) {
			var m struct{ Content string }
			if err := json.Unmarshal(g.body, &m); err != nil || m.Content != "**Ana & Ben**\nA new guestbook message from Zoé" {
				t.Fatalf("discord: %s (%v)", g.body, err)
			}
		}},
		{store.WebhookSlack, "application/json", func(t *testing.T, g got) {
			var m struct{ Text string }
			if err := json.Unmarshal(g.body, &m); err != nil || m.Text != "*Ana & Ben*\nA new guestbook message from Zoé" {
				t.Fatalf("slack: %s (%v)", g.body, err)
			}
		}},
	} {
		t.Run("a "+tt.typ+" webhook gets its own format", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := openStore(t, t.TempDir())
				defer st.Close()
				rc := &receiver{t: t}
				b := startBox(t, st, rc)
				e := addEvent(t, st, "Ana & Ben")
				addHook(t, st, tt.typ, "", store.NoticeMessageCreated)
				if _, err := b.runner.Enqueue(context.Background(),
					notice(t, store.NoticeMessageCreated, e.ID, map[string]string{"guestName": "Zoé"})); err != nil {
					t.Fatal(err)
				}
				time.Sleep(outbox.DefaultWindow) // a guestbook message waits for its window
				b.idle()
				all := rc.all()
				if len(all) != 1 {
					t.Fatalf("got %d requests, want 1", len(all))
				}
				if ct := all[0].header.Get("Content-Type"); ct != tt.ctype {
					t.Fatalf("content type %q, want %q", ct, tt.ctype)
				}
				if all[0].header.Get(outbox.HeaderSignature) != "" {
					t.Fatal("signed without a secret")
				}
				tt.check(t, all[0])
			})
		})
	}
}

func TestAReceiverDownForItsFirstTriesGetsTheDeliveryOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		rc := &receiver{t: t, secret: "k", status: func(n int) int {
			if n <= 3 {
				return http.StatusServiceUnavailable
			}
			return http.StatusNoContent
		}}
		b := startBox(t, st, rc)
		addHook(t, st, store.WebhookJSON, "k", store.NoticeStorageLow)
		if _, err := b.runner.Enqueue(context.Background(),
			notice(t, store.NoticeStorageLow, "", map[string]int64{"freeBytes": 1 << 30})); err != nil {
			t.Fatal(err)
		}
		b.idle()
		b.until(48*time.Hour, func() bool { return len(rc.delivered()) > 0 })
		b.idle()
		all := rc.all()
		if len(all) != 4 || len(rc.delivered()) != 1 {
			t.Fatalf("%d requests, %d delivered; want 4 and 1", len(all), len(rc.delivered()))
		}
		id := all[0].header.Get(outbox.HeaderDelivery)
		for i, g := range all {
			if g.header.Get(outbox.HeaderDelivery) != id {
				t.Fatalf("attempt %d has delivery id %q, the first had %q", i+1, g.header.Get(outbox.HeaderDelivery), id)
			}
		}
		jobs := webhookJobs(t, st)
		if len(jobs) != 1 || jobs[0].Status != store.JobDone || len(jobs[0].Attempts) != 4 {
			t.Fatalf("jobs %+v", jobs)
		}
		for i, a := range jobs[0].Attempts {
			want := "503"
			if i == 3 {
				want = "204"
			}
			if a.Result != want {
				t.Fatalf("attempt %d recorded %q, want %q", i+1, a.Result, want)
			}
		}
	})
}

func TestADeliveryIsSetAsideAfter48Hours(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		rc := &receiver{t: t, status: func(int) int { return http.StatusBadGateway }}
		b := startBox(t, st, rc)
		addHook(t, st, store.WebhookSlack, "", store.NoticeBackupFailed)
		if _, err := b.runner.Enqueue(context.Background(), notice(t, store.NoticeBackupFailed, "", nil)); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		b.until(72*time.Hour, func() bool {
			j := webhookJobs(t, st)
			return len(j) == 1 && j[0].Status == store.JobFailed
		})
		j := webhookJobs(t, st)[0]
		if waited := time.Since(t0); waited < 47*time.Hour || waited > 50*time.Hour {
			t.Fatalf("set aside after %s, want about 48 h", waited)
		}
		// Capped backoff with jitter: 0.7 to 1 hour apart after the first
		// hours, so about 60 tries.
		if j.Tries < 45 || j.Tries > 70 {
			t.Fatalf("%d tries in 48 h", j.Tries)
		}
	})
}

func TestANoticeRetriedAfterACrashDoesNotFanOutTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		st := openStore(t, dir)
		rc := &receiver{t: t}
		e := addEvent(t, st, "Party")
		addHook(t, st, store.WebhookJSON, "", store.NoticeEventEnded, store.NoticePhotoUploaded)
		addHook(t, st, store.WebhookNtfy, "", store.NoticeEventEnded)
		mails := 0
		ob, err := outbox.New(outbox.Config{Store: st, Client: &http.Client{Transport: handlerTransport{rc}},
			Fanouts: []outbox.Fanout{func(ctx context.Context, n store.Notice) ([]store.JobSpec, error) {
				mails++
				return []store.JobSpec{{Kind: "mail", Key: "alert:" + n.Kind}}, nil
			}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := st.Jobs().Enqueue(ctx, notice(t, store.NoticeEventEnded, e.ID, nil),
			notice(t, store.NoticePhotoUploaded, e.ID, map[string]string{"photoId": "p1"})); err != nil {
			t.Fatal(err)
		}
		// Both notices fan out, then the process dies before their
		// attempts are recorded.
		handler := ob.Kinds()[0].Handler
		for range 2 {
			c, err := st.Jobs().Claim(ctx, store.NoticeJobKind, store.JobLimits{MaxFailures: 10})
			if err != nil || !c.Claimed {
				t.Fatalf("claim: %+v %v", c, err)
			}
			if err := handler(ctx, jobs.Job{Job: c.Job}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		st = openStore(t, dir)
		defer st.Close()
		b := startBox(t, st, rc)
		b.idle()
		time.Sleep(outbox.DefaultWindow)
		b.idle()
		if n := len(rc.delivered()); n != 3 {
			t.Fatalf("%d deliveries, want 3 (event.ended to two webhooks, one photo)", n)
		}
		var photo struct{ Data struct{ Count int } }
		for _, g := range rc.delivered() {
			if json.Unmarshal(g.body, &photo) == nil && photo.Data.Count > 0 && photo.Data.Count != 1 {
				t.Fatalf("the photo was counted %d times", photo.Data.Count)
			}
		}
		if mails != 2 {
			t.Fatalf("the fan-out was asked %d times, want 2 (once per notice)", mails)
		}
		page, err := st.Jobs().List(ctx, store.JobFilter{Kind: "mail"})
		if err != nil || len(page.Jobs) != 2 {
			t.Fatalf("mail jobs %+v %v, want 2", page.Jobs, err)
		}
	})
}

func TestABurstOfPhotosIsOneDeliveryPerWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		rc := &receiver{t: t}
		b := startBox(t, st, rc)
		party, other := addEvent(t, st, "Party"), addEvent(t, st, "Other")
		addHook(t, st, store.WebhookJSON, "", store.NoticePhotoUploaded)
		addHook(t, st, store.WebhookNtfy, "", store.NoticePhotoUploaded, store.NoticePhotoPending)
		ctx := context.Background()
		// 150 photos over 25 minutes (three or four windows), and one
		// photo of another event, as the ingester enqueues them: one
		// notice each.
		start := time.Now()
		for i := range 150 {
			if _, err := b.runner.Enqueue(ctx, notice(t, store.NoticePhotoUploaded, party.ID,
				map[string]string{"photoId": fmt.Sprint("p", i)})); err != nil {
				t.Fatal(err)
			}
			time.Sleep(10 * time.Second)
		}
		if _, err := b.runner.Enqueue(ctx, notice(t, store.NoticePhotoUploaded, other.ID, nil)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(outbox.DefaultWindow)
		b.idle()
		windows := int(time.Since(start)/outbox.DefaultWindow) + 1
		counts := map[string]int{}
		requests := 0
		for _, g := range rc.delivered() {
			requests++
			var body struct {
				Event struct{ ID string }
				Data  struct {
					Count int
					Items []json.RawMessage
				}
			}
			if g.header.Get("Content-Type") != "application/json" {
				continue
			}
			if err := json.Unmarshal(g.body, &body); err != nil {
				t.Fatal(err)
			}
			if len(body.Data.Items) > 10 {
				t.Fatalf("a delivery carries %d items", len(body.Data.Items))
			}
			counts[body.Event.ID] += body.Data.Count
		}
		if counts[party.ID] != 150 || counts[other.ID] != 1 {
			t.Fatalf("counts %v, want 150 and 1", counts)
		}
		// Per webhook: at most one per window for the party, one for the
		// other event.
		if max := 2 * (windows + 1); requests > max || requests < 4 {
			t.Fatalf("%d pushes for 151 photos, want at most %d", requests, max)
		}
		t.Logf("151 photos in %d windows: %d pushes to 2 webhooks", windows, requests)
	})
}

func TestDeliveriesOfADeletedOrDisabledWebhookAreSetAside(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		rc := &receiver{t: t, status: func(int) int { return http.StatusInternalServerError }}
		b := startBox(t, st, rc)
		gone := addHook(t, st, store.WebhookJSON, "", store.NoticeStorageLow)
		off := addHook(t, st, store.WebhookJSON, "", store.NoticeStorageLow)
		ctx := context.Background()
		if _, err := b.runner.Enqueue(ctx, notice(t, store.NoticeStorageLow, "", nil)); err != nil {
			t.Fatal(err)
		}
		b.idle()
		if err := st.Webhooks().Delete(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Webhooks().Update(ctx, off.ID, func(w *store.Webhook) error { w.Enabled = false; return nil }); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Hour)
		b.idle()
		for _, j := range webhookJobs(t, st) {
			if j.Status != store.JobFailed || j.Tries != 2 {
				t.Fatalf("job %+v, want set aside at its second try", j)
			}
		}
		if n := len(rc.all()); n != 2 {
			t.Fatalf("%d requests, want 2 (the first tries)", n)
		}
	})
}

func TestTestAnswersTheReceiversAnswer(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	rc := &receiver{t: t, secret: "x", status: func(int) int { return http.StatusNotFound }}
	ob := newOutbox(t, st, rc, nil)
	w := addHook(t, st, store.WebhookJSON, "x")
	err := ob.Test(context.Background(), w)
	se, ok := err.(*outbox.SendError)
	if !ok || se.Status != 404 || se.Answer != "answer 1" {
		t.Fatalf("test: %#v", err)
	}
	if se.Error() != "the receiver answered 404: answer 1" {
		t.Fatalf("message %q", se.Error())
	}
}

func TestSignIsHMACOfTimestampDotBody(t *testing.T) {
	// printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac secret
	const want = "sha256=49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686"
	if got := outbox.Sign("secret", 1700000000, []byte(`{"a":1}`)); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

// TestTheFirstPhotoOfAQuietSpellGoesOutAtOnce: a host listening on ntfy
// hears of the first photo at once; the photos that follow it within the
// window fold into one summary at the window's end; after a quiet window
// the next photo goes out at once again.
func TestTheFirstPhotoOfAQuietSpellGoesOutAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, t.TempDir())
		defer st.Close()
		rc := &receiver{t: t}
		b := startBox(t, st, rc)
		party := addEvent(t, st, "Party")
		addHook(t, st, store.WebhookJSON, "", store.NoticePhotoUploaded)
		ctx := context.Background()
		// Start off the window's clock alignment, as a party does.
		time.Sleep(7*time.Minute + 13*time.Second)
		photo := func(i int) {
			t.Helper()
			if _, err := b.runner.Enqueue(ctx, notice(t, store.NoticePhotoUploaded, party.ID,
				map[string]string{"photoId": fmt.Sprint("p", i)})); err != nil {
				t.Fatal(err)
			}
		}
		counts := func() []int {
			t.Helper()
			var out []int
			for _, g := range rc.delivered() {
				var body struct{ Data struct{ Count int } }
				if err := json.Unmarshal(g.body, &body); err != nil {
					t.Fatal(err)
				}
				out = append(out, body.Data.Count)
			}
			return out
		}
		type step struct {
			wait time.Duration // before the photo (none: no photo)
			take bool
			want string // the deliveries' counts so far
		}
		for i, s := range []step{
			{0, true, "[1]"},                                 // the first photo, at once
			{time.Second, false, "[1]"},                      // nothing else yet
			{30 * time.Second, true, "[1]"},                  // folded
			{2 * time.Minute, true, "[1]"},                   // folded
			{3 * time.Minute, false, "[1]"},                  // still within the window
			{5 * time.Minute, false, "[1 2]"},                // the window's summary
			{9 * time.Minute, false, "[1 2]"},                // nothing more
			{15 * time.Minute, true, "[1 2 1]"},              // after a quiet window: at once
			{10*time.Minute + time.Second, false, "[1 2 1]"}, // its window held nothing
		} {
			time.Sleep(s.wait)
			if s.take {
				photo(i)
			}
			// What goes at once goes within a second of fake time.
			time.Sleep(time.Second)
			b.idle()
			if got := fmt.Sprint(counts()); got != s.want {
				t.Fatalf("step %d: deliveries %s, want %s", i, got, s.want)
			}
		}
	})
}
