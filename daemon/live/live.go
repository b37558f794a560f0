// Package live relays the changes of events' photos and guestbook messages
// to the open live streams: the hosts' console and the walls
// (docs/decisions.md, "Live moderation stream" and "Live streams: slots and
// what a wall learns"). Its core, the [Hub], keeps a short backlog per event
// so that a stream that drops resumes where it was, and bounds the open
// streams; it knows nothing of HTTP. [Publisher] turns a change of stored
// records into the hub's changes (the other areas call it where photos and
// messages change); [Serve] streams one reader's view of the hub as
// Server-Sent Events, and [API] is the console's stream route.
package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"

	"eventbox/daemon/access"
	"eventbox/store"
)

// Change kinds: the SSE event names of the console's and the wall's
// streams (docs/decisions.md, "Live moderation stream").
const (
	PhotoAdded     = "photo.added"
	PhotoChanged   = "photo.changed"
	PhotoRemoved   = "photo.removed"
	MessageAdded   = "message.added"
	MessageChanged = "message.changed"
	MessageRemoved = "message.removed"
	// kindReady gives a fresh reader its position, and kindSkip moves it
	// past a change it may not see: a page that must open a new stream
	// reads the position from a named event (lastEventId).
	kindReady = "ready"
	kindSkip  = "skip"
	// kindReset tells a resuming stream that what it missed is no longer
	// kept: it reloads its lists.
	kindReset = "reset"
)

// The hub's default bounds (Config).
const (
	// DefaultBacklog is how many recent changes of an event are kept for
	// a stream that resumes with Last-Event-ID.
	DefaultBacklog = 256
	// DefaultQueue is a stream's buffer; a stream that falls this far
	// behind is ended and resumes from the backlog.
	DefaultQueue = 64
	// DefaultMaxStreams bounds the open streams of the box, consoles and
	// walls together. DefaultConsoleSlots of them are the consoles' alone:
	// walls take at most DefaultMaxStreams-DefaultConsoleSlots, so that
	// screens left open (or a wall link's token passed around) never keep
	// the hosts from their console (docs/decisions.md, "Live streams:
	// slots and what a wall learns").
	DefaultMaxStreams   = 64
	DefaultConsoleSlots = 16
	// DefaultMaxConsolesPerEvent and DefaultMaxWallsPerEvent bound one
	// event's consoles and walls, each counted apart.
	DefaultMaxConsolesPerEvent = 16
	DefaultMaxWallsPerEvent    = 16
	// DefaultMaxPerWall bounds the streams of one wall link: a projector
	// and a few screens. A token that leaks takes no more than this.
	DefaultMaxPerWall = 4
)

// ErrNoRoom is Subscribe's answer past the hub's bounds, or once it is
// closed; the stream's route answers 503 unavailable.
var ErrNoRoom = errors.New("no room for another live stream")

// Config sets a Hub up. A zero bound takes its default.
type Config struct {
	// Boot names this run in the changes' ids, so that an id of an
	// earlier run resets; "" makes a random one.
	Boot string
	// Backlog, Queue, MaxStreams, ConsoleSlots, MaxConsolesPerEvent,
	// MaxWallsPerEvent and MaxPerWall are the bounds of the same names
	// above (DefaultBacklog, ...).
	Backlog             int
	Queue               int
	MaxStreams          int
	ConsoleSlots        int
	MaxConsolesPerEvent int
	MaxWallsPerEvent    int
	MaxPerWall          int
}

// Change is one change of an event's photos or messages. It holds the
// record as it was after the change (nil for a removal); each stream
// turns it into the answer its reader may see.
type Change struct {
	// Seq is the change's number in this run, set by Publish.
	Seq     uint64
	Kind    string
	ID      string
	Photo   *store.Photo
	Message *store.Message
	// Shown says a wall may have been shown the photo or text before
	// this change: it was on the wall (visible, display made; approved
	// text) before it, or an earlier change of this run put it there.
	// A wall hears of a photo or text that leaves it only when Shown: it
	// never learns the id of anything it was never shown
	// (access.WallChange). Publishers set it from the record before the
	// change; Publish adds what the hub itself saw.
	Shown bool
}

