package guests

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/ingest"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/photos"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/probe"
	"eventbox/store"
)

// Guestbook limits (docs/design.md, "Voice notes").
const (
	maxMessageText = 2000
	// MaxVoiceBytes is the largest voice note taken.
	MaxVoiceBytes  = 20 << 20
	maxVoiceLength = 5 * time.Minute
	// guestMessagesCap bounds the guest's own list, which has no cursor.
	guestMessagesCap = 500
)

// guestbookGuest resolves the guest of a guestbook route: joined, and the
// event's guestbook on (403 otherwise).
func (a *API) guestbookGuest(r *http.Request) (store.Event, store.Guest, error) {
	e, g, err := a.GuestOf(r)
	if err != nil {
		return store.Event{}, store.Guest{}, err
	}
	if !e.GuestbookEnabled {
		return store.Event{}, store.Guest{}, web.ErrForbidden
	}
	return e, g, nil
}

// Messages lists the guest's own messages, newest first.
func (a *API) Messages(w http.ResponseWriter, r *http.Request) error {
	e, g, err := a.guestbookGuest(r)
	if err != nil {
		return err
	}
	q := access.MessageQuery(e.ID, access.GuestMessages(g.ID))
	q.Limit = guestMessagesCap
	page, err := a.store.Messages().List(r.Context(), q)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, dto.MessageListBody{Messages: dto.MessagePage(page, g.ID).Messages})
}

// PostMessage takes a guestbook message: multipart text and/or a
// voice note (audio) with its length (seconds).
func (a *API) PostMessage(w http.ResponseWriter, r *http.Request) error {
	e, g, err := a.guestbookGuest(r)
	if err != nil {
		return err
	}
	if err := visitor.Refusal(access.MayWriteGuestbook(access.EventRules(e))); err != nil {
		return err
	}
	if err := a.cfg.AllowUpload(r, g); err != nil {
		return err
	}
	if g, err = a.visitors.KeepGuest(r.Context(), g); err != nil {
		return err
	}
	fields, audio, err := a.readMessageForm(w, r)
	if err != nil {
		return err
	}
	if audio.Tmp != nil {
		defer audio.Tmp.Abort()
	}
	text := strings.TrimSpace(strings.ReplaceAll(fields["text"], "\r\n", "\n"))
	details := map[string]string{}
	if n := utf8.RuneCountInString(text); n > maxMessageText || (audio.Tmp == nil && n < 1) {
		details["text"] = fmt.Sprintf("must be 1 to %d characters (or send a voice note)", maxMessageText)
	}
	if msg := web.TextProblem(text); msg != "" {
		details["text"] = msg
	}
	m := store.Message{ID: store.NewID(), EventID: e.ID, GuestID: g.ID, GuestName: g.Name, Text: text, Status: statusForNew(e)}
	if g.Booth {
		m.GuestName = photos.BoothName
	}
	if audio.Tmp != nil {
		if !e.GuestbookVoice {
			return web.ErrForbidden
		}
		res, err := probe.Audio(r.Context(), audio.Tmp.File, audio.Size)
		if errors.Is(err, probe.ErrInvalid) {
			details["audio"] = "must be a WebM or Ogg Opus, MP4/AAC or MP3 voice note"
		} else if err != nil {
			return fmt.Errorf("probing voice note: %w", err)
		} else if res.Duration > maxVoiceLength {
			details["audio"] = "must be at most 5 minutes"
		} else {
			seconds, err := strconv.ParseFloat(fields["seconds"], 64)
			// Written as !(seconds > 0) so that NaN, which compares false
			// with everything, is refused too.
			if err != nil || !(seconds > 0) || seconds > maxVoiceLength.Seconds()+2 {
				details["seconds"] = "must be the voice note's length in seconds"
			} else if got := res.Duration.Seconds(); math.Abs(seconds-got) > math.Max(2, got*0.1) {
				details["seconds"] = fmt.Sprintf("does not match the recording (%.1f s)", got)
			}
			m.Seconds = math.Round(res.Duration.Seconds()*10) / 10
			m.AudioMIME, m.AudioExt, m.AudioSize = res.MIME, audioExt(res.Container), audio.Size
		}
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	if audio.Tmp != nil {
		if err := audio.Tmp.Commit(m.AudioName()); err != nil {
			return err
		}
	}
	m, err = a.store.Messages().Add(r.Context(), m, a.cfg.Notices.MessageNotice(m)...)
	if err != nil {
		if m.HasAudio() {
			_ = a.store.Media().Remove(m.AudioName())
		}
		return err
	}
	a.cfg.Notices.Queued()
	if m.HasAudio() {
		a.cfg.Uploaded("voice")
	}
	a.cfg.Live.MessagesChanged(r.Context(), e.ID, []string{m.ID}, true, nil)
	return web.JSON(w, r, http.StatusCreated, dto.MessageBody{Message: dto.MessageOf(m, g.ID)})
}

// readMessageForm streams the guestbook form: the audio part to a temp
// file (capped at MaxVoiceBytes), text and seconds small.
func (a *API) readMessageForm(w http.ResponseWriter, r *http.Request) (map[string]string, ingest.File, error) {
	mt := r.Header.Get("Content-Type")
	if !strings.HasPrefix(mt, "multipart/") {
		return nil, ingest.File{}, web.Field("body", "send text and/or audio as multipart/form-data")
	}
	return a.cfg.Ingest.ReadForm(w, r, ingest.Form{Limit: MaxVoiceBytes, FileField: "audio",
		TextFields: []string{"text", "seconds"}, MaxText: maxMessageText * 4})
}

func audioExt(container string) string {
	switch container {
	case probe.ContainerOgg:
		return "ogg"
	case probe.ContainerWebM:
		return "webm"
	case probe.ContainerMP3:
		return "mp3"
	default:
		return "m4a"
	}
}

// DeleteMessage removes one of the guest's own messages.
func (a *API) DeleteMessage(w http.ResponseWriter, r *http.Request) error {
	e, g, err := a.guestbookGuest(r)
	if err != nil {
		return err
	}
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	before := a.cfg.Live.MessagesOnWall(r.Context(), []string{id})
	removed, err := a.store.Messages().Delete(r.Context(), e.ID, g.ID, []string{id})
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		return web.ErrNotFound
	}
	a.cfg.Live.MessagesRemoved(e.ID, removed, before)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// MessageAudio serves a voice note to who may hear it: its author,
// admins in scope, and viewers of the event's gallery links when the
// hosts share the guestbook there.
func (a *API) MessageAudio(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	m, err := a.store.Messages().Get(r.Context(), id)
	if err != nil {
		return err
	}
	if !m.HasAudio() || !a.mayHear(r, m) {
		return web.ErrNotFound
	}
	name := mediafile.DownloadName(store.Photo{CreatedAt: m.CreatedAt, GuestName: m.GuestName, ID: m.ID}, "", "."+m.AudioExt)
	return a.cfg.Files.Serve(w, r, m.AudioName(), m.AudioMIME, "", r.URL.Query().Get("download") == "1", name)
}

// mayHear reports whether this request may hear the voice note
// (access.Hear). An event that cannot be read shares nothing, as before:
// the note is then for its author and the hosts only.
func (a *API) mayHear(r *http.Request, m store.Message) bool {
	e, err := a.visitors.AccessEvent(r.Context(), m.EventID)
	if err != nil {
		a.log.WarnContext(r.Context(), "reading the event of a voice note", "event", m.EventID, "error", err)
		e = access.Event{ID: m.EventID}
	}
	return access.Hear(a.visitors.Viewer(r, m.EventID), e, access.MessageItem(m))
}
