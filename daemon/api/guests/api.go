// Package guests is the guests' side of the HTTP interface: the front
// page's open events and typed code (GET /api/events, POST /api/join), the
// guest page's routes under /api/e/:slug (the event, joining and unlocking,
// the name and contact, photo and video uploads, the own and shared photo
// lists, the guestbook), and the media a viewer may have
// (GET /api/media/:id, GET /api/messages/:id/audio). The booth's routes
// under /api/e/:slug/booth and the event's logo stay with their areas.
//
// Who asks is read by visitor.Resolver; what they may see or do is
// decided by daemon/access; the event of a :slug, the photo lists' order
// and the upload of a photo or video from its body to its answer are
// daemon/photos', shared with the other areas; the guestbook's body goes
// through daemon/ingest. What the daemon keeps to itself (the limits per
// guest and address, the live updates of walls and consoles, the
// notices, the variants, the placeholder tile) comes in through Config.
package guests

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"eventbox/daemon/dto"
	"eventbox/daemon/ingest"
	"eventbox/daemon/live"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/photos"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Variants is the photo variant maker as the media route uses it.
type Variants interface {
	// Ensure makes a photo's thumb and display unless they exist; ok is
	// false, with a nil error, when they cannot be served now (set aside,
	// waiting for a retry, or the attempt failed).
	Ensure(ctx context.Context, photoID string) (ok bool, err error)
	// Preview answers the camera's own preview of a photo whose thumb is
	// not made yet, or nil when it has none.
	Preview(ctx context.Context, p store.Photo) ([]byte, error)
}

// Notices is the outbox as the guestbook uses it.
type Notices interface {
	// MessageNotice is the message.created notice of m, stored with it.
	MessageNotice(m store.Message) []store.JobSpec
	// Queued wakes the outbox once the notice is stored.
	Queued()
}

// Config is what the guests' routes need. Every field is required unless
// it says otherwise.
type Config struct {
	Store    *store.Store
	Visitors *visitor.Resolver
	Logger   *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	// Photos receives the photo and video uploads, and holds the box's
	// upload limits the public event tells the page.
	Photos *photos.Receiver
	// Ingest reads the guestbook's form; Files sends stored media files.
	Ingest *ingest.Ingester
	Files  *mediafile.Sender
	// EventCode is the failure budget of wrong access codes, per event.
	EventCode *web.GuessGuard
	// AllowUpload applies the upload limits per guest and per address to
	// an upload or a guestbook post of g.
	AllowUpload func(r *http.Request, g store.Guest) error
	// Origin is the absolute origin of links the box hands out.
	Origin func(r *http.Request) string
	// HTTPS is where the box also serves HTTPS, or nil.
	HTTPS *dto.HTTPS

	// Variants makes and finds the photos' thumbs and displays.
	Variants Variants
	// Placeholder answers a thumb or display that cannot be served now.
	Placeholder web.HandlerFunc
	// BoothCaptured tells the booth that its photo is in.
	BoothCaptured func()
	// Uploaded counts a stored upload of a kind (the guestbook's voice
	// notes; Photos counts the photos and videos) in the metrics.
	Uploaded func(kind string)

	// Notices stores a new message's notice with it and wakes the outbox.
	Notices Notices

	// Live tells the walls and consoles what changed: which photos and
	// messages are on the event's walls, taken before a removal, then the
	// removal or the new message (daemon/live.Publisher).
	Live live.Changes
}

// API holds the guests' handlers (web.HandlerFunc methods) and what
// other areas share of them. It is safe for concurrent use.
type API struct {
	cfg      Config
	store    *store.Store
	visitors *visitor.Resolver
	log      *slog.Logger
	now      func() time.Time
}

// New builds the guests' API over cfg.
func New(cfg Config) *API {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &API{cfg: cfg, store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger, now: cfg.Now}
}
