package events

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/qr"
	"eventbox/store"
)

// maxEventSearchQuery bounds the q of the event list, in characters. The
// bounds of the event fields are the event model's (store.Rules).
const maxEventSearchQuery = 100

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// challengeInput is one entry of the challenges list: a plain string (a new
// challenge) or { id?, label }.
type challengeInput struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *challengeInput) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &c.Label)
	}
	type plain challengeInput
	var p plain
	if err := web.StrictUnmarshal(b, &p); err != nil {
		return &web.FieldError{Msg: "each challenge must be a string or { id?, label }"}
	}
	*c = challengeInput(p)
	return nil
}

type wallStyleInput struct {
	Interval  web.Optional[int]    `json:"interval"`
	Layout    web.Optional[string] `json:"layout"`
	ShowNames web.Optional[bool]   `json:"showNames"`
	ShowQR    web.Optional[bool]   `json:"showQr"`
}

type qrStyleInput struct {
	Foreground web.Optional[string] `json:"foreground"`
	Background web.Optional[string] `json:"background"`
	Dots       web.Optional[string] `json:"dots"`
	Logo       web.Optional[bool]   `json:"logo"`
}

type captureFiltersInput struct {
	Enabled web.Optional[[]string] `json:"enabled"`
}

// eventInput is the body of event creation and update: every field
// optional; web.Nullable fields take null to clear the value.
type eventInput struct {
	Name                        web.Optional[string]              `json:"name"`
	Description                 web.Nullable[string]              `json:"description"`
	EventDate                   web.Nullable[string]              `json:"eventDate"`
	AccentColor                 web.Nullable[string]              `json:"accentColor"`
	AccessCode                  web.Nullable[string]              `json:"accessCode"`
	UploadsOpen                 web.Optional[bool]                `json:"uploadsOpen"`
	UploadsCloseAt              web.Nullable[int64]               `json:"uploadsCloseAt"`
	Moderation                  web.Optional[string]              `json:"moderation"`
	CaptureMode                 web.Optional[string]              `json:"captureMode"`
	AskGuestName                web.Optional[bool]                `json:"askGuestName"`
	MaxPhotosPerGuest           web.Nullable[int]                 `json:"maxPhotosPerGuest"`
	DefaultLocale               web.Nullable[string]              `json:"defaultLocale"`
	CollectGuestEmails          web.Optional[bool]                `json:"collectGuestEmails"`
	NotifyAdminSummary          web.Optional[bool]                `json:"notifyAdminSummary"`
	EmailGuestsGallery          web.Optional[bool]                `json:"emailGuestsGallery"`
	GalleryLinkDays             web.Optional[int]                 `json:"galleryLinkDays"`
	GalleryLinkDownload         web.Optional[bool]                `json:"galleryLinkDownload"`
	GalleryMailIncludesPassword web.Optional[bool]                `json:"galleryMailIncludesPassword"`
	GalleryLinkFavorites        web.Optional[bool]                `json:"galleryLinkFavorites"`
	GuestbookEnabled            web.Optional[bool]                `json:"guestbookEnabled"`
	GuestbookVoice              web.Optional[bool]                `json:"guestbookVoice"`
	GuestbookInGallery          web.Optional[bool]                `json:"guestbookInGallery"`
	Challenges                  web.Optional[[]challengeInput]    `json:"challenges"`
	WallStyle                   web.Optional[wallStyleInput]      `json:"wallStyle"`
	Frame                       web.Optional[string]              `json:"frame"`
	CaptureFilters              web.Optional[captureFiltersInput] `json:"captureFilters"`
	AllowVideos                 web.Optional[bool]                `json:"allowVideos"`
	QRStyle                     web.Optional[qrStyleInput]        `json:"qrStyle"`
	AlbumShared                 web.Optional[bool]                `json:"albumShared"`
	RevealAt                    web.Nullable[int64]               `json:"revealAt"`
}

func setBool(dst *bool, o web.Optional[bool]) {
	if o.Set {
		*dst = o.Value
	}
}

