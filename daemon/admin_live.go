package daemon

import (
	"context"
	"net/http"
	"time"

	"eventbox/daemon/dto"
	"eventbox/daemon/web"
)

// liveRetryMillis is the reconnection delay suggested to EventSource.
const liveRetryMillis = 1000

// liveCountsDTO is the "counts" event of the console's stream: the
// event's photos and how many of them wait for approval.
type liveCountsDTO struct {
	Photos  int `json:"photos"`
	Pending int `json:"pending"`
}

// liveRemovedDTO is the data of a removal.
type liveRemovedDTO struct {
	ID string `json:"id"`
}

// liveFrame turns a change into what one reader may see: an event name
// and its data, or ok false to send nothing.
type liveFrame func(c liveChange) (name string, data any, ok bool)

// handleAdminLive streams the changes of an event's photos and messages
// to a console (docs/decisions.md, "Live moderation stream"): ready (the
// reader's position) first, photo.added, photo.changed (data: the admin photo answer),
// photo.removed ({id}), the same three for messages, counts ({photos,
// pending}) after changes and at the start, and reset when a resumed
// stream missed more than is kept. Each change carries an id; a console
// that reconnects with Last-Event-ID gets what it missed.
func (s *Server) handleAdminLive(w http.ResponseWriter, r *http.Request) error {
	e, err := s.visitors.AdminEvent(r)
	if err != nil {
		return err
	}
	counts := func(ctx context.Context) []byte {
		c, err := s.store.Events().Counts(ctx, e.ID)
		if err != nil {
			s.log.DebugContext(ctx, "reading counts for a live stream", "error", err)
			return nil
		}
		return web.SSEFrame("", "counts", liveCountsDTO{Photos: c.Photos, Pending: c.Pending})
	}
	return s.serveLive(w, r, e.ID, "", adminLiveFrame, counts)
}

// adminLiveFrame is a change as a console sees it: everything.
func adminLiveFrame(c liveChange) (string, any, bool) {
	switch {
	case c.Photo != nil:
		return c.Kind, dto.PhotoOf(*c.Photo, "", true), true
	case c.Message != nil:
		return c.Kind, dto.MessageOf(*c.Message, ""), true
	default:
		return c.Kind, liveRemovedDTO{ID: c.ID}, true
	}
}

// serveLive streams the event's changes, as frame shows them, tagged tag
// (a wall link's id, so that revoking it ends the stream), until the
// reader goes, the hub ends the stream (it fell behind, the event was
// deleted, the server shuts down) or ctx ends. summary, when not nil,
// makes a frame sent at the start and after each burst of changes (nil
// sends nothing). Past the hub's bounds it answers 503 unavailable before
// any byte is written.
func (s *Server) serveLive(w http.ResponseWriter, r *http.Request, eventID, tag string, frame liveFrame, summary func(context.Context) []byte) error {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// EventSource sends Last-Event-ID when it reconnects by itself; a
	// page that opens a new one after an error names it in the query.
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("lastEventId")
	}
	sub, unsubscribe, err := s.live.subscribe(eventID, tag, last, cancel)
	if err != nil {
		return err
	}
	defer unsubscribe()
	if err := s.streamLive(ctx, w, sub, frame, summary); err != nil {
		// The answer has started: nothing more can be said to the reader.
		s.log.DebugContext(r.Context(), "live stream ended", "event", eventID, "error", err)
	}
	return nil
}

func (s *Server) streamLive(ctx context.Context, w http.ResponseWriter, sub liveSubscription, frame liveFrame, summary func(context.Context) []byte) error {
	rc, err := web.SSEStart(w, liveRetryMillis)
	if err != nil {
		return err
	}
	send := func(b []byte) error {
		if b == nil {
			return nil
		}
		return web.WriteFlush(w, rc, b)
	}
	change := func(c liveChange) []byte {
		name, data, ok := frame(c)
		if !ok {
			// Still move the reader's position on.
			return web.SSEFrame(s.live.changeID(c.Seq), liveSkip, struct{}{})
		}
		return web.SSEFrame(s.live.changeID(c.Seq), name, data)
	}
	switch {
	case sub.Reset:
		if err := send(web.SSEFrame(sub.Now, liveReset, struct{}{})); err != nil {
			return err
		}
	case len(sub.Missed) == 0:
		// Give a fresh reader its position, so that it can resume.
		if err := send(web.SSEFrame(sub.Now, liveReady, struct{}{})); err != nil {
			return err
		}
	}
	for _, c := range sub.Missed {
		if err := send(change(c)); err != nil {
			return err
		}
	}
	if summary != nil {
		if err := send(summary(ctx)); err != nil {
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
			if summary != nil && len(sub.Changes) == 0 {
				if err := send(summary(ctx)); err != nil {
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
