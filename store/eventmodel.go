package store

import (
	"slices"
	"strings"

	"eventbox/i18n"
)

// The event model: the defaults of a new event, the closed lists of values
// its enum fields take and the bounds of its other fields, written once.
// The store creates events from it, the daemon checks requests against it
// and hands it to the console (GET /api/admin/event-model), which builds
// its form from that answer. docs/decisions.md, "The event model", says
// what adding a field takes.

// Choice is the closed list of values a string field may take, in the
// order the console offers them.
type Choice []string

// Allows reports whether v is one of the values.
func (c Choice) Allows(v string) bool { return slices.Contains(c, v) }

// Phrase lists the values for a message: "a, b or c".
func (c Choice) Phrase() string {
	switch len(c) {
	case 0:
		return ""
	case 1:
		return c[0]
	}
	return strings.Join(c[:len(c)-1], ", ") + " or " + c[len(c)-1]
}

// Range bounds a whole number, or a text's length in characters, both
// ends included.
type Range struct {
	Min, Max int
}

// Contains reports whether Min <= v <= Max.
func (r Range) Contains(v int) bool { return r.Min <= v && v <= r.Max }

// EventRules are the allowed values and bounds of the event fields. Each
// call of Rules returns a fresh value, so a caller may not change another's.
type EventRules struct {
	// Lengths in characters, after trimming surrounding spaces.
	Name, Description, AccessCode, ChallengeLabel Range
	// Challenges bounds the number of challenges.
	Challenges Range
	// MaxPhotosPerGuest is 0 (no limit) or a limit.
	MaxPhotosPerGuest Range
	// GalleryLinkDays is 0 (no gallery link at the end) or a number of days.
	GalleryLinkDays Range
	// WallInterval is the seconds a slide of the live wall stays.
	WallInterval Range

	Moderation  Choice
	CaptureMode Choice
	// DefaultLocale lists the languages of the catalogue (i18n,
	// one file per language in assets/web/locales);
	// "" (null) means the guest's own.
	DefaultLocale Choice
	Frame         Choice
	// CaptureFilters names the camera filters of the guest page; each has
	// a recipe in assets/web/js/filters.js.
	CaptureFilters Choice
	WallLayout     Choice
	QRDots         Choice
}

// Rules returns the rules of the event fields.
func Rules() EventRules {
	return EventRules{
		Name:              Range{1, 100},
		Description:       Range{0, 2000},
		AccessCode:        Range{3, 64},
		ChallengeLabel:    Range{1, 80},
		Challenges:        Range{0, 50},
		MaxPhotosPerGuest: Range{0, 100000},
		GalleryLinkDays:   Range{0, 3650},
		WallInterval:      Range{3, 120},
		Moderation:        Choice{"post", "pre"},
		CaptureMode:       Choice{"camera", "picker", "both"},
		DefaultLocale:     Choice(i18n.Embedded().Codes()),
		Frame:             Choice{"none", "print", "border", "stamp"},
		CaptureFilters:    Choice{"bw", "sepia", "vintage", "warm", "cool", "vivid"},
		WallLayout:        Choice{"single", "grid"},
		QRDots:            Choice{"square", "round"},
	}
}

// NewEvent returns an event with the product's defaults (docs/design.md,
// "Defaults of a new event"; docs/decisions.md, "Events"). A default that
// is not the field's zero value also needs a backfill migration for the
// records written before the field existed (store/migrate.go).
func NewEvent(name string) Event {
	return Event{
		Name:                name,
		UploadsOpen:         true,
		Moderation:          "post",
		CaptureMode:         "both",
		AskGuestName:        true,
		NotifyAdminSummary:  true,
		EmailGuestsGallery:  true,
		GalleryLinkDays:     30,
		GalleryLinkDownload: true,
		// The guests' mail carries the end link's password
		// (docs/decisions/gallery.md, "The end's gallery password").
		GalleryMailIncludesPassword: true,
		GuestbookEnabled:            true,
		GuestbookVoice:              true,
		Challenges:                  []Challenge{},
		WallStyle:                   WallStyle{Interval: 8, Layout: "single", ShowNames: true, ShowQR: true},
		Frame:                       "none",
		CaptureFilters:              CaptureFilters{Enabled: []string{}},
		AllowVideos:                 true,
		QRStyle:                     QRStyle{Foreground: "#000000", Background: "#ffffff", Dots: "square"},
		AlbumShared:                 true,
	}
}
