// Package sending holds the console's settings of what the box sends
// out by itself, for owners: mail (/api/admin/mail: the SMTP settings,
// the admin address and its alerts, the queue, a test mail, a retry) and
// webhooks (/api/admin/webhooks: the receivers, their latest deliveries,
// a test message). The sending itself is daemon/mail and daemon/outbox;
// what this package uses of them, and of the job runner, comes in through
// its Config as small interfaces.
package sending

import (
	"context"
	"log/slog"

	"eventbox/daemon/mail"
	"eventbox/store"
)

// Mailer is what the mail routes use of the mailer (mail.Mailer).
type Mailer interface {
	// HasPassword reports whether the settings hold a password this box
	// can open.
	HasPassword(s store.SMTPSettings) bool
	// Seal seals an SMTP password for the store.
	Seal(password string) ([]byte, error)
	// Domain is the domain of the box's Message-IDs.
	Domain(ctx context.Context) string
	// Send sends a mail at once, outside the queue, and answers the
	// server's reply.
	Send(ctx context.Context, msg mail.Message) (string, error)
}

// Jobs is what the mail routes use of the job runner (jobs.Runner).
type Jobs interface {
	// Wake makes the jobs of kinds waiting for a retry due now.
	Wake(ctx context.Context, kinds ...string) (int, error)
	// WaitIdle waits until no job is running or due.
	WaitIdle(ctx context.Context) error
}

// WebhookTester sends a test message to a webhook (outbox.Outbox).
type WebhookTester interface {
	// Test sends it at once; an *outbox.SendError is the receiver's
	// refusal.
	Test(ctx context.Context, w store.Webhook) error
}

// Config is what the mail and webhook routes need.
type Config struct {
	// Store holds the settings, the webhooks and the jobs (the mail queue
	// and the deliveries).
	Store *store.Store
	// Logger receives the changes and the tests.
	Logger *slog.Logger
	// Mailer seals passwords and sends the test mail.
	Mailer Mailer
	// Jobs wakes and works the mail queue.
	Jobs Jobs
	// Webhooks sends a webhook's test message.
	Webhooks WebhookTester
}

// API is the console's mail and webhook settings, for owners.
type API struct {
	store    *store.Store
	log      *slog.Logger
	mailer   Mailer
	jobs     Jobs
	webhooks WebhookTester
}

// New returns the routes' handlers over cfg.
func New(cfg Config) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &API{store: cfg.Store, log: cfg.Logger, mailer: cfg.Mailer, jobs: cfg.Jobs, webhooks: cfg.Webhooks}
}
