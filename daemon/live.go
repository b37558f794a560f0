package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"eventbox/daemon/access"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
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
	// liveMaxStreams bounds the open streams of the box, consoles and
	// walls together. liveConsoleSlots of them are the consoles' alone:
	// walls take at most liveMaxStreams-liveConsoleSlots, so that screens
	// left open (or a wall link's token passed around) never keep the
	// hosts from their console (docs/decisions.md, "Live streams: slots
	// and what a wall learns").
	liveMaxStreams   = 64
	liveConsoleSlots = 16
	// liveMaxConsolesPerEvent and liveMaxWallsPerEvent bound one event's
	// consoles and walls, each counted apart.
	liveMaxConsolesPerEvent = 16
	liveMaxWallsPerEvent    = 16
	// liveMaxPerWall bounds the streams of one wall link: a projector
	// and a few screens. A token that leaks takes no more than this.
	liveMaxPerWall = 4
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
	// Shown says a wall may have been shown the photo or text before
	// this change: it was on the wall (visible, display made; approved
	// text) before it, or an earlier change of this run put it there.
	// A wall hears of a photo or text that leaves it only when Shown: it
	// never learns the id of anything it was never shown (wallLiveFrame).
	// Publishers set it from the record before the change; publish adds
	// what the hub itself saw.
	Shown bool
}

// photoChange reports whether c is a change of a photo (else of a
// message).
func (c liveChange) photoChange() bool {
	return c.Photo != nil || c.Kind == livePhotoAdded || c.Kind == livePhotoChanged || c.Kind == livePhotoRemoved
}

// item is the photo or message after the change as the access rules
// read it, nil for a removal.
func (c liveChange) item() *access.Item {
	switch {
	case c.Photo != nil:
		it := visitor.PhotoItem(*c.Photo)
		return &it
	case c.Message != nil:
		it := visitor.MessageItem(*c.Message)
		return &it
	}
	return nil
}

// nowOnWall reports whether the change leaves the photo or text on the
// wall.
func (c liveChange) nowOnWall() bool {
	return (c.Photo != nil && onWall(*c.Photo)) || (c.Message != nil && wallMessage(*c.Message))
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
	// onWall holds, by event, the ids that a change of this run put on
	// the wall and no later change took off (see liveChange.Shown).
	onWall map[string]map[string]struct{}
	// open counts every stream of the box, walls its wall streams;
	// perEvent counts consoles and walls by event, perWall by wall link.
	open     int
	walls    int
	perEvent map[string]liveCount
	perWall  map[string]int
	closed   bool
}

// liveCount is one event's open streams.
type liveCount struct{ consoles, walls int }

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
		subs: make(map[string]map[*liveSub]struct{}), onWall: make(map[string]map[string]struct{}),
		perEvent: make(map[string]liveCount), perWall: make(map[string]int)}
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

// subscribe opens a stream of the event's changes, tagged with tag (a
// wall link's id, see dropTag; "" for a console); cancel ends it early
// (the hub calls it when the stream falls behind or the box shuts down).
// lastID is the Last-Event-ID the reader resumes from ("" for a fresh
// start). It answers web.ErrUnavailable past the bounds (roomFor) or while
// shutting down; unsubscribe must be called when the stream ends.
func (h *liveHub) subscribe(eventID, tag, lastID string, cancel context.CancelFunc) (liveSubscription, func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || !h.roomFor(eventID, tag) {
		return liveSubscription{}, nil, web.ErrUnavailable
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
	h.count(eventID, tag, 1)
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

// roomFor reports whether one more stream of the event fits: a console
// (tag "") within the box's streams and the event's consoles; a wall
// within the walls' share of the box, the event's walls and its link's
// streams. The caller holds mu.
func (h *liveHub) roomFor(eventID, tag string) bool {
	n := h.perEvent[eventID]
	if tag == "" {
		return h.open < liveMaxStreams && n.consoles < liveMaxConsolesPerEvent
	}
	return h.open < liveMaxStreams && h.walls < liveMaxStreams-liveConsoleSlots &&
		n.walls < liveMaxWallsPerEvent && h.perWall[tag] < liveMaxPerWall
}

// count adds by (1 or -1) to the counts of a stream of the event tagged
// tag. The caller holds mu.
func (h *liveHub) count(eventID, tag string, by int) {
	h.open += by
	n := h.perEvent[eventID]
	if tag == "" {
		n.consoles += by
	} else {
		n.walls += by
		h.walls += by
		if h.perWall[tag] += by; h.perWall[tag] <= 0 {
			delete(h.perWall, tag)
		}
	}
	if n == (liveCount{}) {
		delete(h.perEvent, eventID)
	} else {
		h.perEvent[eventID] = n
	}
}

// remove takes sub out of the event's streams, once. The caller holds mu.
func (h *liveHub) remove(eventID string, sub *liveSub) {
	set := h.subs[eventID]
	if _, ok := set[sub]; !ok {
		return
	}
	delete(set, sub)
	if len(set) == 0 {
		delete(h.subs, eventID)
	}
	h.count(eventID, sub.tag, -1)
}

func (h *liveHub) unsubscribe(eventID string, sub *liveSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remove(eventID, sub)
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
	shown := h.onWall[eventID]
	if _, ok := shown[c.ID]; ok {
		c.Shown = true
	}
	switch {
	case c.nowOnWall() && shown == nil:
		h.onWall[eventID] = map[string]struct{}{c.ID: {}}
	case c.nowOnWall():
		shown[c.ID] = struct{}{}
	default:
		delete(shown, c.ID)
	}
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
			h.remove(eventID, sub)
		}
	}
}