// PhotoChange reports whether c is a change of a photo (else of a
// message).
func (c Change) PhotoChange() bool {
	return c.Photo != nil || c.Kind == PhotoAdded || c.Kind == PhotoChanged || c.Kind == PhotoRemoved
}

// Item is the photo or message after the change as the access rules
// read it, nil for a removal.
func (c Change) Item() *access.Item {
	switch {
	case c.Photo != nil:
		it := access.PhotoItem(*c.Photo)
		return &it
	case c.Message != nil:
		it := access.MessageItem(*c.Message)
		return &it
	}
	return nil
}

// nowOnWall reports whether the change leaves the photo or text on the
// wall.
func (c Change) nowOnWall() bool {
	it := c.Item()
	return it != nil && access.WallShows(*it)
}

// PhotoOnWall reports whether a wall shows the photo: visible, with its
// display image made (access.WallShows).
func PhotoOnWall(p store.Photo) bool { return access.WallShows(access.PhotoItem(p)) }

// MessageOnWall reports whether a wall shows the message: approved text
// (access.WallShows).
func MessageOnWall(m store.Message) bool { return access.WallShows(access.MessageItem(m)) }

// Hub relays changes of events' photos and messages to the open streams
// of those events, and keeps the last Config.Backlog changes of each event
// so that a stream that drops can resume where it was. It is safe for
// concurrent use.
type Hub struct {
	cfg Config
	// boot tells this run's change ids from an earlier run's: an id of
	// another run resets.
	boot string

	mu      sync.Mutex
	seq     uint64
	backlog map[string][]Change // by event id, oldest first
	subs    map[string]map[*sub]struct{}
	// onWall holds, by event, the ids that a change of this run put on
	// the wall and no later change took off (see Change.Shown).
	onWall map[string]map[string]struct{}
	// open counts every stream of the box, walls its wall streams;
	// perEvent counts consoles and walls by event, perWall by wall link.
	open     int
	walls    int
	perEvent map[string]count
	perWall  map[string]int
	closed   bool
}

// count is one event's open streams.
type count struct{ consoles, walls int }

// sub is one open stream.
type sub struct {
	ch     chan Change
	cancel context.CancelFunc
	tag    string // the wall link's id, for DropTag; "" for a console
}

// NewHub makes a hub with cfg's bounds.
func NewHub(cfg Config) *Hub {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.Backlog, DefaultBacklog)
	def(&cfg.Queue, DefaultQueue)
	def(&cfg.MaxStreams, DefaultMaxStreams)
	def(&cfg.ConsoleSlots, DefaultConsoleSlots)
	def(&cfg.MaxConsolesPerEvent, DefaultMaxConsolesPerEvent)
	def(&cfg.MaxWallsPerEvent, DefaultMaxWallsPerEvent)
	def(&cfg.MaxPerWall, DefaultMaxPerWall)
	boot := cfg.Boot
	if boot == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		boot = hex.EncodeToString(b[:])
	}
	return &Hub{cfg: cfg, boot: boot, backlog: make(map[string][]Change),
		subs: make(map[string]map[*sub]struct{}), onWall: make(map[string]map[string]struct{}),
		perEvent: make(map[string]count), perWall: make(map[string]int)}
}

// ChangeID is the SSE id of a change: the run and the sequence number.
func (h *Hub) ChangeID(seq uint64) string { return h.boot + "-" + strconv.FormatUint(seq, 10) }

// Position is the id of the last change published: read before a list,
// it is where a stream opened after that list starts (lastEventId), so
// that a change between the two is replayed rather than lost.
func (h *Hub) Position() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ChangeID(h.seq)
}

// Subscription is what Subscribe hands a stream.
type Subscription struct {
	// Changes carries the changes published from the subscription on.
	// When the stream must end, the hub calls the stream's cancel
	// instead of closing it.
	Changes <-chan Change
	// Missed are the kept changes after lastID, to send first.
	Missed []Change
	// Reset says the changes after lastID are no longer all kept.
	Reset bool
	// Now is the id of the last change published before the
	// subscription: the position of a reader that reloads.
	Now string
}

