// Package events is the hosts' side of their events: the event list,
// creation, settings and deletion, the event model for the console's
// form, the access link's rotation, the logo, QR codes and printable
// signs, duplicating and ending an event (with the end's mails), the
// booth's key, the places (spots) and the guests' addresses. Its routes
// are /api/admin/events and /api/admin/event-model, and the logo's public
// routes (/api/e/:slug/logo, /api/g/:token/logo). What stays in the
// daemon (the origin, notices, the live and booth streams, the mail and
// export queues, the gallery link's reach) comes in through Config.
package events

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"eventbox/daemon/ingest"
	"eventbox/daemon/visitor"
	"eventbox/qr"
	"eventbox/signage"
	"eventbox/store"
)

// FormReader reads an upload's multipart body into a temp file
// (ingest.Ingester).
type FormReader interface {
	ReadForm(w http.ResponseWriter, r *http.Request, form ingest.Form) (map[string]string, ingest.File, error)
}

// FileSender sends a stored media file (mediafile.Sender).
type FileSender interface {
	Serve(w http.ResponseWriter, r *http.Request, name, contentType, etag string, download bool, fileName string) error
}

// QRDrawer draws styled QR codes (qr.Renderer).
type QRDrawer interface {
	PNG(w io.Writer, content string, size int, st qr.Style, caption string) error
	SVG(w io.Writer, content string, size int, st qr.Style, caption string) error
}

// Outbound is what an event's end sends out (its webhook notice, the
// gallery mails, the cloud export) and how a guest's gallery mail stands.
type Outbound interface {
	// Notice is the job of a webhook notice of kind about the event, none
	// when it cannot be made.
	Notice(kind, eventID string, data any) []store.JobSpec
	// MailDomain is the domain of the mails' Message-IDs.
	MailDomain(ctx context.Context) string
	// MailState is where a guest's gallery mail is: none, pending, sent
	// or failed.
	MailState(ctx context.Context, g store.Guest) (string, error)
	// Queued wakes the runners of the mails and notices an end queued.
	Queued()
	// AutoExport queues the end-of-event cloud export when the settings
	// ask for it, and reports whether it did.
	AutoExport(ctx context.Context, eventID string) bool
}

// Config is what the events area uses. Every field is required unless
// its comment says otherwise.
type Config struct {
	Store    *store.Store
	Visitors *visitor.Resolver
	Logger   *slog.Logger
	Now      func() time.Time
	// PasswordCost is the bcrypt cost of the end's gallery link password.
	PasswordCost int

	// Origin is the scheme and host the box's links start with.
	Origin func(r *http.Request) string
	// Forms reads the logo's upload.
	Forms FormReader
	// Files sends the logo.
	Files FileSender
	// QR draws the QR codes of the console, the signs and the booth link.
	QR QRDrawer
	// HotspotWiFi, when not nil, names the Wi-Fi network the box runs,
	// for step 1 of the signs.
	HotspotWiFi func(ctx context.Context) (ssid, password string, ok bool)
	// Outbound is what an event's end sends out and how its mails stand.
	Outbound Outbound
	// Deleted ends a deleted event's booth stream and its consoles' live
	// streams.
	Deleted func(eventID string)
}

// API answers the events area's routes. Build it with New; it is safe for
// concurrent use.
type API struct {
	cfg      Config
	store    *store.Store
	visitors *visitor.Resolver
	log      *slog.Logger
	now      func() time.Time
	origin   func(r *http.Request) string

	// logoMu serialises logo changes and the copies of logos, which
	// also bounds the memory that decoding logos takes to one at a time.
	logoMu sync.Mutex

	// signage draws the printed signs; opened at the first request
	// (signageRenderer).
	signageOnce sync.Once
	signage     *signage.Renderer
	signageErr  error
}

// New builds the events area from cfg.
func New(cfg Config) *API {
	return &API{cfg: cfg, store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger, now: cfg.Now, origin: cfg.Origin}
}
