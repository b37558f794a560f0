package scenarios_test

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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/daemon/outbox"
	"eventbox/store"
)

// hookReceiver is a webhook receiver on an httptest server: it checks
// each request's signature, answers status (200 unless set), and keeps
// what it took.
type hookReceiver struct {
	t      *testing.T
	srv    *httptest.Server
	secret string // guarded by mu
	status atomic.Int32
	mu     sync.Mutex
	paths  []string
	taken  []hookDelivery
	tries  int
	came   chan struct{}
}

// hookDelivery is one delivery a receiver took.
type hookDelivery struct {
	ID   string
	Kind string `json:"kind"`
	At   int64  `json:"at"`
	Data any    `json:"data"`
	Body map[string]any
}

func newHookReceiver(t *testing.T, secret string) *hookReceiver {
	rc := &hookReceiver{t: t, secret: secret, came: make(chan struct{}, 100)}
	rc.status.Store(http.StatusOK)
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *hookReceiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	secret := rc.secret
	rc.mu.Unlock()
	if secret != "" {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(r.Header.Get("X-Eventbox-Timestamp") + "." + string(body)))
		if got, want := r.Header.Get("X-Eventbox-Signature"), "sha256="+hex.EncodeToString(m.Sum(nil)); got != want {
			rc.t.Errorf("signature %q, want %q", got, want)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
	}
	status := int(rc.status.Load())
	rc.mu.Lock()
	rc.tries++
	rc.paths = append(rc.paths, r.URL.Path)
	if status < 300 {
		d := hookDelivery{ID: r.Header.Get("X-Eventbox-Delivery")}
		_ = json.Unmarshal(body, &d)
		_ = json.Unmarshal(body, &d.Body)
		rc.taken = append(rc.taken, d)
	}
	rc.mu.Unlock()
	w.WriteHeader(status)
	fmt.Fprint(w, "receiver says ", status)
	select {
	case rc.came <- struct{}{}:
	default:
	}
}

func (rc *hookReceiver) deliveries() []hookDelivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hookDelivery(nil), rc.taken...)
}

// waitTaken waits until the receiver has taken n deliveries.
func (rc *hookReceiver) waitTaken(t *testing.T, n int) []hookDelivery {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if d := rc.deliveries(); len(d) >= n {
			return d
		}
		select {
		case <-rc.came:
		case <-deadline:
			t.Fatalf("the receiver took %d deliveries in 20 s, want %d", len(rc.deliveries()), n)
		}
	}
}

// netSignals injects the box's network changes: the daemon's watcher
// reads them instead of the routing table.
func netSignals(ch chan struct{}) func(*daemon.Config) {
	return func(cfg *daemon.Config) {
		cfg.NetChanges = func(ctx context.Context) (<-chan struct{}, error) { return ch, nil }
		cfg.NetSettle = time.Millisecond
	}
}

