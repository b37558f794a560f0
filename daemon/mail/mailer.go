package mail

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"eventbox/daemon/access"
	"eventbox/daemon/jobs"
	"eventbox/store"
)

// Retry is the mail kind's retry policy: doubling from 30 s up to 30 min,
// less up to a fifth at random, for 48 hours (the box is often offline for
// a weekend), each attempt bounded to 2 minutes.
func Retry() jobs.Policy {
	return jobs.Policy{Base: 30 * time.Second, Cap: 30 * time.Minute, Jitter: 0.2,
		MaxAge: 48 * time.Hour, Timeout: 2 * time.Minute}
}

// Config holds a Mailer's dependencies.
type Config struct {
	// Store keeps the settings and the jobs; must not be nil.
	Store *store.Store
	// Key seals the SMTP password (LoadKey); must be 32 bytes.
	Key []byte
	// Logger must not be nil.
	Logger *slog.Logger
	// TLS is the base TLS configuration for the mail server; nil means
	// the system's roots. Tests give their own CA.
	TLS *tls.Config
	// Now is the clock of the Date header; nil means time.Now.
	Now func() time.Time
	// CloudLink answers the hosts' cloud link of an event for its
	// guests' gallery mail, and its password (cloudexport's
	// Exporter.GuestLink); an error makes the mail wait and try again.
	// nil: mails that need it wait.
	CloudLink func(ctx context.Context, e store.Event, expires int64) (url, password string, err error)
}

// Mailer sends the mail jobs and answers what the console and the outbox
// need of mail. It is safe for concurrent use.
type Mailer struct {
	store *store.Store
	key   []byte
	log   *slog.Logger
	tls   *tls.Config
	now   func() time.Time
	cloud func(ctx context.Context, e store.Event, expires int64) (string, string, error)
}

