// Package wall holds the wall links (docs/decisions.md, "Wall links"): the
// console's routes that make, list and revoke them
// (/api/admin/events/:id/walls), and what a venue screen that opens
// /wall/<token> reads without signing in (/api/wall/:token: the event, its
// visible photos and approved guestbook texts, their live stream, their
// files and the join QR code). What a wall may see is decided in
// daemon/access (WallPhotos, WallMessages, WallShows, WallFile,
// WallChange); its stream is the live hub's (daemon/live).
package wall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/live"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/qr"
	"eventbox/store"
)

const (
	// maxWallLabel bounds a wall link's label, in characters.
	maxWallLabel = 80
	// wallFirstPhotos and wallFirstMessages are how many of the newest
	// visible photos and texts a wall starts with.
	wallFirstPhotos   = 120
	wallFirstMessages = 30
	// wallQRSize is the side of the wall's QR code.
	wallQRSize = 512
)

// Config sets up the wall routes.
type Config struct {
	Store    *store.Store
	Visitors *visitor.Resolver
	Logger   *slog.Logger
	Now      func() time.Time
	// Hub is the box's live hub: the walls' streams, and the position a
	// wall starts its stream from.
	Hub *live.Hub
	// Files sends the wall's photo and video files.
	Files *mediafile.Sender
	// QR draws the wall's join code.
	QR *qr.Renderer
	// Origin is the box's address as the request reached it, for the
	// links a wall shows.
	Origin func(r *http.Request) string
	// QRStyle is the event's QR code style (its qrStyle).
	QRStyle func(ctx context.Context, e store.Event) qr.Style
}

// API is the wall routes. Build it with New.
type API struct {
	store    *store.Store
	visitors *visitor.Resolver
	log      *slog.Logger
	now      func() time.Time
	hub      *live.Hub
	files    *mediafile.Sender
	qr       *qr.Renderer
	origin   func(r *http.Request) string
	qrStyle  func(ctx context.Context, e store.Event) qr.Style
}

// New makes the wall routes.
func New(cfg Config) *API {
	return &API{store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger, now: cfg.Now, hub: cfg.Hub,
		files: cfg.Files, qr: cfg.QR, origin: cfg.Origin, qrStyle: cfg.QRStyle}
}

type wallDTO struct {
	ID        string  `json:"id"`
	URL       string  `json:"url"`
	Label     *string `json:"label"`
	CreatedAt int64   `json:"createdAt"`
}

func toWallDTO(origin string, w store.Wall) wallDTO {
	return wallDTO{ID: w.ID, URL: origin + "/wall/" + w.Token, Label: dto.NullString(w.Label), CreatedAt: w.CreatedAt}
}

type wallBody struct {
	Wall wallDTO `json:"wall"`
}

type wallListBody struct {
	Walls []wallDTO `json:"walls"`
}

type wallRequest struct {
	Label web.Nullable[string] `json:"label"`
}

// List lists the event's wall links, newest first.
func (a *API) List(w http.ResponseWriter, r *http.Request, e store.Event) error {
	walls, err := a.store.Walls().List(r.Context(), e.ID)
	if err != nil {
		return err
	}
	out := wallListBody{Walls: make([]wallDTO, 0, len(walls))}
	for _, wl := range walls {
		out.Walls = append(out.Walls, toWallDTO(a.origin(r), wl))
	}
	return web.JSON(w, r, http.StatusOK, out)
}

// Create makes a wall link of the event: 201 {wall}, its url
// holding the token.
func (a *API) Create(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var err error
	var req wallRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	label := strings.TrimSpace(req.Label.Value)
	if utf8.RuneCountInString(label) > maxWallLabel {
		return web.Field("label", fmt.Sprintf("must be at most %d characters", maxWallLabel))
	}
	wl := store.Wall{EventID: e.ID, Label: label}
	err = a.store.Walls().Create(r.Context(), &wl)
	if errors.Is(err, store.ErrTooMany) {
		return web.Field("walls", fmt.Sprintf("an event has at most %d wall links; revoke one first", store.MaxWalls))
	}
	if err != nil {
		return err
	}
	a.log.InfoContext(r.Context(), "wall link made", "event", e.ID, "wall", wl.ID, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusCreated, wallBody{Wall: toWallDTO(a.origin(r), wl)})
}