// webhookJobs lists the delivery jobs of the store.
func webhookJobs(t *testing.T, st *store.Store) []store.Job {
	t.Helper()
	page, err := st.Jobs().List(context.Background(), store.JobFilter{Kind: outbox.WebhookJobKind, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return page.Jobs
}

// waitDeliveryTries waits until some delivery has failed n times and
// waits for its retry.
func waitDeliveryTries(t *testing.T, st *store.Store, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, j := range webhookJobs(t, st) {
			if j.Failures >= n && j.Status == store.JobQueued {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivery failed %d times within 20 s: %+v", n, webhookJobs(t, st))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitSent waits until n deliveries are recorded as sent: a receiver has
// the request a moment before the box records its answer.
func waitSent(t *testing.T, st *store.Store, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		done := 0
		for _, j := range webhookJobs(t, st) {
			if j.Status == store.JobDone {
				done++
			}
		}
		if done >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries sent within 20 s, want %d: %+v", done, n, webhookJobs(t, st))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWebhookRoutes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	rc := newHookReceiver(t, "s3cret-value")
	hookURL := rc.srv.URL + "/hooks/TOKEN-IN-PATH?key=abc"
	valid := map[string]any{"name": "Phone", "type": "json", "url": hookURL,
		"kinds": []string{"photo.uploaded", "event.ended"}, "secret": "s3cret-value"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range valid {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for _, tt := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"a webhook needs a name", with("name", nil), "name"},
		{"a webhook's type is one of the four", with("type", "teams"), "type"},
		{"a webhook needs a url", with("url", nil), "url"},
		{"a webhook's url is http or https", with("url", "ftp://example.com/x"), "url"},
		{"a webhook's kinds are notice kinds", with("kinds", []string{"photo.deleted"}), "kinds"},
		{"a webhook wants at least one kind", with("kinds", []string{}), "kinds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("POST", "/api/admin/webhooks", tt.body).expect(t, 400, "bad_request")
			if r.details()[tt.field] == nil {
				t.Fatalf("details %v lack %s", r.details(), tt.field)
			}
		})
	}

	r := owner.do("POST", "/api/admin/webhooks", valid).expect(t, 201, "")
	hook := r.JSON["webhook"].(map[string]any)
	id := hook["id"].(string)
	t.Run("the answer shows the url as scheme and host, and no secret", func(t *testing.T) {
		want := map[string]any{"id": id, "name": "Phone", "type": "json", "url": rc.srv.URL,
			"kinds": []any{"photo.uploaded", "event.ended"}, "hasSecret": true, "enabled": true,
			"createdAt": float64(h.clock.Now().UnixMilli())}
		if fmt.Sprint(hook) != fmt.Sprint(want) {
			t.Fatalf("webhook %v, want %v", hook, want)
		}
		list := owner.do("GET", "/api/admin/webhooks", nil).expect(t, 200, "")
		if strings.Contains(string(list.Body), "TOKEN-IN-PATH") || strings.Contains(string(list.Body), "s3cret") {
			t.Fatalf("the list leaks the url or the secret: %s", list.Body)
		}
		if hooks := list.JSON["webhooks"].([]any); len(hooks) != 1 || list.JSON["deliveries"] == nil {
			t.Fatalf("list %s", list.Body)
		}
	})
	t.Run("a test reaches the full url, signed", func(t *testing.T) {
		owner.do("POST", "/api/admin/webhooks/"+id+"/test", nil).expect(t, 200, "")
		d := rc.waitTaken(t, 1)
		if d[0].Kind != "test" || d[0].ID == "" {
			t.Fatalf("test delivery %+v", d[0])
		}
	})
	t.Run("a PATCH with an empty url keeps the stored one", func(t *testing.T) {
		r := owner.do("PATCH", "/api/admin/webhooks/"+id, map[string]any{"url": "", "name": "Ana's phone", "type": "ntfy"}).expect(t, 200, "")
		if w := r.JSON["webhook"].(map[string]any); w["url"] != rc.srv.URL || w["name"] != "Ana's phone" || w["hasSecret"] != true {
			t.Fatalf("webhook %v", w)
		}
		owner.do("POST", "/api/admin/webhooks/"+id+"/test", nil).expect(t, 200, "")
		rc.mu.Lock()
		last := rc.paths[len(rc.paths)-1]
		rc.mu.Unlock()
		if last != "/hooks/TOKEN-IN-PATH" {
			t.Fatalf("the test went to %q", last)
		}
	})
	t.Run("a null secret removes it", func(t *testing.T) {
		rc.mu.Lock()
		rc.secret = ""
		rc.mu.Unlock()
		r := owner.do("PATCH", "/api/admin/webhooks/"+id, map[string]any{"secret": nil, "type": "json"}).expect(t, 200, "")
		if r.JSON["webhook"].(map[string]any)["hasSecret"] != false {
			t.Fatalf("webhook %s", r.Body)
		}
	})
	t.Run("a failed test answers 502 webhook_failed with the receiver's answer", func(t *testing.T) {
		rc.status.Store(http.StatusForbidden)
		defer rc.status.Store(http.StatusOK)
		r := owner.do("POST", "/api/admin/webhooks/"+id+"/test", nil).expect(t, 502, "webhook_failed")
		if msg, _ := r.JSON["message"].(string); msg != "the receiver answered 403: receiver says 403" {
			t.Fatalf("message %q", msg)
		}
	})
	t.Run("a test of an unreachable receiver says why", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		deadURL := dead.URL
		dead.Close()
		r := owner.do("POST", "/api/admin/webhooks", with("url", deadURL+"/x")).expect(t, 201, "")
		other := r.JSON["webhook"].(map[string]any)["id"].(string)
		r = owner.do("POST", "/api/admin/webhooks/"+other+"/test", nil).expect(t, 502, "webhook_failed")
		if msg, _ := r.JSON["message"].(string); !strings.Contains(msg, "connect") || strings.Contains(msg, deadURL) {
			t.Fatalf("message %q", msg)
		}
		owner.do("DELETE", "/api/admin/webhooks/"+other, nil).expect(t, 200, "")
	})
	t.Run("unknown webhooks are not found", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/webhooks/"+store.NewID(), map[string]any{"name": "x"}).expect(t, 404, "not_found")
		owner.do("POST", "/api/admin/webhooks/"+store.NewID()+"/test", nil).expect(t, 404, "not_found")
		owner.do("DELETE", "/api/admin/webhooks/nope", nil).expect(t, 404, "not_found")
	})
	t.Run("organizers cannot see or touch webhooks", func(t *testing.T) {
		org := h.organizer("planner")
		org.do("GET", "/api/admin/webhooks", nil).expect(t, 403, "forbidden")
		org.do("PATCH", "/api/admin/webhooks/"+id, map[string]any{"enabled": false}).expect(t, 403, "forbidden")
		org.do("POST", "/api/admin/webhooks/"+id+"/test", nil).expect(t, 403, "forbidden")
	})
	t.Run("a deleted webhook is gone", func(t *testing.T) {
		owner.do("DELETE", "/api/admin/webhooks/"+id, nil).expect(t, 200, "")
		if hooks := owner.do("GET", "/api/admin/webhooks", nil).expect(t, 200, "").JSON["webhooks"].([]any); len(hooks) != 0 {
			t.Fatalf("webhooks %v", hooks)
		}
	})
}

func TestTheParty(t *testing.T) {
	t.Parallel()
	signals := make(chan struct{}, 1)
	h := newHarness(t, netSignals(signals))
	owner := h.owner()
	rc := newHookReceiver(t, "party-secret")
	owner.do("POST", "/api/admin/webhooks", map[string]any{"name": "All", "type": "json", "url": rc.srv.URL,
		"kinds": store.NoticeKinds(), "secret": "party-secret"}).expect(t, 201, "")
	ev := h.createEvent(owner, map[string]any{"name": "Ana & Ben"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	ana := h.guest(slug)
	ana.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana"}).expect(t, 200, "")
	for i := range 3 {
		ana.upload(slug, photoJPEG(t, 64, 48, 1, false, i), nil, "").expect(t, 201, "")
	}
	ana.postMessage(slug, "Congratulations!", nil, "").expect(t, 201, "")
	// Another event moderates before it shows: its photo waits.
	moderated := h.createEvent(owner, map[string]any{"name": "Moderated", "moderation": "pre"})
	h.guest(moderated["slug"].(string)).upload(moderated["slug"].(string), photoJPEG(t, 64, 48, 1, false, 9), nil, "").expect(t, 201, "")
	owner.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 200, "")

	// The first notice of each kind after a quiet spell goes out at once
	// (docs/decisions/background.md): Ana's first photo, her message, the
	// moderated event's photo, the end. Her next two photos wait for the
	// window.
	got := rc.waitTaken(t, 4)
	byKind := map[string]hookDelivery{}
	for _, d := range got {
		byKind[d.Kind] = d
	}
	if len(got) != 4 || len(byKind) != 4 {
		t.Fatalf("deliveries at once %+v, want one each of photo.uploaded, message.created, photo.pending, event.ended", got)
	}
	ref, _ := byKind["event.ended"].Body["event"].(map[string]any)
	if ref["id"] != id || ref["slug"] != slug || ref["name"] != "Ana & Ben" {
		t.Fatalf("event %v", ref)
	}
	photos, _ := byKind["photo.uploaded"].Data.(map[string]any)
	if photos["count"] != 1.0 || len(photos["items"].([]any)) != 1 {
		t.Fatalf("first photo delivery data %v, want a count of 1", photos)
	}
	item := photos["items"].([]any)[0].(map[string]any)
	if item["guestName"] != "Ana" || item["photoId"] == "" {
		t.Fatalf("photo item %v", item)
	}
	if msgs, _ := byKind["message.created"].Data.(map[string]any); msgs["count"] != 1.0 {
		t.Fatalf("message delivery %v", byKind["message.created"])
	}
	pending := byKind["photo.pending"]
	if data, _ := pending.Data.(map[string]any); data["count"] != 1.0 || pending.Body["event"].(map[string]any)["id"] != moderated["id"] {
		t.Fatalf("pending delivery %+v", pending)
	}
	// The window ends; the runner looks again when told (here by a
	// network change): the two photos that followed are one delivery.
	h.clock.Advance(outbox.DefaultWindow)
	signals <- struct{}{}
	got = rc.waitTaken(t, 5)
	if last, _ := got[4].Data.(map[string]any); got[4].Kind != "photo.uploaded" || last["count"] != 2.0 || len(last["items"].([]any)) != 2 {
		t.Fatalf("the window's delivery %+v, want the two photos that followed the first", got[4])
	}

	waitSent(t, h.st, 5)
	list := owner.do("GET", "/api/admin/webhooks", nil).expect(t, 200, "").JSON["deliveries"].([]any)
	if len(list) != 5 {
		t.Fatalf("deliveries %v", list)
	}
	for _, raw := range list {
		d := raw.(map[string]any)
		if d["status"] != "sent" || d["attempts"] != 1.0 || d["responseStatus"] != 200.0 || d["error"] != nil || d["nextAttemptAt"] != nil {
			t.Fatalf("delivery %v", d)
		}
	}
}

func TestANetworkChangeSendsTheWaitingDeliveriesAtOnce(t *testing.T) {
	t.Parallel()
	signals := make(chan struct{}, 1)
	h := newHarness(t, netSignals(signals))
	owner := h.owner()
	rc := newHookReceiver(t, "")
	rc.status.Store(http.StatusBadGateway)
	owner.do("POST", "/api/admin/webhooks", map[string]any{"name": "Phone", "type": "ntfy", "url": rc.srv.URL,
		"kinds": []string{"event.ended"}}).expect(t, 201, "")
	ev := h.createEvent(owner, map[string]any{"name": "Offline party"})
	owner.do("POST", "/api/admin/events/"+ev["id"].(string)+"/end", nil).expect(t, 200, "")
	waitDeliveryTries(t, h.st, 1)

	d := owner.do("GET", "/api/admin/webhooks", nil).expect(t, 200, "").JSON["deliveries"].([]any)[0].(map[string]any)
	if d["status"] != "pending" || d["attempts"] != 1.0 || d["responseStatus"] != 502.0 ||
		d["error"] != "the receiver answered 502: receiver says 502" || d["nextAttemptAt"].(float64) <= float64(h.clock.Now().UnixMilli()) {
		t.Fatalf("a failed delivery is listed as %v", d)
	}
	// The network comes back: no time passes on the box's clock, yet the
	// delivery goes out.
	rc.status.Store(http.StatusOK)
	signals <- struct{}{}
	got := rc.waitTaken(t, 1)
	if len(got) != 1 {
		t.Fatalf("deliveries %+v", got)
	}
	waitSent(t, h.st, 1)
	d = owner.do("GET", "/api/admin/webhooks", nil).expect(t, 200, "").JSON["deliveries"].([]any)[0].(map[string]any)
	if d["status"] != "sent" || d["attempts"] != 2.0 || d["responseStatus"] != 200.0 {
		t.Fatalf("the delivery is listed as %v", d)
	}
}

func TestDeliveriesPendingAtARestartGoOutAfterIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rc := newHookReceiver(t, "k")
	rc.status.Store(http.StatusServiceUnavailable)
	inDir := func(cfg *daemon.Config) { cfg.DataDir = dir }
	t.Run("the party, offline", func(t *testing.T) {
		h := newHarness(t, inDir)
		owner := h.owner()
		owner.do("POST", "/api/admin/webhooks", map[string]any{"name": "Phone", "type": "json", "url": rc.srv.URL,
			"kinds": []string{"event.ended"}, "secret": "k"}).expect(t, 201, "")
		ev := h.createEvent(owner, map[string]any{"name": "Offline party"})
		owner.do("POST", "/api/admin/events/"+ev["id"].(string)+"/end", nil).expect(t, 200, "")
		waitDeliveryTries(t, h.st, 1)
	})
	t.Run("back home", func(t *testing.T) {
		// No network change is seen and no time passes on the box's
		// clock: the start wakes the waiting delivery.
		rc.status.Store(http.StatusOK)
		h := newHarness(t, inDir, netSignals(make(chan struct{})))
		got := rc.waitTaken(t, 1)
		if len(got) != 1 || got[0].Kind != "event.ended" {
			t.Fatalf("deliveries %+v", got)
		}
		waitSent(t, h.st, 1)
		jobs := webhookJobs(t, h.st)
		if len(jobs) != 1 || jobs[0].Tries != 2 || got[0].ID != fmt.Sprint(jobs[0].ID) {
			t.Fatalf("jobs %+v, delivery id %q", jobs, got[0].ID)
		}
	})
}
