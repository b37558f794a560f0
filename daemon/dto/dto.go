// Package dto holds the shapes of the answers shared by several areas of
// the API. Store records are never sent as they are: each answer is built
// field by field here, which keeps hashes and secrets out.
package dto

import "eventbox/store"

// Response shapes. Store records are never sent as they are: each answer
// is built field by field here, which keeps hashes and secrets out.

// NullString is "" → null in JSON.
func NullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// NullTime is 0 → null in JSON (epoch ms otherwise).
func NullTime(ms int64) *int64 {
	if ms == 0 {
		return nil
	}
	return &ms
}

// Account is a console account as answers show it (no password hash).
type Account struct {
	ID          string   `json:"id"`
	Username    string   `json:"username"`
	Role        string   `json:"role"`
	Name        string   `json:"name"`
	Email       string   `json:"email"`
	EventIDs    []string `json:"eventIds"`
	TwoFactor   bool     `json:"twoFactor"`
	CreatedAt   int64    `json:"createdAt"`
	LastLoginAt *int64   `json:"lastLoginAt"`
	// MustChangePassword: the account signs in with a password the box
	// generated, and the console asks for a new one (not in the spec).
	MustChangePassword bool `json:"mustChangePassword"`
}

// AccountOf is the answer of an account.
func AccountOf(a store.Account) Account {
	ids := a.EventIDs
	if ids == nil {
		ids = []string{}
	}
	return Account{
		ID: a.ID, Username: a.Username, Role: a.Role, Name: a.Name, Email: a.Email,
		EventIDs: ids, TwoFactor: a.TwoFactor, CreatedAt: a.CreatedAt, LastLoginAt: NullTime(a.LastLoginAt),
		MustChangePassword: a.MustChangePassword,
	}
}

// Event is the admin view of an event: its id and slug, its settings
// (EventFields, the fields a request may set) and its lifecycle.
type Event struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
	EventFields
	CreatedAt    int64  `json:"createdAt"`
	EndedAt      *int64 `json:"endedAt"`
	LogoVersion  *int64 `json:"logoVersion"`
	BoothEnabled bool   `json:"boothEnabled"`
}

// EventFields are the event fields of the spec's table, as a client
// sends and reads them. It is also the shape of a new event's defaults in
// GET /api/admin/event-model.
type EventFields struct {
	Name                        string         `json:"name"`
	Description                 string         `json:"description"`
	EventDate                   *string        `json:"eventDate"`
	AccentColor                 *string        `json:"accentColor"`
	AccessCode                  *string        `json:"accessCode"`
	UploadsOpen                 bool           `json:"uploadsOpen"`
	UploadsCloseAt              *int64         `json:"uploadsCloseAt"`
	Moderation                  string         `json:"moderation"`
	CaptureMode                 string         `json:"captureMode"`
	AskGuestName                bool           `json:"askGuestName"`
	MaxPhotosPerGuest           int            `json:"maxPhotosPerGuest"`
	DefaultLocale               *string        `json:"defaultLocale"`
	CollectGuestEmails          bool           `json:"collectGuestEmails"`
	NotifyAdminSummary          bool           `json:"notifyAdminSummary"`
	EmailGuestsGallery          bool           `json:"emailGuestsGallery"`
	GalleryLinkDays             int            `json:"galleryLinkDays"`
	GalleryLinkDownload         bool           `json:"galleryLinkDownload"`
	GalleryMailIncludesPassword bool           `json:"galleryMailIncludesPassword"`
	GalleryLinkFavorites        bool           `json:"galleryLinkFavorites"`
	GuestbookEnabled            bool           `json:"guestbookEnabled"`
	GuestbookVoice              bool           `json:"guestbookVoice"`
	GuestbookInGallery          bool           `json:"guestbookInGallery"`
	Challenges                  []Challenge    `json:"challenges"`
	WallStyle                   WallStyle      `json:"wallStyle"`
	Frame                       string         `json:"frame"`
	CaptureFilters              CaptureFilters `json:"captureFilters"`
	AllowVideos                 bool           `json:"allowVideos"`
	QRStyle                     QRStyle        `json:"qrStyle"`
	AlbumShared                 bool           `json:"albumShared"`
	// RevealAt (added; docs/decisions.md, "Reveal later"), epoch ms or null.
	RevealAt *int64 `json:"revealAt"`
}

// EventOf is the answer of an event.
func EventOf(e store.Event) Event {
	return Event{
		ID: e.ID, Slug: e.Slug, EventFields: EventFieldsOf(e),
		CreatedAt: e.CreatedAt, EndedAt: NullTime(e.EndedAt), LogoVersion: NullTime(e.LogoVersion),
		BoothEnabled: e.BoothKeyHash != "",
	}
}