// apply validates the input against the event model's rules and writes it
// over e. Every problem is collected into details; on any problem e must
// be discarded.
func (in eventInput) apply(e *store.Event, details map[string]string) {
	rules := store.Rules()
	if in.Name.Set {
		name := strings.TrimSpace(in.Name.Value)
		if !rules.Name.Contains(utf8.RuneCountInString(name)) {
			details["name"] = fmt.Sprintf("must be %d to %d characters", rules.Name.Min, rules.Name.Max)
		} else if msg := web.LineProblem(name); msg != "" {
			details["name"] = msg
		}
		e.Name = name
	}
	if in.Description.Set {
		d := strings.TrimSpace(in.Description.Value)
		if !rules.Description.Contains(utf8.RuneCountInString(d)) {
			details["description"] = fmt.Sprintf("must be at most %d characters", rules.Description.Max)
		} else if msg := web.TextProblem(d); msg != "" {
			details["description"] = msg
		}
		e.Description = d
	}
	if in.EventDate.Set {
		if in.EventDate.Null {
			e.EventDate = ""
		} else if _, err := time.Parse("2006-01-02", in.EventDate.Value); err != nil {
			details["eventDate"] = "must be a date as YYYY-MM-DD"
		} else {
			e.EventDate = in.EventDate.Value
		}
	}
	if in.AccentColor.Set {
		if in.AccentColor.Null {
			e.AccentColor = ""
		} else if !hexColor.MatchString(in.AccentColor.Value) {
			details["accentColor"] = "must be a colour as #rrggbb"
		} else {
			e.AccentColor = strings.ToLower(in.AccentColor.Value)
		}
	}
	if in.AccessCode.Set {
		code := strings.TrimSpace(in.AccessCode.Value)
		if in.AccessCode.Null {
			e.AccessCode = ""
		} else if !rules.AccessCode.Contains(utf8.RuneCountInString(code)) {
			details["accessCode"] = fmt.Sprintf("must be %d to %d characters (null removes the code)", rules.AccessCode.Min, rules.AccessCode.Max)
		} else if msg := web.LineProblem(code); msg != "" {
			details["accessCode"] = msg
		} else {
			e.AccessCode = code
		}
	}
	setBool(&e.UploadsOpen, in.UploadsOpen)
	if in.UploadsCloseAt.Set {
		if in.UploadsCloseAt.Null {
			e.UploadsCloseAt = 0
		} else if in.UploadsCloseAt.Value <= 0 {
			details["uploadsCloseAt"] = "must be a time in epoch milliseconds, or null"
		} else {
			e.UploadsCloseAt = in.UploadsCloseAt.Value
		}
	}
	if in.Moderation.Set {
		if !rules.Moderation.Allows(in.Moderation.Value) {
			details["moderation"] = "must be " + rules.Moderation.Phrase()
		}
		e.Moderation = in.Moderation.Value
	}
	if in.CaptureMode.Set {
		if !rules.CaptureMode.Allows(in.CaptureMode.Value) {
			details["captureMode"] = "must be " + rules.CaptureMode.Phrase()
		}
		e.CaptureMode = in.CaptureMode.Value
	}
	setBool(&e.AskGuestName, in.AskGuestName)
	if in.MaxPhotosPerGuest.Set {
		v := in.MaxPhotosPerGuest.Value
		if in.MaxPhotosPerGuest.Null {
			v = 0
		}
		if !rules.MaxPhotosPerGuest.Contains(v) {
			details["maxPhotosPerGuest"] = fmt.Sprintf("must be %d (no limit) to %d", rules.MaxPhotosPerGuest.Min, rules.MaxPhotosPerGuest.Max)
		}
		e.MaxPhotosPerGuest = v
	}
	if in.DefaultLocale.Set {
		if in.DefaultLocale.Null {
			e.DefaultLocale = ""
		} else if !rules.DefaultLocale.Allows(in.DefaultLocale.Value) {
			details["defaultLocale"] = "must be " + append(rules.DefaultLocale, "null").Phrase()
		} else {
			e.DefaultLocale = in.DefaultLocale.Value
		}
	}
	setBool(&e.CollectGuestEmails, in.CollectGuestEmails)
	setBool(&e.NotifyAdminSummary, in.NotifyAdminSummary)
	setBool(&e.EmailGuestsGallery, in.EmailGuestsGallery)
	if in.GalleryLinkDays.Set {
		if !rules.GalleryLinkDays.Contains(in.GalleryLinkDays.Value) {
			details["galleryLinkDays"] = fmt.Sprintf("must be an integer from %d to %d", rules.GalleryLinkDays.Min, rules.GalleryLinkDays.Max)
		}
		e.GalleryLinkDays = in.GalleryLinkDays.Value
	}
	setBool(&e.GalleryLinkDownload, in.GalleryLinkDownload)
	setBool(&e.GalleryMailIncludesPassword, in.GalleryMailIncludesPassword)
	setBool(&e.GalleryLinkFavorites, in.GalleryLinkFavorites)
	setBool(&e.GuestbookEnabled, in.GuestbookEnabled)
	setBool(&e.GuestbookVoice, in.GuestbookVoice)
	setBool(&e.GuestbookInGallery, in.GuestbookInGallery)
	if in.Challenges.Set {
		e.Challenges = applyChallenges(rules, e.Challenges, in.Challenges.Value, details)
	}
	if in.WallStyle.Set {
		ws := in.WallStyle.Value
		if ws.Interval.Set {
			if !rules.WallInterval.Contains(ws.Interval.Value) {
				details["wallStyle"] = fmt.Sprintf("interval must be %d to %d seconds", rules.WallInterval.Min, rules.WallInterval.Max)
			}
			e.WallStyle.Interval = ws.Interval.Value
		}
		if ws.Layout.Set {
			if !rules.WallLayout.Allows(ws.Layout.Value) {
				details["wallStyle"] = "layout must be " + rules.WallLayout.Phrase()
			}
			e.WallStyle.Layout = ws.Layout.Value
		}
		setBool(&e.WallStyle.ShowNames, ws.ShowNames)
		setBool(&e.WallStyle.ShowQR, ws.ShowQR)
	}
	if in.Frame.Set {
		if !rules.Frame.Allows(in.Frame.Value) {
			details["frame"] = "must be " + rules.Frame.Phrase()
		}
		e.Frame = in.Frame.Value
	}
	if in.CaptureFilters.Set && in.CaptureFilters.Value.Enabled.Set {
		var names []string
		for _, f := range in.CaptureFilters.Value.Enabled.Value {
			if !rules.CaptureFilters.Allows(f) {
				details["captureFilters"] = "enabled may only name " + strings.Join(rules.CaptureFilters, ", ")
			} else if !slices.Contains(names, f) {
				names = append(names, f)
			}
		}
		if names == nil {
			names = []string{}
		}
		e.CaptureFilters.Enabled = names
	}
	setBool(&e.AllowVideos, in.AllowVideos)
	if in.QRStyle.Set {
		q := in.QRStyle.Value
		for _, c := range []struct {
			o   web.Optional[string]
			dst *string
			key string
		}{{q.Foreground, &e.QRStyle.Foreground, "foreground"}, {q.Background, &e.QRStyle.Background, "background"}} {
			if !c.o.Set {
				continue
			}
			if !hexColor.MatchString(c.o.Value) {
				details["qrStyle"] = c.key + " must be a colour as #rrggbb"
				continue
			}
			*c.dst = strings.ToLower(c.o.Value)
		}
		if q.Dots.Set {
			if !rules.QRDots.Allows(q.Dots.Value) {
				details["qrStyle"] = "dots must be " + rules.QRDots.Phrase()
			}
			e.QRStyle.Dots = q.Dots.Value
		}
		setBool(&e.QRStyle.Logo, q.Logo)
		if _, ok := details["qrStyle"]; !ok {
			if msg := qrColorProblem(e.QRStyle.Foreground, e.QRStyle.Background); msg != "" {
				details["qrStyle"] = msg
			}
		}
	}
	setBool(&e.AlbumShared, in.AlbumShared)
	if in.RevealAt.Set {
		if in.RevealAt.Null {
			e.RevealAt = 0
		} else if in.RevealAt.Value <= 0 {
			details["revealAt"] = "must be a time in epoch milliseconds, or null"
		} else {
			e.RevealAt = in.RevealAt.Value
		}
	}
}

