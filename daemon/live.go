package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"eventbox/store"
)

// Live change kinds: the SSE event names of the console's and the wall's
// streams (docs/decisions.md, "Live moderation stream").
const (
	livePhotoAdded     = "photo.added"
	livePhotoChanged   = "photo.changed"
	livePhotoRemoved   = "photo.removed"
	liveMessageAdded   = "message.added"
	liveMessageChanged = "message.changed"
	liveMessageRemoved = "message.removed"
	// liveReady gives a fresh reader its position, and liveSkip moves it
	// past a change it may not see: a page that must open a new stream
	// reads the position from a named event (lastEventId).
	liveReady = "ready"
	liveSkip  = "skip"
	// liveReset tells a resuming stream that what it missed is no longer
	// kept: it reloads its lists.
	liveReset = "reset"
)

// Live hub bounds.
const (
	// liveBacklog is how many recent changes of an event are kept for a
	// stream that resumes with Last-Event-ID.
	liveBacklog = 256
	// liveQueue is a stream's buffer; a stream that falls this far
	// behind is ended and resumes from the backlog.
	liveQueue = 64
	// liveMaxPerEvent and liveMaxStreams bound the open streams (consoles
	// and walls) of one event and of the box.
	liveMaxPerEvent = 16
	liveMaxStreams  = 64
)

// liveChange is one change of an event's photos or messages. It holds
// the record as it was after the change (nil for a removal); each stream
// turns it into the answer its reader may see.
type liveChange struct {
	Seq     uint64
	Kind    string
	ID      string
	Photo   *store.Photo
	Message *store.Message
}

// liveHub relays changes of events' photos and messages to the open
// streams of those events, and keeps the last liveBacklog changes of each
// event so that a stream that drops can resume where it was. It is safe
// for concurrent use.
type liveHub struct {
	// boot tells this run's change ids from an earlier run's: an id of
	// another run resets.
	boot string

	mu      sync.Mutex
	seq     uint64
	backlog map[string][]liveChange // by event id, oldest first
	subs    map[string]map[*liveSub]struct{}
	open    int
	closed  bool
}

// liveSub is one open stream.
type liveSub struct {
	ch     chan liveChange
	cancel context.CancelFunc
	tag    string // the wall link's id, for dropTag; "" for a console
}

func newLiveHub() *liveHub {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &liveHub{boot: hex.EncodeToString(b[:]), backlog: make(map[string][]liveChange),
		subs: make(map[string]map[*liveSub]struct{})}
}

// changeID is the SSE id of a change: the run and the sequence number.
func (h *liveHub) changeID(seq uint64) string { return h.boot + "-" + strconv.FormatUint(seq, 10) }

// position is the id of the last change published: read before a list,
// it is where a stream opened after that list starts (lastEventId), so
// that a change between the two is replayed rather than lost.
func (h *liveHub) position() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changeID(h.seq)
}

// liveSubscription is what subscribe hands a stream.
type liveSubscription struct {
	// Changes carries the changes published from the subscription on; it
	// is closed when the stream must end.
	Changes <-chan liveChange
	// Missed are the kept changes after lastID, to send first.
	Missed []liveChange
	// Reset says the changes after lastID are no longer all kept.
	Reset bool
	// Now is the id of the last change published before the
	// subscription: the position of a reader that reloads.
	Now string
}

// subscribe opens a stream of the event's changes, tagged with tag (see
// dropTag); cancel ends it early (the hub calls it when the stream falls behind or the
// box shuts down). lastID is the Last-Event-ID the reader resumes from
// ("" for a fresh start). It answers errUnavailable past the bounds or
// while shutting down; unsubscribe must be called when the stream ends.
func (h *liveHub) subscribe(eventID, tag, lastID string, cancel context.CancelFunc) (liveSubscription, func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.open >= liveMaxStreams || len(h.subs[eventID]) >= liveMaxPerEvent {
		return liveSubscription{}, nil, errUnavailable
	}
	var out liveSubscription
	if lastID != "" {
		out.Missed, out.Reset = h.since(eventID, lastID)
	}
	sub := &liveSub{ch: make(chan liveChange, liveQueue), cancel: cancel, tag: tag}
	set := h.subs[eventID]
	if set == nil {
		set = make(map[*liveSub]struct{})
		h.subs[eventID] = set
	}
	set[sub] = struct{}{}
	h.open++
	out.Changes = sub.ch
	out.Now = h.changeID(h.seq)
	return out, func() { h.unsubscribe(eventID, sub) }, nil
}

