package outbox

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/store"
)

// Header names of a delivery.
const (
	HeaderTimestamp = "X-Eventbox-Timestamp"
	HeaderSignature = "X-Eventbox-Signature"
	HeaderDelivery  = "X-Eventbox-Delivery"
	HeaderKind      = "X-Eventbox-Kind"
)

// TestKind is the kind of the message POST …/webhooks/:id/test sends.
const TestKind = "test"

// Sign is the X-Eventbox-Signature value of body sent at ts (epoch
// seconds) with secret: "sha256=" and the hex HMAC-SHA256 of
// "<ts>.<body>".
func Sign(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%d.", ts)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// SendError is a delivery the receiver did not take: Status is its HTTP
// status (0 when it could not be reached) and Answer the start of its
// answer, or the network error.
type SendError struct {
	Status int
	Answer string
	// retry is whether trying again may help.
	retry      bool
	retryAfter time.Duration
}

func (e *SendError) Error() string {
	if e.Status == 0 {
		return e.Answer
	}
	if e.Answer == "" {
		return fmt.Sprintf("the receiver answered %d", e.Status)
	}
	return fmt.Sprintf("the receiver answered %d: %s", e.Status, e.Answer)
}

// ErrSealedElsewhere is a webhook whose url or secret this box cannot
// open (store.Webhook.URLLost, SecretLost).
var ErrSealedElsewhere = errors.New("the webhook's url or secret was sealed by another box (this database comes from its backup): enter them again")

// maxAnswer is how much of a receiver's answer is kept.
const maxAnswer = 300

// handleDelivery makes one attempt at a webhook delivery.
func (o *Outbox) handleDelivery(ctx context.Context, j jobs.Job) error {
	var d delivery
	if err := j.Decode(&d); err != nil {
		return err
	}
	w, err := o.store.Webhooks().Get(ctx, d.WebhookID)
	if errors.Is(err, store.ErrNotFound) {
		return jobs.Permanent(errors.New("the webhook was deleted"))
	}
	if err != nil {
		return err
	}
	if !w.Enabled {
		return jobs.Permanent(errors.New("the webhook is disabled"))
	}
	status, err := o.send(ctx, w, strconv.FormatUint(j.ID, 10), d)
	if status != 0 {
		j.SetResult(strconv.Itoa(status))
	}
	var se *SendError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) && !se.retry:
		return jobs.Permanent(err)
	case errors.As(err, &se) && se.retryAfter > 0:
		return jobs.RetryAfter(se.retryAfter, err)
	}
	return err
}

// DeliveryOf reads the webhook id and the notice kind of a webhook job,
// for a list of deliveries; both are empty when its payload is not one.
func DeliveryOf(j store.Job) (webhookID, kind string) {
	var d delivery
	if json.Unmarshal(j.Payload, &d) != nil {
		return "", ""
	}
	return d.WebhookID, d.Notice.Kind
}

// Test sends a test message to w at once, outside the queue, and answers
// nil or the reason it failed (a *SendError carries the receiver's
// answer).
func (o *Outbox) Test(ctx context.Context, w store.Webhook) error {
	n := store.Notice{Kind: TestKind, At: o.now().UnixMilli()}
	_, err := o.send(ctx, w, "test-"+store.NewID(), delivery{WebhookID: w.ID, Notice: n})
	return err
}

// send posts d to w with the delivery id id, and answers the receiver's
// status (0 when it could not be reached).
func (o *Outbox) send(ctx context.Context, w store.Webhook, id string, d delivery) (int, error) {
	if w.URLLost || w.SecretLost {
		// Sealed by another box (the database came from its backup):
		// nothing can be sent, nor sent unsigned, until the owner
		// enters them again.
		return 0, &SendError{Answer: ErrSealedElsewhere.Error()}
	}
	var ev *eventRef
	if d.Notice.EventID != "" {
		e, err := o.store.Events().Get(ctx, d.Notice.EventID)
		switch {
		case err == nil:
			ev = &eventRef{ID: e.ID, Slug: e.Slug, Name: e.Name}
		case errors.Is(err, store.ErrNotFound):
			ev = &eventRef{ID: d.Notice.EventID}
		default:
			return 0, err
		}
	}
	body, ctype, extra, err := format(w.Type, d, ev)
	if err != nil {
		return 0, jobs.Permanent(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return 0, &SendError{Answer: "the url cannot be used: " + err.Error()}
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("User-Agent", "eventbox")
	req.Header.Set(HeaderDelivery, id)
	req.Header.Set(HeaderKind, d.Notice.Kind)
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	if w.Secret != "" {
		ts := o.now().Unix()
		req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
		req.Header.Set(HeaderSignature, Sign(w.Secret, ts, body))
	}
	resp, err := o.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("sending webhook %s: %w", w.ID, ctx.Err())
		}
		return 0, &SendError{Answer: unwrapURLError(err), retry: true}
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, nil
	}
	se := &SendError{Status: resp.StatusCode, Answer: strings.TrimSpace(string(answer))}
	switch c := resp.StatusCode; {
	case c == http.StatusRequestTimeout, c == http.StatusTooEarly, c == http.StatusTooManyRequests, c >= 500:
		se.retry = true
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			se.retryAfter = min(time.Duration(s)*time.Second, Retry().Cap)
		}
	}
	return resp.StatusCode, se
}

// unwrapURLError drops the "Post \"<url>\":" prefix of a client error:
// the url is a secret, and the rest says what went wrong.
func unwrapURLError(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}

// eventRef is the event of a json delivery.
type eventRef struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
	Name string `json:"name"`
}

// jsonBody is the body of a json webhook.
type jsonBody struct {
	Kind  string          `json:"kind"`
	At    int64           `json:"at"`
	Event *eventRef       `json:"event"`
	Data  json.RawMessage `json:"data"`
}

// data is what a delivery carries as its data: the notice's, or for a
// coalesced delivery { count, items }.
func (d delivery) data() (json.RawMessage, error) {
	if d.Count == 0 {
		if d.Notice.Data == nil {
			return json.RawMessage("null"), nil
		}
		return d.Notice.Data, nil
	}
	items := d.Items
	if items == nil {
		items = []json.RawMessage{}
	}
	return json.Marshal(struct {
		Count int               `json:"count"`
		Items []json.RawMessage `json:"items"`
	}{d.Count, items})
}

// format is the body, content type and extra headers of d for a webhook
// of type typ.
func format(typ string, d delivery, ev *eventRef) ([]byte, string, map[string]string, error) {
	data, err := d.data()
	if err != nil {
		return nil, "", nil, fmt.Errorf("encoding a delivery's data: %w", err)
	}
	if typ == store.WebhookJSON {
		b, err := json.Marshal(jsonBody{Kind: d.Notice.Kind, At: d.Notice.At, Event: ev, Data: data})
		return b, "application/json", nil, err
	}
	m := describe(d, ev)
	switch typ {
	case store.WebhookNtfy:
		h := map[string]string{"Title": m.title, "Tags": m.tag}
		if m.urgent {
			h["Priority"] = "high"
		}
		return []byte(m.text), "text/plain; charset=utf-8", h, nil
	case store.WebhookDiscord:
		b, err := json.Marshal(map[string]any{"username": "eventbox",
			"content": "**" + m.title + "**\n" + m.text, "allowed_mentions": map[string]any{"parse": []string{}}})
		return b, "application/json", nil, err
	case store.WebhookSlack:
		b, err := json.Marshal(map[string]string{"text": "*" + m.title + "*\n" + m.text})
		return b, "application/json", nil, err
	}
	return nil, "", nil, fmt.Errorf("webhook type %q", typ)
}