// New returns a Mailer.
func New(cfg Config) (*Mailer, error) {
	if cfg.Store == nil {
		return nil, errors.New("mail: nil store")
	}
	if len(cfg.Key) != keySize {
		return nil, fmt.Errorf("mail: the sealing key must be %d bytes", keySize)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Mailer{store: cfg.Store, key: cfg.Key, log: cfg.Logger.With("component", "mail"), tls: cfg.TLS, now: cfg.Now, cloud: cfg.CloudLink}, nil
}

// Kind is the mail job kind for the runner: one mail at a time (a Pi and
// a small mail server), retried with Retry.
func (m *Mailer) Kind() jobs.Kind {
	return jobs.Kind{Name: store.MailJobKind, Handler: m.handle, Concurrency: 1, Retry: Retry(),
		// A mail or a delivery that goes through is the sign the network
		// is back: the mails waiting for a retry go at once.
		WakeOnSuccess: true}
}

// Spec is the job that sends msg. key, when not empty, keeps one
// unfinished job per key (store.JobSpec.Key).
func Spec(msg Message, key string) (store.JobSpec, error) {
	b, err := json.Marshal(msg)
	if err != nil {
		return store.JobSpec{}, fmt.Errorf("encoding mail %s: %w", msg.MessageID, err)
	}
	return store.JobSpec{Kind: store.MailJobKind, Key: key, Payload: b}, nil
}

// errNotSetUp: the mail settings lack a server or a sender. The job waits
// (retried within its 48 h) for the hosts to set mail up.
var errNotSetUp = errors.New("mail is not set up: give an SMTP server and a sender in the console")

// handle sends one mail job. A 5xx reply is permanent; anything else
// (offline, 4xx, no settings yet) is tried again.
func (m *Mailer) handle(ctx context.Context, j jobs.Job) error {
	var msg Message
	if err := j.Decode(&msg); err != nil {
		return err
	}
	if msg.Gallery != nil {
		again, err := m.gallery(ctx, msg)
		if errors.Is(err, store.ErrNotFound) {
			return jobs.Permanent(fmt.Errorf("the event of gallery mail %s is gone: %w", msg.MessageID, err))
		}
		if err != nil {
			// No link guests could open yet: the mail waits for the
			// cloud copy, and is not sent with one that leads nowhere.
			j.SetResult(err.Error())
			return jobs.RetryAfter(cloudWait, err)
		}
		msg = again
	}
	reply, err := m.Send(ctx, msg)
	if reply != "" {
		j.SetResult(reply)
	}
	var re *ReplyError
	if errors.As(err, &re) {
		if re.Code != 0 {
			j.SetResult(re.Reply)
		}
		if re.Permanent() {
			return jobs.Permanent(err)
		}
	}
	if err != nil {
		return err
	}
	m.log.InfoContext(ctx, "mail sent", "purpose", msg.Purpose, "message_id", msg.MessageID, "job", j.ID)
	return nil
}

// Send sends msg now with the stored settings and answers the server's
// reply. Failures from the server are *ReplyError.
func (m *Mailer) Send(ctx context.Context, msg Message) (string, error) {
	settings, srv, err := m.Server(ctx)
	if err != nil {
		return "", err
	}
	from, err := ParseAddress(settings.SMTP.From)
	if err != nil {
		return "", fmt.Errorf("the sender: %w", err)
	}
	pictures := m.pictures(msg.Inline)
	body, err := compose(msg, from, m.now(), pictures)
	if err != nil {
		return "", err
	}
	return Send(ctx, srv, from.Address, []string{msg.To}, body)
}

// Server answers the stored settings and the server they describe, with
// the password opened. It fails when mail is not set up or the password
// does not open (a database restored on another box).
func (m *Mailer) Server(ctx context.Context) (store.MailSettings, Server, error) {
	settings, err := m.store.Mail().Settings(ctx)
	if err != nil {
		return store.MailSettings{}, Server{}, err
	}
	if !settings.Ready() {
		return settings, Server{}, errNotSetUp
	}
	smtp := settings.SMTP
	srv := Server{Host: smtp.Host, Port: smtp.Port, Username: smtp.Username, Security: smtp.Security, TLS: m.tls}
	if srv.Port == 0 {
		srv.Port = DefaultPort(srv.Security)
	}
	if len(smtp.PasswordSealed) > 0 {
		if srv.Password, err = unseal(m.key, smtp.PasswordSealed); err != nil {
			return settings, Server{}, err
		}
	}
	return settings, srv, nil
}

// Seal seals an SMTP password for store.SMTPSettings.PasswordSealed.
func (m *Mailer) Seal(password string) ([]byte, error) { return seal(m.key, password) }

// HasPassword reports whether the settings hold a password this box can
// open: false after a restore on another box, so the console asks again.
func (m *Mailer) HasPassword(s store.SMTPSettings) bool {
	if len(s.PasswordSealed) == 0 {
		return false
	}
	_, err := unseal(m.key, s.PasswordSealed)
	return err == nil
}

// Domain is the right side of the Message-IDs of mails queued now.
func (m *Mailer) Domain(ctx context.Context) string {
	settings, err := m.store.Mail().Settings(ctx)
	if err != nil {
		return messageDomain("")
	}
	return messageDomain(settings.SMTP.From)
}

// alertOn maps the alert notice kinds to their switch.
func alertOn(a store.MailAlerts, kind string) bool {
	switch kind {
	case store.NoticeStorageLow:
		return a.StorageLow
	case store.NoticeExportFailed:
		return a.ExportFailed
	case store.NoticeBackupFailed:
		return a.BackupFailed
	case store.NoticePrinterAttention:
		return a.PrinterAttention
	}
	return false
}

// AlertFanout answers the alert mail of notice n: one mail job to the
// admin address when n is storage.low, export.failed, backup.failed or
// printer.attention,
// that alert is on and an admin address is set; none otherwise. The
// outbox's notice handler enqueues what it answers. The job's key and
// Message-ID follow from the notice, so a notice fanned out twice (its
// handler retried) queues one mail.
func (m *Mailer) AlertFanout(ctx context.Context, n store.Notice) ([]store.JobSpec, error) {
	settings, err := m.store.Mail().Settings(ctx)
	if err != nil {
		return nil, err
	}
	if settings.AdminEmail == "" || !alertOn(settings.Alerts, n.Kind) {
		return nil, nil
	}
	msg, err := AlertMessage(n, settings.AdminEmail, messageDomain(settings.SMTP.From))
	if err != nil {
		return nil, err
	}
	spec, err := Spec(msg, msg.MessageID)
	if err != nil {
		return nil, err
	}
	return []store.JobSpec{spec}, nil
}

// cloudWait is how long a gallery mail waits before it asks again for the
// cloud link (the export is running, or not set up yet).
const cloudWait = 5 * time.Minute

// gallery composes a queued gallery mail again, as it is sent: with the
// event as it is now, a few of its visible photos, and the link guests
// can open from home (the box's own, or the hosts' cloud copy).
func (m *Mailer) gallery(ctx context.Context, msg Message) (Message, error) {
	ref := msg.Gallery
	e, err := m.store.Events().Get(ctx, ref.EventID)
	if err != nil {
		return Message{}, err
	}
	g := Gallery{Event: e, Locale: ref.Locale, To: msg.To, GuestName: ref.GuestName, URL: ref.URL, ExpiresAt: ref.ExpiresAt,
		Password: ref.Password, Locked: ref.Locked, MessageID: msg.MessageID}
	if g.URL == "" {
		if m.cloud == nil {
			return Message{}, errors.New("no cloud link: the cloud export is not part of this box")
		}
		g.URL, g.Password, err = m.cloud(ctx, e, ref.ExpiresAt)
		if err != nil {
			return Message{}, fmt.Errorf("waiting for the cloud link of the gallery: %w", err)
		}
		g.Cloud, g.Locked = true, g.Password != ""
	}
	if g.Photos, err = m.photos(ctx, e.ID); err != nil {
		return Message{}, err
	}
	again, err := GalleryMessage(g)
	if err != nil {
		return Message{}, err
	}
	again.Gallery = nil
	return again, nil
}

// photos answers the thumbs of up to MaxPhotos visible photos of the
// event, favorites first, then the latest.
func (m *Mailer) photos(ctx context.Context, eventID string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, f := range []access.Filter{access.CloudPhotos(true), access.CloudPhotos(false)} {
		q := access.PhotoQuery(eventID, f)
		q.Limit = 24
		page, err := m.store.Photos().List(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, p := range page.Items {
			if len(out) == MaxPhotos {
				return out, nil
			}
			if p.Video != nil || !p.Variants || seen[p.ID] {
				continue
			}
			seen[p.ID] = true
			out = append(out, p.VariantName("thumb"))
		}
	}
	return out, nil
}

// pictures reads a mail's inline pictures; one that is gone or larger
// than MaxInlineBytes is left out (the HTML shows its place empty).
func (m *Mailer) pictures(list []Inline) []inlineFile {
	var out []inlineFile
	for _, in := range list {
		f, err := m.store.Media().Open(in.Media)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, MaxInlineBytes+1))
		f.Close()
		if err != nil || len(data) > MaxInlineBytes || len(data) == 0 {
			continue
		}
		out = append(out, inlineFile{Inline: in, data: data})
	}
	return out
}
