package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/store"
)

// Fanout turns a notice into jobs of its own (an alert mail). It is called
// by the notice's handler, outside any transaction, and may be called
// again for the same notice if the handler fails before it has recorded
// the fan-out; what it returns is enqueued with the webhook deliveries in
// one transaction, once. Give each job a Key derived from the notice and
// the target, so that an unfinished copy is never doubled.
type Fanout func(ctx context.Context, n store.Notice) ([]store.JobSpec, error)

// WebhookJobKind is the job kind of one webhook delivery.
const WebhookJobKind = "webhook"

// DefaultWindow is the coalescing window of bursty notices.
const DefaultWindow = 10 * time.Minute

// maxItems is how many coalesced notices' data a delivery carries.
const maxItems = 10

// Retry is the delivery kind's policy: capped exponential backoff with
// jitter, for 48 hours (the box is often offline for a weekend).
func Retry() jobs.Policy {
	return jobs.Policy{Base: 30 * time.Second, Cap: time.Hour, Jitter: 0.3, MaxAge: 48 * time.Hour,
		Timeout: 2 * time.Minute}
}

// Config holds the outbox's dependencies.
type Config struct {
	// Store keeps the webhooks, events and jobs; must not be nil.
	Store *store.Store
	// Logger receives the outbox's events; nil discards them.
	Logger *slog.Logger
	// Client sends the deliveries; nil means a client with a 30 s
	// timeout that does not follow redirects.
	Client *http.Client
	// Now is the clock of the signature timestamps; nil means time.Now.
	Now func() time.Time
	// Fanouts are called for every notice, after the webhooks.
	Fanouts []Fanout
	// Window is the coalescing window of bursty kinds; 0 means
	// DefaultWindow.
	Window time.Duration
	// Jobs is the runner that works the outbox's kinds, told of the
	// deliveries it enqueues; nil: they wait for its poll.
	Jobs *jobs.Runner
}

// Outbox fans notices out and delivers webhooks. Create it with New over
// the job runner (Config.Jobs) and register its Kinds with that runner. It
// is safe for concurrent use.
type Outbox struct {
	store   *store.Store
	log     *slog.Logger
	client  *http.Client
	now     func() time.Time
	fanouts []Fanout
	window  time.Duration
	runner  *jobs.Runner

	// mu guards bursts: per webhook, event and kind of a bursty notice,
	// when its burst began and its latest notice (see deliverySpec).
	mu     sync.Mutex
	bursts map[string]burst
}

// burst is a run of bursty notices of one webhook, event and kind with no
// quiet window between them: lead is the At of its first notice, the one
// sent at once, last the At of its latest.
type burst struct{ lead, last int64 }

