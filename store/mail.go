package store

import (
	"context"
	"errors"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// MailJobKind is the job kind that sends one mail (daemon/mail). Its
// payload is the mail as composed when it was queued, with a Message-ID
// fixed then, so a mail sent again after a crash between "sent" and
// "recorded" is recognisable by its receiver.
const MailJobKind = "mail"

// mailSettingsKey is where the mail settings live in the meta bucket.
var mailSettingsKey = []byte("settings/mail")

// SMTPSettings is how the box reaches its mail server.
type SMTPSettings struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Username string `json:"username"`
	// PasswordSealed is the password sealed with the box's key file
	// (daemon/mail, docs/decisions.md "Mail"): a copy of the database
	// alone does not give it away. Empty: no password.
	PasswordSealed []byte `json:"passwordSealed,omitempty"`
	// From is the sender, an address with an optional name.
	From string `json:"from"`
	// Security is none, starttls or tls.
	Security string `json:"security"`
}

// MailAlerts says which box-wide notices also go out as a mail to
// MailSettings.AdminEmail.
type MailAlerts struct {
	StorageLow   bool `json:"storageLow"`
	ExportFailed bool `json:"exportFailed"`
	BackupFailed bool `json:"backupFailed"`
	// PrinterAttention: the printer needs a person (daemon/printing).
	PrinterAttention bool `json:"printerAttention"`
}

// MailSettings are the box's mail settings; the zero value is "not set up".
type MailSettings struct {
	SMTP       SMTPSettings `json:"smtp"`
	AdminEmail string       `json:"adminEmail"`
	Alerts     MailAlerts   `json:"alerts"`
}

// Ready reports whether mail can be tried at all: a host and a sender.
func (m MailSettings) Ready() bool { return m.SMTP.Host != "" && m.SMTP.From != "" }

// Mail holds the mail settings. It is a view of the Store it came from, as
// cheap to copy as a pointer; its methods are safe for concurrent use.
type Mail struct{ s *Store }

// Mail returns the mail settings.
func (s *Store) Mail() Mail { return Mail{s} }

// Settings returns the stored mail settings (the zero value when none
// were saved).
func (ml Mail) Settings(ctx context.Context) (MailSettings, error) {
	var m MailSettings
	err := ml.s.db.View(func(tx *bolt.Tx) error {
		if err := getJSON(tx.Bucket(bMeta), mailSettingsKey, &m); !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return MailSettings{}, fmt.Errorf("reading mail settings: %w", err)
	}
	return m, nil
}

// UpdateSettings applies fn to the stored mail settings in one
// transaction and answers the result. An error from fn aborts the update
// and is returned as is.
func (ml Mail) UpdateSettings(ctx context.Context, fn func(*MailSettings) error) (MailSettings, error) {
	var m MailSettings
	err := ml.s.db.Update(func(tx *bolt.Tx) error {
		m = MailSettings{}
		if err := getJSON(tx.Bucket(bMeta), mailSettingsKey, &m); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := fn(&m); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bMeta), mailSettingsKey, m)
	})
	if err != nil {
		return MailSettings{}, fmt.Errorf("saving mail settings: %w", err)
	}
	return m, nil
}

// ErrEnded: the event has already ended.
var ErrEnded = errors.New("event has already ended")

// EndPlan is what ending an event sets in motion besides endedAt (Events.End).
type EndPlan struct {
	// Share, when not nil, is the gallery link made with the end: ID,
	// Token and CreatedAt are assigned. Past MaxShares no link is made
	// (EndResult.Share is nil) and the event ends all the same.
	Share *Share
	// Jobs, when not nil, is called inside the transaction with the ended
	// event, the link made (nil without one) and the guests' contacts
	// (guest id → address); the jobs it answers are enqueued with the end.
	Jobs func(e Event, sh *Share, contacts map[string]string) (EndJobs, error)
}

// EndJobs are the jobs an end enqueues.
type EndJobs struct {
	// Guests are one job per guest id (the gallery mails); each guest
	// record keeps its job's id in GalleryMailJob.
	Guests map[string]JobSpec
	// Other are the rest (the hosts' summary, notices).
	Other []JobSpec
}

