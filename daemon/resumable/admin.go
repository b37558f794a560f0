package resumable

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"time"

	"eventbox/daemon/web"
	"eventbox/imaging"
	"eventbox/store"
)

// checkPoster refuses a finished poster that is not a JPEG (415
// invalid_image) and removes it: a poster is kept only to go with its
// video, and the video's route would refuse it anyway.
func (s *Server) checkPoster(ctx context.Context, in info) error {
	f, err := os.Open(s.dataPath(in.ID))
	if err != nil {
		return fmt.Errorf("opening poster upload %s: %w", in.ID, err)
	}
	got, cerr := imaging.Check(f, in.Length)
	_ = f.Close()
	if cerr == nil && got.Format == imaging.JPEG {
		return nil
	}
	if err := s.remove(in.ID); err != nil {
		s.cfg.Logger.WarnContext(ctx, "removing a refused poster", "error", err)
	}
	return web.ErrInvalidImage.With(map[string]string{"poster": "must be a JPEG"})
}

// Unfinished is one upload without a kept answer, as the console lists it
// (GET /api/admin/uploads).
type Unfinished struct {
	ID        string `json:"id"`
	EventID   string `json:"eventId,omitempty"`
	EventSlug string `json:"eventSlug"`
	EventName string `json:"eventName,omitempty"`
	GuestName string `json:"guestName"`
	// Kind is photo, video, poster or voice.
	Kind     string `json:"kind"`
	Filename string `json:"filename,omitempty"`
	Length   int64  `json:"length"`
	Offset   int64  `json:"offset"`
	// ReservedBytes is what the upload holds of the card's room now: the
	// bytes still to come while it advances, 0 once idle or complete.
	ReservedBytes int64 `json:"reservedBytes"`
	// UpdatedAt is when it last advanced and ExpiresAt when it goes
	// (RFC 3339).
	UpdatedAt string `json:"updatedAt"`
	ExpiresAt string `json:"expiresAt"`
}

// UnfinishedList is the answer of GET /api/admin/uploads.
type UnfinishedList struct {
	Uploads []Unfinished `json:"uploads"`
	// ReservedBytes is the sum the next creation is counted against.
	ReservedBytes int64 `json:"reservedBytes"`
}

// List answers the unfinished uploads of every event, the latest first
// (GET /api/admin/uploads, owners only: the route table's gate).
func (s *Server) List(w http.ResponseWriter, r *http.Request) error {
	now := s.cfg.Now().UnixMilli()
	out := UnfinishedList{Uploads: []Unfinished{}, ReservedBytes: s.idx.reserved(now)}
	events := map[string]store.Event{}
	for id, e := range s.idx.snapshot() {
		if e.until(s.cfg.Expiry) <= now {
			continue // expired: the next sweep removes it
		}
		u := Unfinished{ID: id, EventSlug: e.slug, Kind: e.kind, Filename: e.filename,
			Length: e.length, Offset: e.offset, ReservedBytes: e.rest(now),
			UpdatedAt: rfc3339(e.touched), ExpiresAt: rfc3339(e.until(s.cfg.Expiry))}
		s.name(r.Context(), &u, e.guest, events)
		out.Uploads = append(out.Uploads, u)
	}
	slices.SortFunc(out.Uploads, func(a, b Unfinished) int {
		return cmp.Or(cmp.Compare(b.UpdatedAt, a.UpdatedAt), cmp.Compare(a.ID, b.ID))
	})
	return web.JSON(w, r, http.StatusOK, out)
}

// name fills in u's event and guest from the store, when there is one;
// events caches the events by slug.
func (s *Server) name(ctx context.Context, u *Unfinished, guest string, events map[string]store.Event) {
	if s.cfg.Store == nil {
		return
	}
	ev, ok := events[u.EventSlug]
	if !ok {
		var err error
		if ev, err = s.cfg.Store.Events().BySlug(ctx, u.EventSlug); err != nil {
			return
		}
		events[u.EventSlug] = ev
	}
	u.EventID, u.EventName = ev.ID, ev.Name
	if g, err := s.cfg.Store.Guests().Get(ctx, ev.ID, guest); err == nil {
		u.GuestName = g.Name
	}
}

func rfc3339(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }

// Remove removes an unfinished upload and its bytes (DELETE
// /api/admin/uploads/:id, owners only): a PATCH sending it is stopped
// first. A finished upload's kept answer is not the console's to remove.
func (s *Server) Remove(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	if _, ok := s.idx.snapshotOne(id); !ok {
		return web.ErrNotFound
	}
	unlock, err := s.lock(r.Context(), id)
	if err != nil {
		return err
	}
	defer unlock()
	if _, ok := s.idx.snapshotOne(id); !ok {
		return web.ErrNotFound
	}
	if err := s.remove(id); err != nil {
		return err
	}
	s.cfg.Logger.InfoContext(r.Context(), "unfinished upload removed from the console", "upload", id)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
