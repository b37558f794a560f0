package live

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// retryMillis is the reconnection delay suggested to EventSource.
const retryMillis = 1000

// countsDTO is the "counts" event of the console's stream: the event's
// photos and how many of them wait for approval.
type countsDTO struct {
	Photos  int `json:"photos"`
	Pending int `json:"pending"`
}

// Removed is the data of a removal.
type Removed struct {
	ID string `json:"id"`
}

// Frame turns a change into what one reader may see: an event name and
// its data, or ok false to send nothing (the reader's position still
// moves on).
type Frame func(c Change) (name string, data any, ok bool)

// APIConfig sets up the console's live stream route.
type APIConfig struct {
	// Hub is the box's live hub.
	Hub *Hub
	// Store reads the event's counts.
	Store *store.Store
	// Visitors resolves the :id event the signed-in account reaches.
	Visitors *visitor.Resolver
	// Logger logs the streams that end with an error.
	Logger *slog.Logger
}

// API is the console's live stream route. Build it with NewAPI.
type API struct {
	hub      *Hub
	store    *store.Store
	visitors *visitor.Resolver
	log      *slog.Logger
}

// NewAPI makes the console's live stream route.
func NewAPI(cfg APIConfig) *API {
	return &API{hub: cfg.Hub, store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger}
}

// Stream streams the changes of an event's photos and messages to a
// console (GET /api/admin/events/:id/live; docs/decisions.md, "Live
// moderation stream"): ready (the reader's position) first, photo.added,
// photo.changed (data: the admin photo answer), photo.removed ({id}), the
// same three for messages, counts ({photos, pending}) after changes and at
// the start, and reset when a resumed stream missed more than is kept.
// Each change carries an id; a console that reconnects with Last-Event-ID
// gets what it missed.
func (a *API) Stream(w http.ResponseWriter, r *http.Request, e store.Event) error {
	counts := func(ctx context.Context) []byte {
		c, err := a.store.Events().Counts(ctx, e.ID)
		if err != nil {
			a.log.DebugContext(ctx, "reading counts for a live stream", "error", err)
			return nil
		}
		return web.SSEFrame("", "counts", countsDTO{Photos: c.Photos, Pending: c.Pending})
	}
	return Serve(w, r, a.hub, a.log, Stream{EventID: e.ID, Frame: consoleFrame, Summary: counts})
}

// consoleFrame is a change as a console sees it: everything its lists
// hold (access.HostList).
func consoleFrame(c Change) (string, any, bool) {
	if it := c.Item(); it != nil && !access.HostList().Holds(*it) {
		return "", nil, false
	}
	switch {
	case c.Photo != nil:
		return c.Kind, dto.PhotoOf(*c.Photo, "", true), true
	case c.Message != nil:
		return c.Kind, dto.MessageOf(*c.Message, ""), true
	default:
		return c.Kind, Removed{ID: c.ID}, true
	}
}

// Stream is one reader's stream of an event's changes.
type Stream struct {
	EventID string
	// Tag is a wall link's id, so that revoking it ends the stream
	// (Hub.DropTag); "" for a console.
	Tag string
	// Frame shows each change as the reader may see it.
	Frame Frame
	// Summary, when not nil, makes a frame sent at the start and after
	// each burst of changes (nil sends nothing).
	Summary func(context.Context) []byte
}

// Serve streams the event's changes from hub as Server-Sent Events, as
// st says, until the reader goes, the hub ends the stream (it fell
// behind, the event was deleted, the wall link revoked, the server shuts
// down) or r's context ends. Past the hub's bounds it answers 503
// unavailable before any byte is written.
func Serve(w http.ResponseWriter, r *http.Request, hub *Hub, log *slog.Logger, st Stream) error {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// EventSource sends Last-Event-ID when it reconnects by itself; a
	// page that opens a new one after an error names it in the query.
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("lastEventId")
	}
	sub, unsubscribe, err := hub.Subscribe(st.EventID, st.Tag, last, cancel)
	if errors.Is(err, ErrNoRoom) {
		return web.ErrUnavailable
	}
	if err != nil {
		return err
	}
	defer unsubscribe()
	if err := stream(ctx, w, hub, sub, st); err != nil {
		// The answer has started: nothing more can be said to the reader.
		log.DebugContext(r.Context(), "live stream ended", "event", st.EventID, "error", err)
	}
	return nil
}

func stream(ctx context.Context, w http.ResponseWriter, hub *Hub, sub Subscription, st Stream) error {
	rc, err := web.SSEStart(w, retryMillis)
	if err != nil {
		return err
	}
	send := func(b []byte) error {
		if b == nil {
			return nil
		}
		return web.WriteFlush(w, rc, b)
	}
	change := func(c Change) []byte {
		name, data, ok := st.Frame(c)
		if !ok {
			// Still move the reader's position on.
			return web.SSEFrame(hub.ChangeID(c.Seq), kindSkip, struct{}{})
		}
		return web.SSEFrame(hub.ChangeID(c.Seq), name, data)
	}
	switch {
	case sub.Reset:
		if err := send(web.SSEFrame(sub.Now, kindReset, struct{}{})); err != nil {
			return err
		}
	case len(sub.Missed) == 0:
		// Give a fresh reader its position, so that it can resume.
		if err := send(web.SSEFrame(sub.Now, kindReady, struct{}{})); err != nil {
			return err
		}
	}
	for _, c := range sub.Missed {
		if err := send(change(c)); err != nil {
			return err
		}
	}
	if st.Summary != nil {
		if err := send(st.Summary(ctx)); err != nil {
			return err
		}
	}
	t := time.NewTicker(web.SSEKeepAlive)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case c, ok := <-sub.Changes:
			if !ok {
				return nil
			}
			if err := send(change(c)); err != nil {
				return err
			}
			if st.Summary != nil && len(sub.Changes) == 0 {
				if err := send(st.Summary(ctx)); err != nil {
					return err
				}
			}
		case <-t.C:
			if err := send([]byte(": keep-alive\n\n")); err != nil {
				return err
			}
		}
	}
}
