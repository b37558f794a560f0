package events

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"eventbox/daemon/dto"
	"eventbox/daemon/passwords"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// copySuffix is added to the name of a duplicate named by the box.
const copySuffix = " (copy)"

type duplicateRequest struct {
	Name web.Nullable[string] `json:"name"`
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

// DuplicateEvent makes a new event with the settings, challenges,
// places, logo and styles of this one, and none of its photos, messages,
// guests, gallery links or booth key (store.DuplicateEvent).
func (a *API) DuplicateEvent(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var req duplicateRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	name := copyName(e.Name)
	if req.Name.Set && !req.Name.Null {
		name = strings.TrimSpace(req.Name.Value)
		if rule := store.Rules().Name; !rule.Contains(utf8.RuneCountInString(name)) {
			return web.Field("name", fmt.Sprintf("must be %d to %d characters", rule.Min, rule.Max))
		}
		if msg := web.LineProblem(name); msg != "" {
			return web.Field("name", msg)
		}
	}
	// The logo file must not change while it is copied.
	a.logoMu.Lock()
	d, err := a.store.Events().Duplicate(r.Context(), e.ID, name)
	a.logoMu.Unlock()
	if err != nil {
		return err
	}
	a.log.InfoContext(r.Context(), "event duplicated", "event", e.ID, "copy", d.ID, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusCreated, eventBody{Event: dto.EventOf(d)})
}

// endShareLabel labels the gallery link made when an event ends.
const endShareLabel = "Made when the event ended"

// endResultDTO says what ending the event set in motion (docs/design.md, "End
// result"). SharePassword is the generated password of the link (an
// added field: the hosts see it once, here and in their summary), null
// for an open link. Notes say, in plain words, what the box could not do.
type endResultDTO struct {
	Share         *dto.Share `json:"share"`
	ShareURL      *string    `json:"shareUrl"`
	SharePassword *string    `json:"sharePassword"`
	GuestEmails   int        `json:"guestEmails"`
	SummaryQueued bool       `json:"summaryQueued"`
	ExportQueued  bool       `json:"exportQueued"`
	Notes         []string   `json:"notes"`
}

// endNotice is the data of the event.ended notice.
type endNotice struct {
	EndedAt int64 `json:"endedAt"`
}

type endBody struct {
	Event  dto.Event    `json:"event"`
	Result endResultDTO `json:"result"`
}

// EndEvent ends the event: endedAt is set and uploads close (guests
// then get uploads_closed, the booth too). When galleryLinkDays > 0 it
// makes a gallery link with the event's galleryLink* settings, expiring
// after that many days; the link of an event that had an access code gets
// a generated password. The guests' gallery mails (emailGuestsGallery)
// and the hosts' summary (notifyAdminSummary) are queued in the same
// transaction (store.EndEvent), and result counts what was queued.
// Ending an ended event is a 400.
func (a *API) EndEvent(w http.ResponseWriter, r *http.Request, e store.Event) error {
	ctx := r.Context()
	if e.EndedAt != 0 {
		return web.Field("event", "has already ended")
	}
	settings, err := a.store.Mail().Settings(ctx)
	if err != nil {
		return err
	}
	var plan store.EndPlan
	password := ""
	if e.GalleryLinkDays > 0 {
		sh := store.Share{Label: endShareLabel, AllowDownload: e.GalleryLinkDownload, FavoritesOnly: e.GalleryLinkFavorites,
			ExpiresAt: a.now().Add(time.Duration(e.GalleryLinkDays) * 24 * time.Hour).UnixMilli()}
		if e.AccessCode != "" {
			// The guests entered with a code: the link that outlives the
			// party is not open to whoever finds it.
			password = passwords.Generate()
			if sh.PasswordHash, err = passwords.Hash(password, a.cfg.PasswordCost); err != nil {
				return err
			}
			// Kept, so that the Share tab shows it again to the hosts.
			sh.Password = password
		}
		plan.Share = &sh
	}
	summaryTo := settings.AdminEmail
	if summaryTo == "" {
		summaryTo = visitor.Account(r).Email
	}
	mails, err := a.prepareEnd(ctx, e, a.origin(r), summaryTo, password)
	if err != nil {
		return err
	}
	// The end's jobs: the mails, and the event.ended notice for the
	// webhooks, all in the end's transaction.
	plan.Jobs = func(ev store.Event, sh *store.Share, contacts map[string]string) (store.EndJobs, error) {
		jobs, err := mails.jobs(ev, sh, contacts)
		if err != nil {
			return jobs, err
		}
		jobs.Other = append(jobs.Other, a.cfg.Outbound.Notice(store.NoticeEventEnded, ev.ID, endNotice{EndedAt: ev.EndedAt})...)
		return jobs, nil
	}
	res, err := a.store.Events().End(ctx, e.ID, plan)
	if errors.Is(err, store.ErrEnded) {
		return web.Field("event", "has already ended")
	}
	if err != nil {
		return err
	}
	a.cfg.Outbound.Queued()
	e = res.Event
	a.log.InfoContext(ctx, "event ended", "event", e.ID, "guest_mails", res.GuestJobs, "summary", mails.summary != nil, "by", visitor.Account(r).Username)
	result := endResultDTO{Notes: []string{}, GuestEmails: res.GuestJobs, SummaryQueued: mails.summary != nil}
	if res.Share != nil {
		sh := dto.ShareOf(a.origin(r), *res.Share, a.now().UnixMilli())
		result.Share, result.ShareURL = &sh, &sh.URL
		if password != "" {
			result.SharePassword = &password
		}
	} else if plan.Share != nil {
		result.Notes = append(result.Notes, "The gallery link could not be made (too many links); make one under gallery links.")
	}
	result.ExportQueued = a.cfg.Outbound.AutoExport(ctx, e.ID)
	if e.EmailGuestsGallery && res.Share == nil && res.GuestJobs == 0 {
		result.Notes = append(result.Notes, "No gallery mail was queued: there is no gallery link to send.")
	}
	if e.NotifyAdminSummary && summaryTo == "" {
		result.Notes = append(result.Notes, "No summary was queued: set the admin address in the mail settings.")
	}
	if (result.GuestEmails > 0 || result.SummaryQueued) && !settings.Ready() {
		result.Notes = append(result.Notes, "Mail is not set up yet: the mails wait in the queue (up to 48 hours) until it is.")
	}
	return web.JSON(w, r, http.StatusOK, endBody{Event: dto.EventOf(e), Result: result})
}
