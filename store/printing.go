package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Printing records. store/doc.go ("Printing") describes the keys.
var (
	printSettingsKey  = []byte("print/settings")
	printAttentionKey = []byte("print/attention")
	printLayoutPrefix = "print/layout/"
)

// PrintJobKind is the job kind that prints one document (daemon/printing).
// Its payload is PrintJob; its key is the print's id.
const PrintJobKind = "print"

// The papers the box prints on (daemon/printing lays each out).
const (
	PaperPostcard = "postcard" // 10×15 cm
	PaperStrips   = "strips"   // two 2×6 inch strips on a 4×6 inch sheet
	PaperA6       = "a6"
	PaperA4       = "a4"
)

// Papers lists the papers, in the console's order.
func Papers() []string { return []string{PaperPostcard, PaperStrips, PaperA6, PaperA4} }

// The documents a print job prints.
const (
	PrintPhoto   = "photo"
	PrintTest    = "test"
	PrintAlbum   = "album"
	PrintSignage = "signage"
)

// MaxBoothCopies is the most copies a booth may ask for one photo.
const MaxBoothCopies = 5

// PrintSettings are the box's printing settings.
type PrintSettings struct {
	// Printer is the CUPS queue's name; "" = printing is off.
	Printer string `json:"printer"`
	// Paper is one of Papers.
	Paper string `json:"paper"`
	// AutoBooth prints every booth photo once it is taken.
	AutoBooth bool `json:"autoBooth"`
	// BoothCopies is how many copies of one photo a booth may ask for
	// with a tap (0: the booth has no print button).
	BoothCopies int `json:"boothCopies"`
	// HostPrint lets the hosts print any photo from moderation.
	HostPrint bool  `json:"hostPrint"`
	UpdatedAt int64 `json:"updatedAt,omitempty"`
}

// PrintLayout is how an event's photos are laid out on paper.
type PrintLayout struct {
	// Fit shows the whole photo on white; false crops it to fill the
	// paper (the default).
	Fit bool `json:"fit"`
	// Frame adds a band with the event's name, date and logo.
	Frame bool `json:"frame"`
	// QR adds a small QR code of the event's gallery link.
	QR        bool  `json:"qr"`
	UpdatedAt int64 `json:"updatedAt,omitempty"`
}

// PrintJob is the payload of a print job.
type PrintJob struct {
	// ID is the print's id (the job's key).
	ID       string `json:"id"`
	Document string `json:"document"`
	EventID  string `json:"eventId,omitempty"`
	PhotoID  string `json:"photoId,omitempty"`
	Copies   int    `json:"copies"`
	// Signs is the query of the signs printed (kind=table&size=a6…, as
	// GET …/signage takes it), for a Document of PrintSignage.
	Signs string `json:"signs,omitempty"`
	// By says who asked: "booth", "host", "auto" (a booth photo printed
	// by itself) or "owner" (test, album, signs).
	By string `json:"by"`
	// Origin is the scheme and host of the box's links when the print
	// was asked for, for the gallery link's code ("" = the default).
	Origin    string `json:"origin,omitempty"`
	CreatedAt int64  `json:"createdAt"`
	// Cancelled: a host cancelled the print while an attempt held it
	// (Printing.CancelPrint). No attempt sends it from then on, after a
	// restart too, and one that finds it at CUPS cancels it there.
	Cancelled bool `json:"cancelled,omitempty"`
}

// PrintState is a print job's resume point (its JobProgress.State): the
// CUPS job it became, recorded in the same commit as the job's progress
// once CUPS accepted it, so an attempt after a restart asks CUPS about it
// instead of sending the document again.
type PrintState struct {
	Printer string `json:"printer"`
	CUPSJob int    `json:"cupsJob"`
}

// Printing holds the printing settings, the events' layouts and the
// printer's last alert. It is a view of the Store it came from, as cheap
// to copy as a pointer; its methods are safe for concurrent use.
type Printing struct{ s *Store }

// Printing returns the printing records.
func (s *Store) Printing() Printing { return Printing{s} }

// Settings answers the stored settings, or the defaults (no printer,
// postcard, hosts may print) when none are stored.
func (p Printing) Settings(ctx context.Context) (PrintSettings, error) {
	ps := PrintSettings{Paper: PaperPostcard, HostPrint: true}
	err := p.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bMeta), printSettingsKey, &ps)
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return ps, fmt.Errorf("reading the print settings: %w", err)
	}
	return ps, nil
}

// SaveSettings stores the settings.
func (p Printing) SaveSettings(ctx context.Context, ps PrintSettings) error {
	ps.UpdatedAt = p.s.nowMs()
	err := p.s.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bMeta), printSettingsKey, ps)
	})
	if err != nil {
		return fmt.Errorf("storing the print settings: %w", err)
	}
	return nil
}

