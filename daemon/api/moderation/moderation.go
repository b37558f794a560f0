// Package moderation is the hosts' side of an event's content: the photo
// list and its actions (approve, hide, favourite, delete, retry), the
// hosts' import, the photo archive, the printable album, and the
// guestbook's list, moderation and archive (the routes under
// /api/admin/events/:id/ photos, archive, album and messages).
//
// What stays in package daemon reaches it through Config: the live
// notifications of the console and the walls and the variant jobs'
// nudge; an import takes the guests' upload path, daemon/photos'
// Receiver.
package moderation

import (
	"log/slog"
	"net/http"
	"time"

	"eventbox/daemon/albums"
	"eventbox/daemon/archive"
	"eventbox/daemon/live"
	"eventbox/daemon/visitor"
	"eventbox/store"
)

// Config is what the moderation routes use. Every field is required.
type Config struct {
	Store    *store.Store
	Visitors *visitor.Resolver
	Logger   *slog.Logger
	Now      func() time.Time

	// PhotoPage and MessagePage are how many items a page of the photo
	// and message lists holds (docs/decisions.md).
	PhotoPage, MessagePage int

	// Archive streams the photo and guestbook ZIPs.
	Archive *archive.Streamer
	// Album makes the printable album, one at a time.
	Album *albums.Maker

	// Live tells the console's live stream and the walls what changed:
	// which of the items are on the wall before a change (the before of
	// the calls after it), then their new state or their removal
	// (daemon/live.Publisher).
	Live live.Changes
	// RetryVariants nudges the variant jobs once photos were given
	// theirs back.
	RetryVariants func()
	// Photos stores the photo of an import and writes the answer.
	Photos Receiver
}

// Receiver is the upload path the guests' uploads take, as an import
// uses it (daemon/photos.Receiver): it reads the photo of the request,
// with the text field creditField as its guest name when given, checks
// it, stores it with its variant job, counts it and writes the answer.
type Receiver interface {
	ReceivePhoto(w http.ResponseWriter, r *http.Request, e store.Event, p store.Photo, quota int, creditField string) error
}

// API holds the moderation routes' handlers.
type API struct {
	cfg      Config
	store    *store.Store
	visitors *visitor.Resolver
	log      *slog.Logger
	now      func() time.Time
	archive  *archive.Streamer
	album    *albums.Maker
}

// New returns the moderation routes over cfg.
func New(cfg Config) *API {
	return &API{cfg: cfg, store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger, now: cfg.Now,
		archive: cfg.Archive, album: cfg.Album}
}
