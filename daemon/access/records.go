package access

import (
	"strings"

	"eventbox/store"
)

// What the rules read of the store's records, and the store queries of
// a Filter: plain conversions, so that a service (mail, the album, the
// cloud export) lists what a viewer may see without the request
// resolver (daemon/visitor).

// EventRules is what the access rules read of an event: its settings as
// stored (the rules read the reveal and closing times against the
// Viewer's time themselves).
func EventRules(e store.Event) Event {
	return Event{
		ID: e.ID, AlbumShared: e.AlbumShared, RevealAt: e.RevealAt,
		GuestbookInGallery: e.GuestbookInGallery, GuestbookEnabled: e.GuestbookEnabled,
		UploadsOpen: e.UploadsOpen, UploadsCloseAt: e.UploadsCloseAt, Ended: e.EndedAt != 0,
		MaxPhotosPerGuest: e.MaxPhotosPerGuest, AllowVideos: e.AllowVideos,
	}
}

// UploaderRules is what the upload rules read of a guest of event e.
func UploaderRules(e store.Event, g store.Guest) Uploader {
	return Uploader{Booth: g.Booth, BoothKeyOK: e.BoothKeyHash != "" && g.BoothKeyHash == e.BoothKeyHash}
}

// PhotoQuery is the store query of an access filter over the event's
// photos; the caller adds what the viewer narrows on purpose (challenge,
// place, page). A filter that holds nothing (Filter.None) has no query:
// the caller answers an empty list without asking the store.
func PhotoQuery(eventID string, f Filter) store.PhotoQuery {
	q := store.PhotoQuery{EventID: eventID, GuestID: f.GuestID, AlsoVisible: f.AlsoVisible, Favorites: f.FavoritesOnly}
	if f.VisibleOnly {
		q.Status = store.StatusVisible
	}
	return q
}

// MessageQuery is photoQuery for guestbook messages (which have no
// favorites, nor AlsoVisible: no message list merges a guest's own with
// others').
func MessageQuery(eventID string, f Filter) store.MessageQuery {
	q := store.MessageQuery{EventID: eventID, GuestID: f.GuestID}
	if f.VisibleOnly {
		q.Status = store.StatusVisible
	}
	return q
}

// ShareLink is what the access rules read of a gallery link.
func ShareLink(sh store.Share) Link {
	return Link{EventID: sh.EventID, FavoritesOnly: sh.FavoritesOnly, AllowDownload: sh.AllowDownload, ExpiresAt: sh.ExpiresAt}
}

// PhotoItem is what the access rules read of a photo.
func PhotoItem(p store.Photo) Item {
	return Item{EventID: p.EventID, GuestID: p.GuestID, Visible: p.Status == store.StatusVisible, Favorite: p.Favorite, Ready: p.Variants}
}

// MessageItem is what the access rules read of a guestbook message.
func MessageItem(m store.Message) Item {
	return Item{EventID: m.EventID, GuestID: m.GuestID, Visible: m.Status == store.StatusVisible, Ready: strings.TrimSpace(m.Text) != ""}
}
