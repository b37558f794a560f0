package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

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
	return eventRules(e), nil
}

// eventRules is what the access rules read of an event: its settings as
// stored (the rules read the reveal and closing times against the
// viewer's time themselves).
func eventRules(e store.Event) access.Event {
	return access.Event{
		ID: e.ID, AlbumShared: e.AlbumShared, RevealAt: e.RevealAt,
		GuestbookInGallery: e.GuestbookInGallery, GuestbookEnabled: e.GuestbookEnabled,
		UploadsOpen: e.UploadsOpen, UploadsCloseAt: e.UploadsCloseAt, Ended: e.EndedAt != 0,
		MaxPhotosPerGuest: e.MaxPhotosPerGuest, AllowVideos: e.AllowVideos,
	}
}

// uploaderRules is what the upload rules read of a guest of event e.
func uploaderRules(e store.Event, g store.Guest) access.Uploader {
	return access.Uploader{Booth: g.Booth, BoothKeyOK: e.BoothKeyHash != "" && g.BoothKeyHash == e.BoothKeyHash}
}

// refusal is the error answer of an upload rule's refusal; nil lets the
// upload through.
func refusal(r access.Refusal) error {
	switch r {
	case access.Accepted:
		return nil
	case access.RefuseClosed:
		return errUploadsClosed
	case access.RefuseQuota:
		return errQuotaReached
	case access.RefuseVideos:
		return errVideosOff
	default:
		return errForbidden
	}
}

// photoQuery is the store query of an access filter over the event's
// photos; the caller adds what the viewer narrows on purpose (challenge,
// place, page). A filter that holds nothing (Filter.None) has no query:
// the caller answers an empty list without asking the store.
func photoQuery(eventID string, f access.Filter) store.PhotoQuery {
	q := store.PhotoQuery{EventID: eventID, GuestID: f.GuestID, AlsoVisible: f.AlsoVisible, Favorites: f.FavoritesOnly}
	if f.VisibleOnly {
		q.Status = store.StatusVisible
	}
	return q
}

// messageQuery is photoQuery for guestbook messages (which have no
// favorites, nor AlsoVisible: no message list merges a guest's own with
// others').
func messageQuery(eventID string, f access.Filter) store.MessageQuery {
	q := store.MessageQuery{EventID: eventID, GuestID: f.GuestID}
	if f.VisibleOnly {
		q.Status = store.StatusVisible
	}
	return q
}

func shareLink(sh store.Share) access.Link {
	return access.Link{EventID: sh.EventID, FavoritesOnly: sh.FavoritesOnly, AllowDownload: sh.AllowDownload, ExpiresAt: sh.ExpiresAt}
}

func photoItem(p store.Photo) access.Item {
	return access.Item{EventID: p.EventID, GuestID: p.GuestID, Visible: p.Status == store.StatusVisible, Favorite: p.Favorite, Ready: p.Variants}
}

func messageItem(m store.Message) access.Item {
	return access.Item{EventID: m.EventID, GuestID: m.GuestID, Visible: m.Status == store.StatusVisible, Ready: strings.TrimSpace(m.Text) != ""}
}
