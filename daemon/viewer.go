package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"eventbox/daemon/access"
	"eventbox/store"
)

// viewer works out who asks, once per request, for the rules of
// daemon/access: the signed-in account (without failing when there is
// none), the events this browser joined (gr_guest), and the gallery links
// of the event it unlocked or visited (gr_share), as stored now. Only the
// links of eventID are loaded: a request is about one event.
func (s *Server) viewer(r *http.Request, eventID string) access.Viewer {
	v := access.Viewer{Now: s.now().UnixMilli(), Guests: map[string]string{}}
	if a, ok := s.optionalAccount(r); ok {
		acct := scopeOf(a)
		v.Account = &acct
	}
	for id, entry := range s.readGuestPass(r) {
		v.Guests[id] = entry.GuestID
	}
	v.Links = s.galleryShares(r, eventID)
	return v
}

// scopeOf is what the access rules read of an account.
func scopeOf(a store.Account) access.Account {
	return access.Account{Owner: a.Role == store.RoleOwner, EventIDs: a.EventIDs}
}

// scope is the signed-in account of a request that passed admin, as the
// access rules read it.
func scope(r *http.Request) access.Account { return scopeOf(account(r)) }

// accessEvent loads what the access rules read of an event. An event that
// is gone shares nothing.
func (s *Server) accessEvent(ctx context.Context, id string) (access.Event, error) {
	e, err := s.store.Event(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return access.Event{ID: id}, nil
	}
	if err != nil {
		return access.Event{}, fmt.Errorf("loading event %s for access: %w", id, err)
	}
	return eventRules(e, s.now().UnixMilli()), nil
}

// eventRules is what the access rules read of an event at the time now
// (epoch ms): a shared album whose reveal time has not come is not
// shared yet.
func eventRules(e store.Event, now int64) access.Event {
	return access.Event{ID: e.ID, AlbumShared: e.AlbumOpenAt(now), GuestbookInGallery: e.GuestbookInGallery}
}

func shareLink(sh store.Share) access.Link {
	return access.Link{EventID: sh.EventID, FavoritesOnly: sh.FavoritesOnly, AllowDownload: sh.AllowDownload, ExpiresAt: sh.ExpiresAt}
}

func photoItem(p store.Photo) access.Item {
	return access.Item{EventID: p.EventID, GuestID: p.GuestID, Visible: p.Status == store.StatusVisible, Favorite: p.Favorite}
}

func messageItem(m store.Message) access.Item {
	return access.Item{EventID: m.EventID, GuestID: m.GuestID, Visible: m.Status == store.StatusVisible}
}
