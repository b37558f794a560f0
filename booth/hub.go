package booth

import (
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
	// Type is [TypeTrigger] or [TypeStatus].
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

// Hub timings and sizes.
const (
	// SubscriberBuffer is how many messages wait for a slow subscriber
	// before newer ones are dropped.
	SubscriberBuffer = 16
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
