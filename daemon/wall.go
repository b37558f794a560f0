package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Wall links (docs/decisions.md, "Wall links"): a venue screen opens
// /wall/<token> without signing in and sees the event's visible photos and
// approved guestbook texts, pushed as they come.

const (
	// maxWallLabel bounds a wall link's label, in characters.
	maxWallLabel = 80
	// wallFirstPhotos and wallFirstMessages are how many of the newest
	// visible photos and texts a wall starts with.
	wallFirstPhotos   = 120
	wallFirstMessages = 30
	// wallQRSize is the side of the wall's QR code.
	wallQRSize = 512
	// maxTokenLen refuses absurd path tokens before they are hashed.
	maxTokenLen = 128
)

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

// handleListWalls lists the event's wall links, newest first.
func (s *Server) handleListWalls(w http.ResponseWriter, r *http.Request) error {
	e, err := s.visitors.AdminEvent(r)
	if err != nil {
		return err
	}
	walls, err := s.store.Walls().List(r.Context(), e.ID)
	if err != nil {
		return err
	}
	out := wallListBody{Walls: make([]wallDTO, 0, len(walls))}
	for _, wl := range walls {
		out.Walls = append(out.Walls, toWallDTO(s.origin(r), wl))
	}
	return web.JSON(w, r, http.StatusOK, out)
}

// handleCreateWall makes a wall link of the event: 201 {wall}, its url
// holding the token.
func (s *Server) handleCreateWall(w http.ResponseWriter, r *http.Request) error {
	e, err := s.visitors.AdminEvent(r)
	if err != nil {
		return err
	}
	var req wallRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	label := strings.TrimSpace(req.Label.Value)
	if utf8.RuneCountInString(label) > maxWallLabel {
		return web.Field("label", fmt.Sprintf("must be at most %d characters", maxWallLabel))
	}
	wl := store.Wall{EventID: e.ID, Label: label}
	err = s.store.Walls().Create(r.Context(), &wl)
	if errors.Is(err, store.ErrTooMany) {
		return web.Field("walls", fmt.Sprintf("an event has at most %d wall links; revoke one first", store.MaxWalls))
	}
	if err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "wall link made", "event", e.ID, "wall", wl.ID, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusCreated, wallBody{Wall: toWallDTO(s.origin(r), wl)})
}