// EventFieldsOf is the answer of an event's settings.
func EventFieldsOf(e store.Event) EventFields {
	return EventFields{
		Name: e.Name, Description: e.Description,
		EventDate: NullString(e.EventDate), AccentColor: NullString(e.AccentColor),
		AccessCode: NullString(e.AccessCode), UploadsOpen: e.UploadsOpen,
		UploadsCloseAt: NullTime(e.UploadsCloseAt), Moderation: e.Moderation,
		CaptureMode: e.CaptureMode, AskGuestName: e.AskGuestName,
		MaxPhotosPerGuest: e.MaxPhotosPerGuest, DefaultLocale: NullString(e.DefaultLocale),
		CollectGuestEmails: e.CollectGuestEmails, NotifyAdminSummary: e.NotifyAdminSummary,
		EmailGuestsGallery: e.EmailGuestsGallery, GalleryLinkDays: e.GalleryLinkDays,
		GalleryLinkDownload: e.GalleryLinkDownload, GalleryMailIncludesPassword: e.GalleryMailIncludesPassword,
		GalleryLinkFavorites: e.GalleryLinkFavorites, GuestbookEnabled: e.GuestbookEnabled,
		GuestbookVoice: e.GuestbookVoice, GuestbookInGallery: e.GuestbookInGallery,
		Challenges: ChallengesOf(e.Challenges), WallStyle: WallStyleOf(e.WallStyle), Frame: e.Frame,
		CaptureFilters: CaptureFiltersOf(e.CaptureFilters), AllowVideos: e.AllowVideos,
		QRStyle: QRStyleOf(e.QRStyle), AlbumShared: e.AlbumShared, RevealAt: NullTime(e.RevealAt),
	}
}

// Challenge is one photo challenge of an event.
type Challenge struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// ChallengesOf answers an event's challenges; none is [], not null.
func ChallengesOf(cs []store.Challenge) []Challenge {
	out := make([]Challenge, 0, len(cs))
	for _, c := range cs {
		out = append(out, Challenge{ID: c.ID, Label: c.Label})
	}
	return out
}

// WallStyle is how the live wall shows an event's photos.
type WallStyle struct {
	Interval  int    `json:"interval"`
	Layout    string `json:"layout"`
	ShowNames bool   `json:"showNames"`
	ShowQR    bool   `json:"showQr"`
}

// WallStyleOf is the answer of a wall style.
func WallStyleOf(w store.WallStyle) WallStyle {
	return WallStyle{Interval: w.Interval, Layout: w.Layout, ShowNames: w.ShowNames, ShowQR: w.ShowQR}
}

// CaptureFilters are the camera filters guests may pick.
type CaptureFilters struct {
	Enabled []string `json:"enabled"`
}

// CaptureFiltersOf answers the enabled filters; none is [], not null.
func CaptureFiltersOf(f store.CaptureFilters) CaptureFilters {
	return CaptureFilters{Enabled: append([]string{}, f.Enabled...)}
}

// QRStyle is how an event's QR code is drawn.
type QRStyle struct {
	Foreground string `json:"foreground"`
	Background string `json:"background"`
	Dots       string `json:"dots"`
	Logo       bool   `json:"logo"`
}

// QRStyleOf is the answer of a QR style.
func QRStyleOf(q store.QRStyle) QRStyle {
	return QRStyle{Foreground: q.Foreground, Background: q.Background, Dots: q.Dots, Logo: q.Logo}
}

// EventSummary is one row of the admin event list.
type EventSummary struct {
	ID          string  `json:"id"`
	Slug        string  `json:"slug"`
	Name        string  `json:"name"`
	EventDate   *string `json:"eventDate"`
	CreatedAt   int64   `json:"createdAt"`
	EndedAt     *int64  `json:"endedAt"`
	UploadsOpen bool    `json:"uploadsOpen"`
	// Photos counts the event's photos and videos, Videos the videos
	// among them: the console says "5 photos · 1 video".
	Photos  int `json:"photos"`
	Videos  int `json:"videos"`
	Pending int `json:"pending"`
}

// EventSummaryOf is an event's line in the console's list, with its counts.
func EventSummaryOf(e store.Event, c store.EventCounts) EventSummary {
	return EventSummary{
		ID: e.ID, Slug: e.Slug, Name: e.Name, EventDate: NullString(e.EventDate),
		CreatedAt: e.CreatedAt, EndedAt: NullTime(e.EndedAt), UploadsOpen: e.UploadsOpen,
		Photos: c.Photos, Videos: c.Videos, Pending: c.Pending,
	}
}

// VariantsState is the admin-only variants field of a photo answer:
// "ready" when thumb and display are on disk, "pending" while they are to
// be made (retries included), "failed" when they were set aside after
// store.VariantAttempts and only the original is served (docs/decisions.md,
// "Variant jobs that keep failing").
func VariantsState(p store.Photo) string {
	switch {
	case p.Variants:
		return "ready"
	case p.VariantsFailed:
		return "failed"
	default:
		return "pending"
	}
}

// BoothMessage is the data line of a booth message: times are epoch
// milliseconds; state appears on status messages only.
type BoothMessage struct {
	Type  string `json:"type"`
	At    int64  `json:"at"`
	State string `json:"state,omitempty"`
}

// HTTPS is where the box also serves HTTPS, for the booth page: its port,
// and CAURL, the CA to trust first (nil with the host's own certificate).
type HTTPS struct {
	Port  int     `json:"port"`
	CAURL *string `json:"caURL"`
}

// MailStatus maps a mail job's status to the queue's words: pending
// (queued or being tried), sent or failed (set aside). The guest page
// says where a guest's gallery mail is in the same words.
func MailStatus(st store.JobStatus) string {
	switch st {
	case store.JobDone:
		return "sent"
	case store.JobFailed:
		return "failed"
	}
	return "pending"
}
