package daemon

import "eventbox/store"

// Response shapes. Store records are never sent as they are: each answer
// is built field by field here, which keeps hashes and secrets out.

// nullString is "" → null in JSON.
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nullTime is 0 → null in JSON (epoch ms otherwise).
func nullTime(ms int64) *int64 {
	if ms == 0 {
		return nil
	}
	return &ms
}

type accountDTO struct {
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

func toAccountDTO(a store.Account) accountDTO {
	ids := a.EventIDs
	if ids == nil {
		ids = []string{}
	}
	return accountDTO{
		ID: a.ID, Username: a.Username, Role: a.Role, Name: a.Name, Email: a.Email,
		EventIDs: ids, TwoFactor: a.TwoFactor, CreatedAt: a.CreatedAt, LastLoginAt: nullTime(a.LastLoginAt),
		MustChangePassword: a.MustChangePassword,
	}
}

// eventDTO is the admin view of an event: its id and slug, its settings
// (eventFieldsDTO, the fields a request may set) and its lifecycle.
type eventDTO struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
	eventFieldsDTO
	CreatedAt    int64  `json:"createdAt"`
	EndedAt      *int64 `json:"endedAt"`
	LogoVersion  *int64 `json:"logoVersion"`
	BoothEnabled bool   `json:"boothEnabled"`
}

// eventFieldsDTO are the event fields of the spec's table, as a client
// sends and reads them. It is also the shape of a new event's defaults in
// GET /api/admin/event-model.
type eventFieldsDTO struct {
	Name                        string            `json:"name"`
	Description                 string            `json:"description"`
	EventDate                   *string           `json:"eventDate"`
	AccentColor                 *string           `json:"accentColor"`
	AccessCode                  *string           `json:"accessCode"`
	UploadsOpen                 bool              `json:"uploadsOpen"`
	UploadsCloseAt              *int64            `json:"uploadsCloseAt"`
	Moderation                  string            `json:"moderation"`
	CaptureMode                 string            `json:"captureMode"`
	AskGuestName                bool              `json:"askGuestName"`
	MaxPhotosPerGuest           int               `json:"maxPhotosPerGuest"`
	DefaultLocale               *string           `json:"defaultLocale"`
	CollectGuestEmails          bool              `json:"collectGuestEmails"`
	NotifyAdminSummary          bool              `json:"notifyAdminSummary"`
	EmailGuestsGallery          bool              `json:"emailGuestsGallery"`
	GalleryLinkDays             int               `json:"galleryLinkDays"`
	GalleryLinkDownload         bool              `json:"galleryLinkDownload"`
	GalleryMailIncludesPassword bool              `json:"galleryMailIncludesPassword"`
	GalleryLinkFavorites        bool              `json:"galleryLinkFavorites"`
	GuestbookEnabled            bool              `json:"guestbookEnabled"`
	GuestbookVoice              bool              `json:"guestbookVoice"`
	GuestbookInGallery          bool              `json:"guestbookInGallery"`
	Challenges                  []challengeDTO    `json:"challenges"`
	WallStyle                   wallStyleDTO      `json:"wallStyle"`
	Frame                       string            `json:"frame"`
	CaptureFilters              captureFiltersDTO `json:"captureFilters"`
	AllowVideos                 bool              `json:"allowVideos"`
	QRStyle                     qrStyleDTO        `json:"qrStyle"`
	AlbumShared                 bool              `json:"albumShared"`
	// RevealAt (added; docs/decisions.md, "Reveal later"), epoch ms or null.
	RevealAt *int64 `json:"revealAt"`
}

func toEventDTO(e store.Event) eventDTO {
	return eventDTO{
		ID: e.ID, Slug: e.Slug, eventFieldsDTO: toEventFieldsDTO(e),
		CreatedAt: e.CreatedAt, EndedAt: nullTime(e.EndedAt), LogoVersion: nullTime(e.LogoVersion),
		BoothEnabled: e.BoothKeyHash != "",
	}
}