// New returns an outbox over cfg.
func New(cfg Config) (*Outbox, error) {
	if cfg.Store == nil {
		return nil, errors.New("outbox: nil store")
	}
	o := &Outbox{store: cfg.Store, log: cfg.Logger, client: cfg.Client, now: cfg.Now,
		fanouts: cfg.Fanouts, window: cfg.Window, bursts: map[string]burst{}, runner: cfg.Jobs}
	if o.log == nil {
		o.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	o.log = o.log.With("component", "outbox")
	if o.client == nil {
		o.client = &http.Client{Timeout: 30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.window <= 0 {
		o.window = DefaultWindow
	}
	return o, nil
}

// Kinds are the job kinds the outbox handles: the notices and the webhook
// deliveries.
func (o *Outbox) Kinds() []jobs.Kind {
	return []jobs.Kind{
		{Name: store.NoticeJobKind, Handler: o.handleNotice},
		{Name: WebhookJobKind, Handler: o.handleDelivery, Concurrency: 2, Retry: Retry(), WakeOnSuccess: true},
	}
}

// Notify tells the runner that notices were enqueued by a store method.
// It never blocks.
func (o *Outbox) Notify() {
	if o.runner != nil {
		o.runner.Notify(store.NoticeJobKind)
	}
}

// delivery is the payload of a webhook job.
type delivery struct {
	WebhookID string `json:"webhookId"`
	// Notice is the notice delivered; for a coalesced delivery, the
	// latest one.
	Notice store.Notice `json:"notice"`
	// Count is how many notices a coalesced delivery carries (0 when it
	// is not coalesced); Items are the data of the first maxItems.
	Count int               `json:"count,omitempty"`
	Items []json.RawMessage `json:"items,omitempty"`
}

// coalesced reports whether notices of kind are folded into one delivery
// per window.
func coalesced(kind string) bool {
	switch kind {
	case store.NoticePhotoUploaded, store.NoticePhotoPending, store.NoticeMessageCreated:
		return true
	}
	return false
}

// handleNotice fans one notice out.
func (o *Outbox) handleNotice(ctx context.Context, j jobs.Job) error {
	var n store.Notice
	if err := j.Decode(&n); err != nil {
		return err
	}
	if j.Progress != nil && j.Progress.Note == store.FanOutNote {
		return nil
	}
	hooks, err := o.store.Webhooks().List(ctx)
	if err != nil {
		return err
	}
	var specs []store.FanOutSpec
	seen := map[string]burst{}
	for _, w := range hooks {
		if !w.Wants(n.Kind) {
			continue
		}
		fs, err := o.deliverySpec(j.ID, w.ID, n, seen)
		if err != nil {
			return jobs.Permanent(err)
		}
		specs = append(specs, fs)
	}
	for _, f := range o.fanouts {
		more, err := f(ctx, n)
		if err != nil {
			return fmt.Errorf("fanning out notice %s: %w", n.Kind, err)
		}
		for _, sp := range more {
			specs = append(specs, store.FanOutSpec{Spec: sp})
		}
	}
	if len(specs) == 0 {
		return nil // nobody listens: nothing to record but the job's end
	}
	err = o.store.Jobs().FanOut(ctx, j.ID, j.Tries, specs)
	if errors.Is(err, store.ErrFannedOut) {
		return nil
	}
	if err != nil {
		return err
	}
	o.noteBursts(n.At, seen)
	if o.runner != nil {
		for _, fs := range specs {
			o.runner.Notify(fs.Spec.Kind)
		}
	}
	return nil
}

// deliverySpec is the delivery of n to webhook id, for notice job
// noticeID: its own job; or for a bursty kind, the first notice of a
// quiet spell (no notice of the webhook, event and kind in the window
// before it) in a delivery of its own sent at once, and a later one a
// share of the summary of its window, counted from that first notice and
// sent at the window's end. What the burst becomes is put in seen, for
// noteBursts once the fan-out is recorded.
func (o *Outbox) deliverySpec(noticeID uint64, id string, n store.Notice, seen map[string]burst) (store.FanOutSpec, error) {
	own := "n" + strconv.FormatUint(noticeID, 10) + ":" + id
	if !coalesced(n.Kind) {
		p, err := json.Marshal(delivery{WebhookID: id, Notice: n})
		if err != nil {
			return store.FanOutSpec{}, fmt.Errorf("encoding a delivery: %w", err)
		}
		return store.FanOutSpec{Spec: store.JobSpec{Kind: WebhookJobKind, Key: own, Payload: p}}, nil
	}
	w := o.window.Milliseconds()
	d := delivery{WebhookID: id, Notice: n, Count: 1}
	if n.Data != nil {
		d.Items = []json.RawMessage{n.Data}
	}
	p, err := json.Marshal(d)
	if err != nil {
		return store.FanOutSpec{}, fmt.Errorf("encoding a delivery: %w", err)
	}
	k := id + ":" + n.EventID + ":" + n.Kind
	o.mu.Lock()
	b, ok := o.bursts[k]
	o.mu.Unlock()
	if !ok || n.At-b.last >= w || n.At < b.lead {
		seen[k] = burst{lead: n.At, last: n.At}
		return store.FanOutSpec{Spec: store.JobSpec{Kind: WebhookJobKind, Key: own, Payload: p}}, nil
	}
	seen[k] = burst{lead: b.lead, last: max(b.last, n.At)}
	slot := (n.At - b.lead) / w
	return store.FanOutSpec{
		Spec: store.JobSpec{Kind: WebhookJobKind, Payload: p, RunAt: time.UnixMilli(b.lead + (slot+1)*w),
			Key: fmt.Sprintf("burst:%s:%d:%d", k, b.lead, slot)},
		AltKey: own,
		Merge: func(old json.RawMessage) (json.RawMessage, error) {
			var prev delivery
			if err := json.Unmarshal(old, &prev); err != nil {
				return nil, err
			}
			prev.Count++
			if n.At >= prev.Notice.At {
				prev.Notice = n
			}
			if n.Data != nil && len(prev.Items) < maxItems {
				prev.Items = append(prev.Items, n.Data)
			}
			return json.Marshal(prev)
		},
	}, nil
}

// noteBursts records the bursts a notice at `at` fanned out into, and
// forgets those quiet for a window.
func (o *Outbox) noteBursts(at int64, seen map[string]burst) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, b := range o.bursts {
		if at-b.last >= o.window.Milliseconds() {
			delete(o.bursts, k)
		}
	}
	for k, b := range seen {
		o.bursts[k] = b
	}
}
