package daemon

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"eventbox/store"
)

// copySuffix is added to the name of a duplicate named by the box.
const copySuffix = " (copy)"

type duplicateRequest struct {
	Name Nullable[string] `json:"name"`
}

// copyName is "<name> (copy)", the name shortened so the whole stays
// within the event model's longest name.
func copyName(name string) string {
	keep := store.Rules().Name.Max - utf8.RuneCountInString(copySuffix)
	if r := []rune(name); len(r) > keep {
		name = strings.TrimSpace(string(r[:keep]))
	}
	return name + copySuffix
}

// handleDuplicateEvent makes a new event with the settings, challenges,
// places, logo and styles of this one, and none of its photos, messages,
// guests, gallery links or booth key (store.DuplicateEvent).
func (s *Server) handleDuplicateEvent(w http.ResponseWriter, r *http.Request) error {
	e, err := s.adminEvent(r)
	if err != nil {
		return err
	}
	var req duplicateRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	name := copyName(e.Name)
	if req.Name.Set && !req.Name.Null {
		name = strings.TrimSpace(req.Name.Value)
		if rule := store.Rules().Name; !rule.Contains(utf8.RuneCountInString(name)) {
			return errField("name", fmt.Sprintf("must be %d to %d characters", rule.Min, rule.Max))
		}
		if msg := lineProblem(name); msg != "" {
			return errField("name", msg)
		}
	}
	// The logo file must not change while it is copied.
	s.logoMu.Lock()
	d, err := s.store.DuplicateEvent(r.Context(), e.ID, name)
	s.logoMu.Unlock()
	if err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "event duplicated", "event", e.ID, "copy", d.ID, "by", account(r).Username)
	return writeJSON(w, r, http.StatusCreated, eventBody{Event: toEventDTO(d)})
}

// endShareLabel labels the gallery link made when an event ends.
const endShareLabel = "Made when the event ended"

// endResultDTO says what ending the event set in motion (DESIGN.md, "End
// result"). Notes say, in plain words, what the box could not do.
type endResultDTO struct {
	Share         *shareDTO `json:"share"`
	ShareURL      *string   `json:"shareUrl"`
	GuestEmails   int       `json:"guestEmails"`
	SummaryQueued bool      `json:"summaryQueued"`
	ExportQueued  bool      `json:"exportQueued"`
	Notes         []string  `json:"notes"`
}

type endBody struct {
	Event  eventDTO     `json:"event"`
	Result endResultDTO `json:"result"`
}

// handleEndEvent ends the event: endedAt is set and uploads close (guests
// then get uploads_closed, the booth too). When galleryLinkDays > 0 it
// makes an open gallery link with the event's galleryLink* settings,
// expiring after that many days. Ending an ended event is a 400.
func (s *Server) handleEndEvent(w http.ResponseWriter, r *http.Request) error {
	e, err := s.adminEvent(r)
	if err != nil {
		return err
	}
	endedAt := s.now().UnixMilli()
	e, err = s.store.UpdateEvent(r.Context(), e.ID, func(e *store.Event) error {
		if e.EndedAt != 0 {
			return errField("event", "has already ended")
		}
		e.EndedAt = endedAt
		e.UploadsOpen = false
		return nil
	}, s.notice(store.NoticeEventEnded, e.ID, endNotice{EndedAt: endedAt})...)
	if err != nil {
		return err
	}
	s.outbox.Notify()
	s.log.InfoContext(r.Context(), "event ended", "event", e.ID, "by", account(r).Username)
	result := endResultDTO{Notes: []string{}}
	if e.GalleryLinkDays > 0 {
		sh, _, err := s.createShare(r.Context(), e, newShareOptions{
			Label: endShareLabel, AllowDownload: e.GalleryLinkDownload,
			FavoritesOnly: e.GalleryLinkFavorites, ExpiresInDays: e.GalleryLinkDays,
		})
		if err != nil {
			// The event has ended all the same; the hosts can make a link
			// by hand.
			s.log.ErrorContext(r.Context(), "gallery link not made at the end", "event", e.ID, "error", err)
			result.Notes = append(result.Notes, "The gallery link could not be made; make one under gallery links.")
		} else {
			dto := s.toShareDTO(s.origin(r), sh)
			result.Share, result.ShareURL = &dto, &dto.URL
		}
	}
	result.ExportQueued = s.autoExport(r.Context(), e.ID)
	if e.EmailGuestsGallery || e.NotifyAdminSummary {
		result.Notes = append(result.Notes, "No mail was queued: this box cannot send mail yet.")
	}
	return writeJSON(w, r, http.StatusOK, endBody{Event: toEventDTO(e), Result: result})
}