// forget drops an event's backlog and ends its streams: the event is
// gone.
func (h *liveHub) forget(eventID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.backlog, eventID)
	delete(h.onWall, eventID)
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

// photosOnWall reads which of the photos are on the wall now: called
// before a change, it says which of them a wall may have been shown
// (liveChange.Shown). Unknown ids are not.
func (s *Server) photosOnWall(ctx context.Context, ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		if p, err := s.store.Photos().Get(ctx, id); err == nil && onWall(p) {
			out[id] = true
		}
	}
	return out
}

// messagesOnWall is photosOnWall for guestbook messages.
func (s *Server) messagesOnWall(ctx context.Context, ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		if m, err := s.store.Messages().Get(ctx, id); err == nil && wallMessage(m) {
			out[id] = true
		}
	}
	return out
}

// photosChanged publishes the photos' current state after a change: added
// when added is true, changed otherwise, and removed for those that no
// longer exist. before holds the ids that were on the wall before the
// change (photosOnWall; nil for new photos).
func (s *Server) photosChanged(ctx context.Context, eventID string, ids []string, added bool, before map[string]bool) {
	for _, id := range ids {
		p, err := s.store.Photos().Get(ctx, id)
		switch {
		case err != nil:
			s.live.publish(eventID, liveChange{Kind: livePhotoRemoved, ID: id, Shown: before[id]})
		case added:
			s.live.publish(eventID, liveChange{Kind: livePhotoAdded, ID: id, Photo: &p, Shown: before[id]})
		default:
			s.live.publish(eventID, liveChange{Kind: livePhotoChanged, ID: id, Photo: &p, Shown: before[id]})
		}
	}
}

// photosRemoved publishes the removal of photos; before is as for
// photosChanged.
func (s *Server) photosRemoved(eventID string, ids []string, before map[string]bool) {
	for _, id := range ids {
		s.live.publish(eventID, liveChange{Kind: livePhotoRemoved, ID: id, Shown: before[id]})
	}
}

// messagesChanged publishes the messages' current state after a change,
// like photosChanged.
func (s *Server) messagesChanged(ctx context.Context, eventID string, ids []string, added bool, before map[string]bool) {
	for _, id := range ids {
		m, err := s.store.Messages().Get(ctx, id)
		switch {
		case err != nil:
			s.live.publish(eventID, liveChange{Kind: liveMessageRemoved, ID: id, Shown: before[id]})
		case added:
			s.live.publish(eventID, liveChange{Kind: liveMessageAdded, ID: id, Message: &m, Shown: before[id]})
		default:
			s.live.publish(eventID, liveChange{Kind: liveMessageChanged, ID: id, Message: &m, Shown: before[id]})
		}
	}
}

// messagesRemoved publishes the removal of messages, like photosRemoved.
func (s *Server) messagesRemoved(eventID string, ids []string, before map[string]bool) {
	for _, id := range ids {
		s.live.publish(eventID, liveChange{Kind: liveMessageRemoved, ID: id, Shown: before[id]})
	}
}