// Subscribe opens a stream of the event's changes, tagged with tag (a
// wall link's id, see DropTag; "" for a console); cancel ends it early
// (the hub calls it when the stream falls behind, the event or the wall
// link goes, or the hub closes). lastID is the Last-Event-ID the reader
// resumes from ("" for a fresh start). It answers ErrNoRoom past the
// bounds (roomFor) or once closed; unsubscribe must be called when the
// stream ends.
func (h *Hub) Subscribe(eventID, tag, lastID string, cancel context.CancelFunc) (s Subscription, unsubscribe func(), err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || !h.roomFor(eventID, tag) {
		return Subscription{}, nil, ErrNoRoom
	}
	var out Subscription
	if lastID != "" {
		out.Missed, out.Reset = h.since(eventID, lastID)
	}
	sb := &sub{ch: make(chan Change, h.cfg.Queue), cancel: cancel, tag: tag}
	set := h.subs[eventID]
	if set == nil {
		set = make(map[*sub]struct{})
		h.subs[eventID] = set
	}
	set[sb] = struct{}{}
	h.count(eventID, tag, 1)
	out.Changes = sb.ch
	out.Now = h.ChangeID(h.seq)
	return out, func() { h.unsubscribe(eventID, sb) }, nil
}

// since returns the kept changes of the event after lastID, or reset when
// some of them are no longer kept. The caller holds mu.
func (h *Hub) since(eventID, lastID string) ([]Change, bool) {
	boot, n, ok := strings.Cut(lastID, "-")
	last, err := strconv.ParseUint(n, 10, 64)
	if !ok || err != nil || boot != h.boot || last > h.seq {
		return nil, true
	}
	kept := h.backlog[eventID]
	// Changes of other events take sequence numbers too, so a gap in
	// this event's numbers is normal; what matters is whether the oldest
	// kept change is older than lastID, or nothing was dropped at all.
	if len(kept) == h.cfg.Backlog && kept[0].Seq > last+1 {
		return nil, true
	}
	var out []Change
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
func (h *Hub) roomFor(eventID, tag string) bool {
	n := h.perEvent[eventID]
	if tag == "" {
		return h.open < h.cfg.MaxStreams && n.consoles < h.cfg.MaxConsolesPerEvent
	}
	return h.open < h.cfg.MaxStreams && h.walls < h.cfg.MaxStreams-h.cfg.ConsoleSlots &&
		n.walls < h.cfg.MaxWallsPerEvent && h.perWall[tag] < h.cfg.MaxPerWall
}

// count adds by (1 or -1) to the counts of a stream of the event tagged
// tag. The caller holds mu.
func (h *Hub) count(eventID, tag string, by int) {
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
	if n == (count{}) {
		delete(h.perEvent, eventID)
	} else {
		h.perEvent[eventID] = n
	}
}

// remove takes sb out of the event's streams, once. The caller holds mu.
func (h *Hub) remove(eventID string, sb *sub) {
	set := h.subs[eventID]
	if _, ok := set[sb]; !ok {
		return
	}
	delete(set, sb)
	if len(set) == 0 {
		delete(h.subs, eventID)
	}
	h.count(eventID, sb.tag, -1)
}

func (h *Hub) unsubscribe(eventID string, sb *sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remove(eventID, sb)
}

// Publish records a change of the event and hands it to its streams. A
// stream whose buffer is full is ended: its reader resumes from the
// backlog with Last-Event-ID.
func (h *Hub) Publish(eventID string, c Change) {
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
	if len(kept) == h.cfg.Backlog {
		kept = append(kept[:0:0], kept[1:]...)
	}
	h.backlog[eventID] = append(kept, c)
	for sb := range h.subs[eventID] {
		select {
		case sb.ch <- c:
		default:
			sb.cancel()
			h.remove(eventID, sb)
		}
	}
}

// Forget drops an event's backlog and ends its streams: the event is
// gone.
func (h *Hub) Forget(eventID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.backlog, eventID)
	delete(h.onWall, eventID)
	for sb := range h.subs[eventID] {
		sb.cancel()
	}
}

// DropTag ends the event's streams tagged tag: a wall link was revoked.
func (h *Hub) DropTag(eventID, tag string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sb := range h.subs[eventID] {
		if sb.tag == tag {
			sb.cancel()
		}
	}
}

// Close ends every stream and refuses new ones: the server shuts down.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, set := range h.subs {
		for sb := range set {
			sb.cancel()
		}
	}
}