// EndResult is what Events.End did.
type EndResult struct {
	Event Event
	// Share is the link made, nil without one.
	Share *Share
	// GuestJobs counts the guest jobs enqueued; OtherJobs are the ids of
	// EndJobs.Other, in order.
	GuestJobs int
	OtherJobs []uint64
}

// End ends the event at the store's clock: EndedAt is set, uploads
// close, the plan's gallery link is made (its id kept in EndShareID) and
// the plan's jobs are enqueued, all in one transaction, so a mail promised
// by the end is never lost and never queued for an end that did not
// happen. ErrEnded when it has already ended, ErrNotFound when it does
// not exist.
func (ev Events) End(ctx context.Context, id string, plan EndPlan) (EndResult, error) {
	var res EndResult
	err := ev.s.db.Update(func(tx *bolt.Tx) error {
		res = EndResult{}
		events := tx.Bucket(bEvents)
		var e Event
		if err := getJSON(events, []byte(id), &e); err != nil {
			return err
		}
		if e.EndedAt != 0 {
			return ErrEnded
		}
		now := ev.s.nowMs()
		e.EndedAt, e.UploadsOpen = now, false
		if plan.Share != nil && countPrefix(tx.Bucket(bShares), []byte(id), MaxShares) < MaxShares {
			sh := *plan.Share
			sh.ID, sh.Token, sh.CreatedAt, sh.EventID = NewID(), NewToken(), now, id
			key := shareKey(id, sh.ID)
			if err := tx.Bucket(bShareByToken).Put([]byte(HashToken(sh.Token)), key); err != nil {
				return err
			}
			if err := putJSON(tx.Bucket(bShares), key, sh); err != nil {
				return err
			}
			e.EndShareID = sh.ID
			res.Share = &sh
		}
		if err := putJSON(events, []byte(id), &e); err != nil {
			return err
		}
		res.Event = e
		if plan.Jobs == nil {
			return nil
		}
		contacts := map[string]string{}
		prefix := []byte(id)
		c := tx.Bucket(bContacts).Cursor()
		for k, v := c.Seek(prefix); k != nil && len(k) == 2*IDLen && string(k[:IDLen]) == id; k, v = c.Next() {
			contacts[string(k[IDLen:])] = string(v)
		}
		jobs, err := plan.Jobs(e, res.Share, contacts)
		if err != nil {
			return err
		}
		for guestID, spec := range jobs.Guests {
			ids, err := ev.s.Jobs().enqueue(tx, []JobSpec{spec})
			if err != nil {
				return err
			}
			key := guestKey(id, guestID)
			var g Guest
			if err := getJSON(tx.Bucket(bGuests), key, &g); err != nil {
				return fmt.Errorf("reading guest %s: %w", guestID, err)
			}
			g.GalleryMailJob = ids[0]
			if err := putJSON(tx.Bucket(bGuests), key, g); err != nil {
				return err
			}
			res.GuestJobs++
		}
		res.OtherJobs, err = ev.s.Jobs().enqueue(tx, jobs.Other)
		return err
	})
	if err != nil {
		return EndResult{}, fmt.Errorf("ending event %s: %w", id, err)
	}
	return res, nil
}

// WithContact returns the guests of an event who left an address,
// oldest first.
func (gs Guests) WithContact(ctx context.Context, eventID string) ([]Guest, error) {
	var out []Guest
	err := gs.s.db.View(func(tx *bolt.Tx) error {
		prefix := []byte(eventID)
		c := tx.Bucket(bContacts).Cursor()
		for k, _ := c.Seek(prefix); k != nil && len(k) == 2*IDLen && string(k[:IDLen]) == eventID; k, _ = c.Next() {
			var g Guest
			if err := getJSON(tx.Bucket(bGuests), k, &g); err != nil {
				return fmt.Errorf("reading guest %s: %w", k[IDLen:], err)
			}
			out = append(out, g)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the contacts of event %s: %w", eventID, err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt < out[j].CreatedAt })
	return out, nil
}