// applyChallenges merges the new list with the stored one: an entry whose
// id names an existing challenge keeps it; every other entry gets a new id.
func applyChallenges(rules store.EventRules, existing []store.Challenge, in []challengeInput, details map[string]string) []store.Challenge {
	if !rules.Challenges.Contains(len(in)) {
		details["challenges"] = fmt.Sprintf("at most %d challenges", rules.Challenges.Max)
	}
	known := map[string]bool{}
	for _, c := range existing {
		known[c.ID] = true
	}
	out := make([]store.Challenge, 0, len(in))
	used := map[string]bool{}
	for _, c := range in {
		label := strings.TrimSpace(c.Label)
		if !rules.ChallengeLabel.Contains(utf8.RuneCountInString(label)) {
			details["challenges"] = fmt.Sprintf("each label must be %d to %d characters", rules.ChallengeLabel.Min, rules.ChallengeLabel.Max)
		} else if msg := web.LineProblem(label); msg != "" {
			details["challenges"] = "each label " + msg
		}
		id := c.ID
		if !known[id] || used[id] {
			id = store.NewID()
		}
		used[id] = true
		out = append(out, store.Challenge{ID: id, Label: label})
	}
	return out
}

type eventBody struct {
	Event dto.Event `json:"event"`
}

// CreateEvent makes an event from the body (name required) over the
// event model's defaults.
func (a *API) CreateEvent(w http.ResponseWriter, r *http.Request) error {
	var in eventInput
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	if !in.Name.Set {
		return web.Field("name", "required")
	}
	e := store.NewEvent("")
	details := map[string]string{}
	in.apply(&e, details)
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	if err := a.store.Events().Create(r.Context(), &e); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusCreated, eventBody{Event: dto.EventOf(e)})
}