// since returns the kept changes of the event after lastID, or reset when
// some of them are no longer kept. The caller holds mu.
func (h *liveHub) since(eventID, lastID string) ([]liveChange, bool) {
	boot, n, ok := strings.Cut(lastID, "-")
	last, err := strconv.ParseUint(n, 10, 64)
	if !ok || err != nil || boot != h.boot || last > h.seq {
		return nil, true
	}
	kept := h.backlog[eventID]
	// Changes of other events take sequence numbers too, so a gap in
	// this event's numbers is normal; what matters is whether the oldest
	// kept change is older than lastID, or nothing was dropped at all.
	if len(kept) == liveBacklog && kept[0].Seq > last+1 {
		return nil, true
	}
	var out []liveChange
	for _, c := range kept {
		if c.Seq > last {
			out = append(out, c)
		}
	}
	return out, false
}

func (h *liveHub) unsubscribe(eventID string, sub *liveSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.subs[eventID]
	if _, ok := set[sub]; !ok {
		return
	}
	delete(set, sub)
	if len(set) == 0 {
		delete(h.subs, eventID)
	}
	h.open--
}

// publish records a change of the event and hands it to its streams. A
// stream whose buffer is full is ended: its reader resumes from the
// backlog with Last-Event-ID.
func (h *liveHub) publish(eventID string, c liveChange) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.seq++
	c.Seq = h.seq
	kept := h.backlog[eventID]
	if len(kept) == liveBacklog {
		kept = append(kept[:0:0], kept[1:]...)
	}
	h.backlog[eventID] = append(kept, c)
	for sub := range h.subs[eventID] {
		select {
		case sub.ch <- c:
		default:
			sub.cancel()
			delete(h.subs[eventID], sub)
			h.open--
		}
	}
}

// forget drops an event's backlog and ends its streams: the event is
// gone.
func (h *liveHub) forget(eventID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.backlog, eventID)
	for sub := range h.subs[eventID] {
		sub.cancel()
	}
}

// dropTag ends the event's streams tagged tag: a wall link was revoked.
func (h *liveHub) dropTag(eventID, tag string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs[eventID] {
		if sub.tag == tag {
			sub.cancel()
		}
	}
}

// close ends every stream and refuses new ones: the server shuts down.
func (h *liveHub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, set := range h.subs {
		for sub := range set {
			sub.cancel()
		}
	}
}

// photoChanged publishes the photos' current state after a change: added
// when added is true, changed otherwise, and removed for those that no
// longer exist.
func (s *Server) photosChanged(ctx context.Context, eventID string, ids []string, added bool) {
	for _, id := range ids {
		p, err := s.store.Photo(ctx, id)
		switch {
		case err != nil:
			s.live.publish(eventID, liveChange{Kind: livePhotoRemoved, ID: id})
		case added:
			s.live.publish(eventID, liveChange{Kind: livePhotoAdded, ID: id, Photo: &p})
		default:
			s.live.publish(eventID, liveChange{Kind: livePhotoChanged, ID: id, Photo: &p})
		}
	}
}

// photosRemoved publishes the removal of photos.
func (s *Server) photosRemoved(eventID string, ids []string) {
	for _, id := range ids {
		s.live.publish(eventID, liveChange{Kind: livePhotoRemoved, ID: id})
	}
}

// messagesChanged publishes the messages' current state after a change,
// like photosChanged.
func (s *Server) messagesChanged(ctx context.Context, eventID string, ids []string, added bool) {
	for _, id := range ids {
		m, err := s.store.Message(ctx, id)
		switch {
		case err != nil:
			s.live.publish(eventID, liveChange{Kind: liveMessageRemoved, ID: id})
		case added:
			s.live.publish(eventID, liveChange{Kind: liveMessageAdded, ID: id, Message: &m})
		default:
			s.live.publish(eventID, liveChange{Kind: liveMessageChanged, ID: id, Message: &m})
		}
	}
}

// messagesRemoved publishes the removal of messages.
func (s *Server) messagesRemoved(eventID string, ids []string) {
	for _, id := range ids {
		s.live.publish(eventID, liveChange{Kind: liveMessageRemoved, ID: id})
	}
}
