package booth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Message types.
const (
	// TypeTrigger asks the booth page to start a capture (the button was
	// pressed).
	TypeTrigger = "trigger"
	// TypeStatus tells the booth page what the LED now shows.
	TypeStatus = "status"
)

// Message is one booth message for a booth page.
type Message struct {
	// Type is [TypeTrigger] or [TypeStatus]; it is also the SSE event name.
	Type string
	// At is when it happened (a press: when the button went down).
	At time.Time
	// State is the LED state for a status message, empty for a trigger.
	State string
}

// TriggerMessage is the message announcing press p.
func TriggerMessage(p Press) Message {
	return Message{Type: TypeTrigger, At: p.At}
}

// StatusMessage is the message announcing LED state s at time at.
func StatusMessage(s State, at time.Time) Message {
	return Message{Type: TypeStatus, At: at, State: s.String()}
}

// messageJSON is the data line of a message: times are epoch milliseconds.
type messageJSON struct {
	Type  string `json:"type"`
	At    int64  `json:"at"`
	State string `json:"state,omitempty"`
}

// SSE returns m as one Server-Sent Events frame:
//
//	event: trigger
//	data: {"type":"trigger","at":1718000000000}
//
// followed by a blank line. at is epoch milliseconds; state appears on
// status messages only.
func (m Message) SSE() []byte {
	data, err := json.Marshal(messageJSON{Type: m.Type, At: m.At.UnixMilli(), State: m.State})
	if err != nil {
		// Strings and an integer always marshal.
		panic(fmt.Sprintf("booth: marshalling message: %v", err))
	}
	// An event name with a line break would split the frame; Type is one
	// of the constants above, but keep the frame well-formed regardless.
	name := m.Type
	for i := 0; i < len(name); i++ {
		if name[i] == '\n' || name[i] == '\r' {
			name = "message"
			break
		}
	}
	b := make([]byte, 0, len(name)+len(data)+16)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// Hub timings and sizes.
const (
	// SubscriberBuffer is how many messages wait for a slow subscriber
	// before newer ones are dropped.
	SubscriberBuffer = 16
	// KeepAlive is how often [Hub.Serve] writes an SSE comment on an idle
	// stream, so proxies and phones keep the connection open.
	KeepAlive = 20 * time.Second
	// retryMillis is the reconnection delay suggested to EventSource.
	retryMillis = 2000
)

// Hub fans booth messages out to the booth pages subscribed to an event.
// Publishing never blocks: a subscriber whose buffer is full misses the
// message. The zero value is not usable; use [NewHub]. A Hub is safe for
// concurrent use.
type Hub struct {
	mu   sync.Mutex
	subs map[string]map[*subscriber]struct{}
}

type subscriber struct {
	ch   chan Message
	once sync.Once
}

// NewHub returns an empty Hub.
func NewHub() *Hub {
	return &Hub{subs: make(map[string]map[*subscriber]struct{})}
}

// Subscribe registers a subscriber to eventID's messages. It returns the
// channel the messages arrive on and a cancel function that unregisters the
// subscriber and closes the channel; cancel is idempotent and safe to call
// from any goroutine. Every subscriber must be cancelled eventually.
func (h *Hub) Subscribe(eventID string) (<-chan Message, func()) {
	s := &subscriber{ch: make(chan Message, SubscriberBuffer)}
	h.mu.Lock()
	set := h.subs[eventID]
	if set == nil {
		set = make(map[*subscriber]struct{})
		h.subs[eventID] = set
	}
	set[s] = struct{}{}
	h.mu.Unlock()
	cancel := func() {
		s.once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			delete(h.subs[eventID], s)
			if len(h.subs[eventID]) == 0 {
				delete(h.subs, eventID)
			}
			close(s.ch)
		})
	}
	return s.ch, cancel
}

// Publish sends m to every subscriber of eventID without blocking, and
// returns how many subscribers received it (subscribers whose buffer is full
// do not).
func (h *Hub) Publish(eventID string, m Message) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return send(h.subs[eventID], m)
}

// Broadcast sends m to every subscriber of every event, like [Hub.Publish].
// The box has one physical button, so a press goes to whichever booth pages
// are connected.
func (h *Hub) Broadcast(m Message) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, set := range h.subs {
		n += send(set, m)
	}
	return n
}

// send delivers m to the subscribers in set that have room. The caller holds
// the hub's lock, which keeps cancel from closing a channel mid-send.
func send(set map[*subscriber]struct{}, m Message) int {
	n := 0
	for s := range set {
		select {
		case s.ch <- m:
			n++
		default:
		}
	}
	return n
}

// Subscribers returns how many subscribers eventID has now, e.g. to show
// the LED as ready only while a booth page is connected.
func (h *Hub) Subscribers(eventID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs[eventID])
}

// Serve streams eventID's messages to w as Server-Sent Events until the
// request's context ends, and returns nil then. It writes the SSE headers
// and a retry hint first, then one frame per message ([Message.SSE]) and an
// SSE comment every [KeepAlive] while idle, flushing after each write. It
// returns an error when w cannot flush (it is not a streaming writer) or a
// write fails. The caller authenticates the booth device before calling it.
func (h *Hub) Serve(w http.ResponseWriter, r *http.Request, eventID string) error {
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream; charset=utf-8")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := writeFlush(w, rc, fmt.Appendf(nil, "retry: %d\n\n", retryMillis)); err != nil {
		return err
	}
	msgs, cancel := h.Subscribe(eventID)
	defer cancel()
	return stream(r.Context(), w, rc, msgs)
}

func stream(ctx context.Context, w io.Writer, rc *http.ResponseController, msgs <-chan Message) error {
	t := time.NewTicker(KeepAlive)
	defer t.Stop()
	for {
		var frame []byte
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-msgs:
			if !ok {
				return nil
			}
			frame = m.SSE()
		case <-t.C:
			frame = []byte(": keep-alive\n\n")
		}
		if err := writeFlush(w, rc, frame); err != nil {
			return err
		}
	}
}

func writeFlush(w io.Writer, rc *http.ResponseController, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing booth event: %w", err)
	}
	if err := rc.Flush(); err != nil {
		return fmt.Errorf("flushing booth event: %w", err)
	}
	return nil
}