// GetEvent answers the :id event.
func (a *API) GetEvent(w http.ResponseWriter, r *http.Request, e store.Event) error {
	return web.JSON(w, r, http.StatusOK, eventBody{Event: dto.EventOf(e)})
}

// UpdateEvent writes the body's fields over the :id event, all or none.
func (a *API) UpdateEvent(w http.ResponseWriter, r *http.Request, _ store.Event) error {
	var in eventInput
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	e, err := a.store.Events().Update(r.Context(), web.Param(r, "id"), func(e *store.Event) error {
		details := map[string]string{}
		in.apply(e, details)
		if len(details) > 0 {
			return web.BadRequest(details)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, eventBody{Event: dto.EventOf(e)})
}

// DeleteEvent deletes the :id event with everything in it, and ends its
// booth and live streams.
func (a *API) DeleteEvent(w http.ResponseWriter, r *http.Request, e store.Event) error {
	if err := a.store.Events().Delete(r.Context(), e.ID); err != nil {
		return err
	}
	a.cfg.Deleted(e.ID)
	a.log.InfoContext(r.Context(), "event deleted", "event", e.ID, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// RotateEvent gives the :id event a new slug: the old guest link stops
// working.
func (a *API) RotateEvent(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var err error
	e, err = a.store.Events().RotateSlug(r.Context(), e.ID)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, eventBody{Event: dto.EventOf(e)})
}

type eventListBody struct {
	Events []dto.EventSummary `json:"events"`
}

type eventPageBody struct {
	Events    []dto.EventSummary `json:"events"`
	Total     int                `json:"total"`
	Page      int                `json:"page"`
	PageCount int                `json:"pageCount"`
}

// ListEvents lists the events the account may see, newest first:
// all of them, or one page when page, perPage or q is given.
func (a *API) ListEvents(w http.ResponseWriter, r *http.Request) error {
	query := r.URL.Query()
	details := map[string]string{}
	page, perPage := 1, 20
	paged := query.Has("page") || query.Has("perPage") || query.Has("q")
	if v := query.Get("page"); query.Has("page") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			details["page"] = "must be a whole number from 1"
		}
		page = n
	}
	if v := query.Get("perPage"); query.Has("perPage") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			details["perPage"] = "must be a whole number from 1 to 100"
		}
		perPage = n
	}
	q := strings.TrimSpace(query.Get("q"))
	if utf8.RuneCountInString(q) > maxEventSearchQuery {
		details["q"] = fmt.Sprintf("must be at most %d characters", maxEventSearchQuery)
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	events, err := a.store.Events().List(r.Context())
	if err != nil {
		return err
	}
	acct := visitor.Scope(r)
	var visible []store.Event
	for _, e := range events {
		if access.Reaches(acct, e.ID) && (q == "" || containsFold(e.Name, q)) {
			visible = append(visible, e)
		}
	}
	if paged {
		total := len(visible)
		pageCount := max(1, (total+perPage-1)/perPage)
		// A page past the last is empty. Compared before multiplying:
		// (page-1)*perPage overflows for a page near the int maximum.
		start := total
		if page <= pageCount {
			start = min((page-1)*perPage, total)
		}
		end := min(start+perPage, total)
		rows, err := a.summaries(r, visible[start:end])
		if err != nil {
			return err
		}
		return web.JSON(w, r, http.StatusOK, eventPageBody{
			Events: rows, Total: total, Page: page, PageCount: pageCount,
		})
	}
	rows, err := a.summaries(r, visible)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, eventListBody{Events: rows})
}

func (a *API) summaries(r *http.Request, events []store.Event) ([]dto.EventSummary, error) {
	rows := make([]dto.EventSummary, 0, len(events))
	for _, e := range events {
		c, err := a.store.Events().Counts(r.Context(), e.ID)
		if err != nil {
			return nil, err
		}
		rows = append(rows, dto.EventSummaryOf(e, c))
	}
	return rows, nil
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// qrColorProblem refuses QR colours that phones cannot read reliably, by
// the qr package's rule (qr.ValidateColors): opaque, a dark code on a light
// ground, a WCAG contrast ratio of at least qr.MinContrast.
func qrColorProblem(fg, bg string) string {
	f, err1 := qr.ParseColor(fg)
	b, err2 := qr.ParseColor(bg)
	if err1 != nil || err2 != nil {
		return "colours must be #rrggbb"
	}
	if err := qr.ValidateColors(f, b); err != nil {
		return err.Error()
	}
	return ""
}