func printLayoutKey(eventID string) []byte { return []byte(printLayoutPrefix + eventID) }

// Layout answers an event's print layout, or the default (cropped, with
// the frame) when none is stored.
func (p Printing) Layout(ctx context.Context, eventID string) (PrintLayout, error) {
	l := PrintLayout{Frame: true}
	err := p.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bMeta), printLayoutKey(eventID), &l)
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return l, fmt.Errorf("reading the print layout of event %s: %w", eventID, err)
	}
	return l, nil
}

// SaveLayout stores an event's print layout; the event must exist.
func (p Printing) SaveLayout(ctx context.Context, eventID string, l PrintLayout) error {
	l.UpdatedAt = p.s.nowMs()
	err := p.s.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bEvents).Get([]byte(eventID)) == nil {
			return ErrNotFound
		}
		return putJSON(tx.Bucket(bMeta), printLayoutKey(eventID), l)
	})
	if err != nil {
		return fmt.Errorf("storing the print layout of event %s: %w", eventID, err)
	}
	return nil
}

// deleteEventPrintLayout removes a deleted event's layout, in its
// transaction.
func deleteEventPrintLayout(tx *bolt.Tx, eventID string) error {
	return tx.Bucket(bMeta).Delete(printLayoutKey(eventID))
}

// PrintCancel is what Printing.CancelPrint did.
type PrintCancel struct {
	// Found: the print was queued or running. Neither is no such print,
	// or one that has finished.
	Found bool
	// Removed: it was queued, and its job is gone.
	Removed bool
	// State is where a running print stood: its CUPS job, once CUPS has
	// it, for the caller to cancel there.
	State PrintState
}

// CancelPrint cancels print id in one transaction: a queued print's job
// is removed, as Jobs.Cancel does; a running one is marked Cancelled in
// its job's payload, which every later attempt reads, so the cancel
// holds across a restart of the daemon.
func (p Printing) CancelPrint(ctx context.Context, id string) (PrintCancel, error) {
	var c PrintCancel
	err := p.s.db.Update(func(tx *bolt.Tx) error {
		c = PrintCancel{}
		removed, err := cancelJob(tx, PrintJobKind, id)
		if err != nil || removed {
			c.Found, c.Removed = removed, removed
			return err
		}
		jid := tx.Bucket(bJobByKey).Get(uniqueKey(PrintJobKind, id))
		if jid == nil {
			return nil
		}
		j, err := getJob(tx, binary.BigEndian.Uint64(jid))
		if err != nil || j.Status != JobRunning {
			return err
		}
		var pj PrintJob
		if err := json.Unmarshal(j.Payload, &pj); err != nil {
			return fmt.Errorf("reading the payload: %w", err)
		}
		if j.Progress != nil && len(j.Progress.State) > 0 {
			// A state that does not read is a print not at CUPS: its
			// attempt sets it aside.
			_ = json.Unmarshal(j.Progress.State, &c.State)
		}
		c.Found = true
		if pj.Cancelled {
			return nil
		}
		pj.Cancelled = true
		if j.Payload, err = json.Marshal(pj); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bJobs), u64(j.ID), j)
	})
	if err != nil {
		return PrintCancel{}, fmt.Errorf("cancelling print %s: %w", id, err)
	}
	return c, nil
}

// PrintJobSpec is the job of print pj, for Jobs.Enqueue or a change that
// causes it (a booth photo printed by itself).
func PrintJobSpec(pj PrintJob) (JobSpec, error) {
	if pj.ID == "" {
		return JobSpec{}, errors.New("a print job without an id")
	}
	b, err := json.Marshal(pj)
	if err != nil {
		return JobSpec{}, fmt.Errorf("encoding print job %s: %w", pj.ID, err)
	}
	return JobSpec{Kind: PrintJobKind, Key: pj.ID, Payload: b}, nil
}

// Attention records the printer's trouble that needs a person, as a
// key (its reasons, "" = none), and enqueues the notice jobs in the same
// transaction when the key changed to a trouble not alerted yet. It
// reports whether it enqueued them. A trouble that stays, or comes back
// after an attempt saw it, alerts once.
func (p Printing) Attention(ctx context.Context, key string, notice ...JobSpec) (bool, error) {
	var queued bool
	err := p.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bMeta)
		if string(b.Get(printAttentionKey)) == key {
			return nil
		}
		if key == "" {
			return b.Delete(printAttentionKey)
		}
		if err := b.Put(printAttentionKey, []byte(key)); err != nil {
			return err
		}
		if len(notice) > 0 {
			if _, err := p.s.Jobs().enqueue(tx, notice); err != nil {
				return err
			}
			queued = true
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("recording the printer's attention: %w", err)
	}
	return queued, nil
}