// handleDeleteWall revokes a wall link: its url answers 404 from now on
// and the screens showing it lose their stream.
func (s *Server) handleDeleteWall(w http.ResponseWriter, r *http.Request) error {
	e, err := s.visitors.AdminEvent(r)
	if err != nil {
		return err
	}
	id := web.Param(r, "wallId")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	if err := s.store.Walls().Delete(r.Context(), e.ID, id); err != nil {
		return err
	}
	s.live.dropTag(e.ID, id)
	s.log.InfoContext(r.Context(), "wall link revoked", "event", e.ID, "wall", id, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// wallOf resolves the token of a wall route to its link and event; an
// unknown or revoked token, or a token of absurd length, is 404.
func (s *Server) wallOf(r *http.Request) (store.Wall, store.Event, error) {
	token := web.Param(r, "token")
	if token == "" || len(token) > maxTokenLen {
		return store.Wall{}, store.Event{}, web.ErrNotFound
	}
	wl, err := s.store.Walls().ByToken(r.Context(), token)
	if err != nil {
		return store.Wall{}, store.Event{}, err
	}
	e, err := s.store.Events().Get(r.Context(), wl.EventID)
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
}

func toWallPhotoDTO(p store.Photo) wallPhotoDTO {
	d := wallPhotoDTO{ID: p.ID, Width: p.Width, Height: p.Height, GuestName: dto.NullString(p.GuestName), CreatedAt: p.CreatedAt}
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

// onWall reports whether a wall shows the photo: visible, with its
// display image made (access.WallShows).
func onWall(p store.Photo) bool { return access.WallShows(visitor.PhotoItem(p)) }

// wallMessage reports whether a wall shows the message: approved text
// (access.WallShows).
func wallMessage(m store.Message) bool { return access.WallShows(visitor.MessageItem(m)) }

// wallHolds reports whether the event's album is still held back
// (revealAt in the future): a wall shows no photo before it
// (access.WallHolds).
func (s *Server) wallHolds(e store.Event) bool {
	return access.WallHolds(visitor.EventRules(e), s.now().UnixMilli())
}

// handleWall answers what a wall starts with: its event, the newest
// visible photos (none while revealAt holds the album back) and approved
// guestbook texts.
func (s *Server) handleWall(w http.ResponseWriter, r *http.Request) error {
	_, e, err := s.wallOf(r)
	if err != nil {
		return err
	}
	// Read first: a change published from here on is either in the lists
	// or replayed to the stream that starts from it (or both: the wall
	// takes a photo it has once).
	pos := s.live.position()
	var photos store.Page[store.Photo]
	if f := access.WallPhotos(visitor.EventRules(e), s.now().UnixMilli()); !f.None {
		q := visitor.PhotoQuery(e.ID, f)
		q.Limit = wallFirstPhotos
		if photos, err = s.store.Photos().List(r.Context(), q); err != nil {
			return err
		}
	}
	mq := visitor.MessageQuery(e.ID, access.WallMessages())
	mq.Limit = wallFirstMessages
	msgs, err := s.store.Messages().List(r.Context(), mq)
	if err != nil {
		return err
	}
	out := wallShowBody{
		Event: wallEventDTO{
			Name: e.Name, Slug: e.Slug, AccentColor: dto.NullString(e.AccentColor), LogoVersion: dto.NullTime(e.LogoVersion),
			AccessCode: dto.NullString(e.AccessCode), DefaultLocale: dto.NullString(e.DefaultLocale),
			WallStyle: dto.WallStyleOf(e.WallStyle), JoinURL: s.origin(r) + "/e/" + e.Slug,
			RevealAt: dto.NullTime(e.RevealAt),
		},
		Photos:   make([]wallPhotoDTO, 0, len(photos.Items)),
		Messages: make([]wallMessageDTO, 0, len(msgs.Items)),
		LiveID:   pos,
	}
	for _, p := range photos.Items {
		if onWall(p) {
			out.Photos = append(out.Photos, toWallPhotoDTO(p))
		}
	}
	for _, m := range msgs.Items {
		if wallMessage(m) {
			out.Messages = append(out.Messages, wallMessageDTO{ID: m.ID, GuestName: dto.NullString(m.GuestName), Text: m.Text, CreatedAt: m.CreatedAt})
		}
	}
	return web.JSON(w, r, http.StatusOK, out)
}

// handleWallLive streams what changes on the wall: photo.added or
// photo.changed (a wall photo) when a photo becomes or stays visible,
// photo.removed when it no longer is, and the same for approved texts;
// resumable with Last-Event-ID like the console's stream.
func (s *Server) handleWallLive(w http.ResponseWriter, r *http.Request) error {
	wl, e, err := s.wallOf(r)
	if err != nil {
		return err
	}
	frame := wallLiveFrame
	if e.RevealAt != 0 {
		// Until revealAt no photo reaches the wall, not even by the
		// stream; the page reloads itself at that time.
		frame = func(c liveChange) (string, any, bool) {
			if c.photoChange() && s.wallHolds(e) {
				return "", nil, false
			}
			return wallLiveFrame(c)
		}
	}
	return s.serveLive(w, r, e.ID, wl.ID, frame, nil)
}

// wallLiveFrame is a change as a wall sees it: only what is visible, and
// only the fields a wall shows. A photo or text that leaves the wall (or
// is changed off it) is named only when the wall may have been shown it
// (liveChange.Shown): a pending upload that is favourited, hidden,
// rejected or deleted, or a hidden text deleted, is never named.
func wallLiveFrame(c liveChange) (string, any, bool) {
	switch {
	case c.Photo != nil && onWall(*c.Photo):
		name := livePhotoChanged
		if c.Kind == livePhotoAdded {
			name = livePhotoAdded
		}
		return name, toWallPhotoDTO(*c.Photo), true
	case c.Message != nil && wallMessage(*c.Message):
		m := c.Message
		return liveMessageChanged, wallMessageDTO{ID: m.ID, GuestName: dto.NullString(m.GuestName), Text: m.Text, CreatedAt: m.CreatedAt}, true
	case !c.Shown:
		// Never on the wall: not even its id.
		return "", nil, false
	case c.photoChange():
		return livePhotoRemoved, liveRemovedDTO{ID: c.ID}, true
	default:
		return liveMessageRemoved, liveRemovedDTO{ID: c.ID}, true
	}
}

// handleWallMedia serves a visible photo of the wall's event: thumb,
// display (default) or, for a video, play.
func (s *Server) handleWallMedia(w http.ResponseWriter, r *http.Request) error {
	_, e, err := s.wallOf(r)
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
	p, err := s.store.Photos().Get(r.Context(), id)
	if err != nil {
		return err
	}
	if p.EventID != e.ID || !onWall(p) || s.wallHolds(e) {
		return web.ErrNotFound
	}
	// Hidden later: the screen must not keep it in its cache for long.
	w.Header().Set("Cache-Control", "private, max-age=300")
	if v == "play" {
		if p.Video == nil {
			return web.ErrNotFound
		}
		return s.files.Serve(w, r, p.VideoName(), p.Video.MIME, "", false, "")
	}
	return s.files.Serve(w, r, p.VariantName(v), "image/jpeg", `"`+p.ID+"-"+v+`"`, false, "")
}

// handleWallQR draws the event's join code (its qrStyle) as SVG for the
// wall's "scan to share" card.
func (s *Server) handleWallQR(w http.ResponseWriter, r *http.Request) error {
	_, e, err := s.wallOf(r)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := s.qr.SVG(&buf, s.origin(r)+"/e/"+e.Slug, wallQRSize, s.qrStyle(r.Context(), e), ""); err != nil {
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
		s.log.DebugContext(r.Context(), "sending wall qr code", "error", err)
	}
	return nil
}