// Delete revokes a wall link: its url answers 404 from now on
// and the screens showing it lose their stream.
func (a *API) Delete(w http.ResponseWriter, r *http.Request, e store.Event) error {
	id := web.Param(r, "wallId")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	if err := a.store.Walls().Delete(r.Context(), e.ID, id); err != nil {
		return err
	}
	a.hub.DropTag(e.ID, id)
	a.log.InfoContext(r.Context(), "wall link revoked", "event", e.ID, "wall", id, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// wallOf resolves the token of a wall route to its link and event; an
// unknown or revoked token, or a token of absurd length, is 404.
func (a *API) wallOf(r *http.Request) (store.Wall, store.Event, error) {
	token, err := web.Token(r)
	if err != nil {
		return store.Wall{}, store.Event{}, err
	}
	wl, err := a.store.Walls().ByToken(r.Context(), token)
	if err != nil {
		return store.Wall{}, store.Event{}, err
	}
	e, err := a.store.Events().Get(r.Context(), wl.EventID)
	if err != nil {
		return store.Wall{}, store.Event{}, err
	}
	return wl, e, nil
}

// wallEventDTO is what a wall shows of its event.
type wallEventDTO struct {
	Name          string        `json:"name"`
	Slug          string        `json:"slug"`
	AccentColor   *string       `json:"accentColor"`
	LogoVersion   *int64        `json:"logoVersion"`
	AccessCode    *string       `json:"accessCode"`
	DefaultLocale *string       `json:"defaultLocale"`
	WallStyle     dto.WallStyle `json:"wallStyle"`
	JoinURL       string        `json:"joinUrl"`
	// RevealAt (docs/decisions.md, "Reveal later") is when the album
	// opens, epoch ms, or null: until then the wall shows no photo, and
	// the page reloads itself at that time.
	RevealAt *int64 `json:"revealAt"`
}

// wallPhotoDTO is a photo as a wall sees it.
type wallPhotoDTO struct {
	ID        string         `json:"id"`
	Width     int            `json:"width"`
	Height    int            `json:"height"`
	GuestName *string        `json:"guestName"`
	CreatedAt int64          `json:"createdAt"`
	Video     *dto.VideoInfo `json:"video,omitempty"`
	// Hearts (added): a wall shows a heart as one arrives.
	Hearts int `json:"hearts"`
}

func toWallPhotoDTO(p store.Photo) wallPhotoDTO {
	d := wallPhotoDTO{ID: p.ID, Width: p.Width, Height: p.Height, GuestName: dto.NullString(p.GuestName), CreatedAt: p.CreatedAt, Hearts: p.Hearts}
	if p.Video != nil {
		d.Video = &dto.VideoInfo{DurationMs: p.Video.DurationMs}
	}
	return d
}

// wallMessageDTO is a guestbook text as a wall sees it.
type wallMessageDTO struct {
	ID        string  `json:"id"`
	GuestName *string `json:"guestName"`
	Text      string  `json:"text"`
	CreatedAt int64   `json:"createdAt"`
}

type wallShowBody struct {
	Event    wallEventDTO     `json:"event"`
	Photos   []wallPhotoDTO   `json:"photos"`
	Messages []wallMessageDTO `json:"messages"`
	// LiveID is the live stream's position before the lists were read:
	// the wall opens its stream with lastEventId=LiveID.
	LiveID string `json:"liveId"`
}

// Show answers what a wall starts with: its event, the newest
// visible photos (none while revealAt holds the album back) and approved
// guestbook texts.
func (a *API) Show(w http.ResponseWriter, r *http.Request) error {
	_, e, err := a.wallOf(r)
	if err != nil {
		return err
	}
	// Read first: a change published from here on is either in the lists
	// or replayed to the stream that starts from it (or both: the wall
	// takes a photo it has once).
	pos := a.hub.Position()
	var photos store.Page[store.Photo]
	if f := access.WallPhotos(access.EventRules(e), a.now().UnixMilli()); !f.None {
		q := access.PhotoQuery(e.ID, f)
		q.Limit = wallFirstPhotos
		if photos, err = a.store.Photos().List(r.Context(), q); err != nil {
			return err
		}
	}
	mq := access.MessageQuery(e.ID, access.WallMessages())
	mq.Limit = wallFirstMessages
	msgs, err := a.store.Messages().List(r.Context(), mq)
	if err != nil {
		return err
	}
	out := wallShowBody{
		Event: wallEventDTO{
			Name: e.Name, Slug: e.Slug, AccentColor: dto.NullString(e.AccentColor), LogoVersion: dto.NullTime(e.LogoVersion),
			AccessCode: dto.NullString(e.AccessCode), DefaultLocale: dto.NullString(e.DefaultLocale),
			WallStyle: dto.WallStyleOf(e.WallStyle), JoinURL: a.origin(r) + "/e/" + e.Slug,
			RevealAt: dto.NullTime(e.RevealAt),
		},
		Photos:   make([]wallPhotoDTO, 0, len(photos.Items)),
		Messages: make([]wallMessageDTO, 0, len(msgs.Items)),
		LiveID:   pos,
	}
	for _, p := range photos.Items {
		if live.PhotoOnWall(p) {
			out.Photos = append(out.Photos, toWallPhotoDTO(p))
		}
	}
	for _, m := range msgs.Items {
		if live.MessageOnWall(m) {
			out.Messages = append(out.Messages, wallMessageDTO{ID: m.ID, GuestName: dto.NullString(m.GuestName), Text: m.Text, CreatedAt: m.CreatedAt})
		}
	}
	return web.JSON(w, r, http.StatusOK, out)
}

// Stream streams what changes on the wall: photo.added or
// photo.changed (a wall photo) when a photo becomes or stays visible,
// photo.removed when it no longer is, and the same for approved texts;
// resumable with Last-Event-ID like the console's stream.
func (a *API) Stream(w http.ResponseWriter, r *http.Request) error {
	wl, e, err := a.wallOf(r)
	if err != nil {
		return err
	}
	rules := access.EventRules(e)
	frame := func(c live.Change) (string, any, bool) {
		return wallLiveFrame(c, access.WallChange(rules, a.now().UnixMilli(), c.PhotoChange(), c.Item(), c.Shown))
	}
	return live.Serve(w, r, a.hub, a.log, live.Stream{EventID: e.ID, Tag: wl.ID, Frame: frame})
}

// wallLiveFrame is a change as a wall sees it, as access.WallChange
// decided: only what it shows, and only the fields a wall shows; a photo
// or text that leaves the wall named only when the wall may have been
// shown it (a pending upload that is favourited, hidden, rejected or
// deleted, or a hidden text deleted, is never named); no photo before
// revealAt (the page reloads itself at that time).
func wallLiveFrame(c live.Change, news access.WallNews) (string, any, bool) {
	switch {
	case news == access.WallSilent:
		return "", nil, false
	case news == access.WallShow && c.Photo != nil:
		name := live.PhotoChanged
		if c.Kind == live.PhotoAdded {
			name = live.PhotoAdded
		}
		return name, toWallPhotoDTO(*c.Photo), true
	case news == access.WallShow && c.Message != nil:
		m := c.Message
		return live.MessageChanged, wallMessageDTO{ID: m.ID, GuestName: dto.NullString(m.GuestName), Text: m.Text, CreatedAt: m.CreatedAt}, true
	case c.PhotoChange():
		return live.PhotoRemoved, live.Removed{ID: c.ID}, true
	default:
		return live.MessageRemoved, live.Removed{ID: c.ID}, true
	}
}

// Media serves a visible photo of the wall's event: thumb,
// display (default) or, for a video, play.
func (a *API) Media(w http.ResponseWriter, r *http.Request) error {
	_, e, err := a.wallOf(r)
	if err != nil {
		return err
	}
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	v := r.URL.Query().Get("v")
	if v == "" {
		v = "display"
	}
	if v != "thumb" && v != "display" && v != "play" {
		return web.Field("v", "must be thumb, display or play")
	}
	p, err := a.store.Photos().Get(r.Context(), id)
	if err != nil {
		return err
	}
	if !access.WallFile(access.EventRules(e), access.PhotoItem(p), a.now().UnixMilli()) {
		return web.ErrNotFound
	}
	// Hidden later: the screen must not keep it in its cache for long.
	w.Header().Set("Cache-Control", "private, max-age=300")
	if v == "play" {
		if p.Video == nil {
			return web.ErrNotFound
		}
		return a.files.Serve(w, r, p.VideoName(), p.Video.MIME, "", false, "")
	}
	etag, caching := mediafile.VariantCaching(p, v)
	if p.VariantsRough {
		w.Header().Set("Cache-Control", caching)
	}
	return a.files.Serve(w, r, p.VariantName(v), "image/jpeg", etag, false, "")
}

// QR draws the event's join code (its qrStyle) as SVG for the
// wall's "scan to share" card.
func (a *API) QR(w http.ResponseWriter, r *http.Request) error {
	_, e, err := a.wallOf(r)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := a.qr.SVG(&buf, a.origin(r)+"/e/"+e.Slug, wallQRSize, a.qrStyle(r.Context(), e), ""); err != nil {
		return fmt.Errorf("drawing wall qr code of event %s: %w", e.ID, err)
	}
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		a.log.DebugContext(r.Context(), "sending wall qr code", "error", err)
	}
	return nil
}