func toEventFieldsDTO(e store.Event) eventFieldsDTO {
	return eventFieldsDTO{
		Name: e.Name, Description: e.Description,
		EventDate: nullString(e.EventDate), AccentColor: nullString(e.AccentColor),
		AccessCode: nullString(e.AccessCode), UploadsOpen: e.UploadsOpen,
		UploadsCloseAt: nullTime(e.UploadsCloseAt), Moderation: e.Moderation,
		CaptureMode: e.CaptureMode, AskGuestName: e.AskGuestName,
		MaxPhotosPerGuest: e.MaxPhotosPerGuest, DefaultLocale: nullString(e.DefaultLocale),
		CollectGuestEmails: e.CollectGuestEmails, NotifyAdminSummary: e.NotifyAdminSummary,
		EmailGuestsGallery: e.EmailGuestsGallery, GalleryLinkDays: e.GalleryLinkDays,
		GalleryLinkDownload: e.GalleryLinkDownload, GalleryMailIncludesPassword: e.GalleryMailIncludesPassword,
		GalleryLinkFavorites: e.GalleryLinkFavorites, GuestbookEnabled: e.GuestbookEnabled,
		GuestbookVoice: e.GuestbookVoice, GuestbookInGallery: e.GuestbookInGallery,
		Challenges: toChallengeDTOs(e.Challenges), WallStyle: toWallStyleDTO(e.WallStyle), Frame: e.Frame,
		CaptureFilters: toCaptureFiltersDTO(e.CaptureFilters), AllowVideos: e.AllowVideos,
		QRStyle: toQRStyleDTO(e.QRStyle), AlbumShared: e.AlbumShared, RevealAt: nullTime(e.RevealAt),
	}
}

// challengeDTO is one photo challenge of an event.
type challengeDTO struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// toChallengeDTOs answers an event's challenges; none is [], not null.
func toChallengeDTOs(cs []store.Challenge) []challengeDTO {
	out := make([]challengeDTO, 0, len(cs))
	for _, c := range cs {
		out = append(out, challengeDTO{ID: c.ID, Label: c.Label})
	}
	return out
}

// wallStyleDTO is how the live wall shows an event's photos.
type wallStyleDTO struct {
	Interval  int    `json:"interval"`
	Layout    string `json:"layout"`
	ShowNames bool   `json:"showNames"`
	ShowQR    bool   `json:"showQr"`
}

func toWallStyleDTO(w store.WallStyle) wallStyleDTO {
	return wallStyleDTO{Interval: w.Interval, Layout: w.Layout, ShowNames: w.ShowNames, ShowQR: w.ShowQR}
}

// captureFiltersDTO are the camera filters guests may pick.
type captureFiltersDTO struct {
	Enabled []string `json:"enabled"`
}

// toCaptureFiltersDTO answers the enabled filters; none is [], not null.
func toCaptureFiltersDTO(f store.CaptureFilters) captureFiltersDTO {
	return captureFiltersDTO{Enabled: append([]string{}, f.Enabled...)}
}

// qrStyleDTO is how an event's QR code is drawn.
type qrStyleDTO struct {
	Foreground string `json:"foreground"`
	Background string `json:"background"`
	Dots       string `json:"dots"`
	Logo       bool   `json:"logo"`
}

func toQRStyleDTO(q store.QRStyle) qrStyleDTO {
	return qrStyleDTO{Foreground: q.Foreground, Background: q.Background, Dots: q.Dots, Logo: q.Logo}
}

// eventSummaryDTO is one row of the admin event list.
type eventSummaryDTO struct {
	ID          string  `json:"id"`
	Slug        string  `json:"slug"`
	Name        string  `json:"name"`
	EventDate   *string `json:"eventDate"`
	CreatedAt   int64   `json:"createdAt"`
	EndedAt     *int64  `json:"endedAt"`
	UploadsOpen bool    `json:"uploadsOpen"`
	Photos      int     `json:"photos"`
	Pending     int     `json:"pending"`
}

func toEventSummaryDTO(e store.Event, c store.EventCounts) eventSummaryDTO {
	return eventSummaryDTO{
		ID: e.ID, Slug: e.Slug, Name: e.Name, EventDate: nullString(e.EventDate),
		CreatedAt: e.CreatedAt, EndedAt: nullTime(e.EndedAt), UploadsOpen: e.UploadsOpen,
		Photos: c.Photos, Pending: c.Pending,
	}
}

// variantsState is the admin-only variants field of a photo answer:
// "ready" when thumb and display are on disk, "pending" while they are to
// be made (retries included), "failed" when they were set aside after
// store.VariantAttempts and only the original is served (docs/decisions.md,
// "Variant jobs that keep failing").
func variantsState(p store.Photo) string {
	switch {
	case p.Variants:
		return "ready"
	case p.VariantsFailed:
		return "failed"
	default:
		return "pending"
	}
}

// boothMessageDTO is the data line of a booth message: times are epoch
// milliseconds; state appears on status messages only.
type boothMessageDTO struct {
	Type  string `json:"type"`
	At    int64  `json:"at"`
	State string `json:"state,omitempty"`
}
