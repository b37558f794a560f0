package daemon

import (
	"context"
	"encoding/csv"
	"errors"
	"net/http"
	"strings"
	"time"

	"eventbox/daemon/mail"
	"eventbox/daemon/web"
	"eventbox/store"
)

// endMails prepares what ending e queues (docs/design.md, "Ending an event";
// docs/decisions.md, "Mail"): the plan for store.EndEvent, whose Jobs
// composes the guests' gallery mails and the hosts' summary inside the
// end's transaction. It reads what the mails say beforehand (names,
// counts, places), since nothing else may be read inside that
// transaction. password is the generated password of the link, if any.
type endMails struct {
	s        *Server
	origin   string
	domain   string
	password string
	names    map[string]string // guest id → name
	summary  *mail.Summary     // nil: no summary
}

// prepareEnd reads what the end's mails need. summaryTo is where the
// hosts' summary goes ("" = none).
func (s *Server) prepareEnd(ctx context.Context, e store.Event, origin, summaryTo, password string) (*endMails, error) {
	m := &endMails{s: s, origin: origin, domain: s.mailer.Domain(ctx), password: password, names: map[string]string{}}
	if e.EmailGuestsGallery {
		guests, err := s.store.ContactGuests(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		for _, g := range guests {
			m.names[g.ID] = g.Name
		}
	}
	if e.NotifyAdminSummary && summaryTo != "" {
		counts, err := s.store.Counts(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		top, err := s.store.TopGuests(ctx, []string{e.ID}, 5)
		if err != nil {
			return nil, err
		}
		spots, err := s.store.Spots(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		sum := &mail.Summary{To: summaryTo, Counts: counts, Password: password, Domain: m.domain}
		for _, g := range top {
			name := g.Guest.Name
			if name == "" {
				name = "—"
			}
			sum.Top = append(sum.Top, mail.Tally{Label: name, Photos: g.Photos})
		}
		for _, sp := range spots {
			n, err := s.store.SpotPhotoCount(ctx, e.ID, sp.ID)
			if err != nil {
				return nil, err
			}
			sum.Places = append(sum.Places, mail.Tally{Label: sp.Label, Photos: n})
		}
		m.summary = sum
	}
	return m, nil
}

// galleryMailKey keeps one unfinished gallery mail per guest of an event.
func galleryMailKey(eventID, guestID string) string { return "gallery/" + eventID + "/" + guestID }

// jobs composes the end's mails; it runs inside the end's transaction.
// One mail per address: two phones of one guest get one mail.
func (m *endMails) jobs(e store.Event, sh *store.Share, contacts map[string]string) (store.EndJobs, error) {
	out := store.EndJobs{Guests: map[string]store.JobSpec{}}
	url := ""
	if sh != nil {
		url = m.origin + "/g/" + sh.Token
	}
	if e.EmailGuestsGallery && sh != nil {
		seen := map[string]bool{}
		for guestID, addr := range contacts {
			if seen[strings.ToLower(addr)] {
				continue
			}
			seen[strings.ToLower(addr)] = true
			g := mail.Gallery{Event: e, To: addr, GuestName: m.names[guestID], URL: url, ExpiresAt: sh.ExpiresAt,
				Locked: sh.PasswordHash != "", Domain: m.domain}
			if e.GalleryMailIncludesPassword {
				g.Password = m.password
			}
			msg, err := mail.GalleryMessage(g)
			if err != nil {
				return store.EndJobs{}, err
			}
			spec, err := mail.Spec(msg, galleryMailKey(e.ID, guestID))
			if err != nil {
				return store.EndJobs{}, err
			}
			out.Guests[guestID] = spec
		}
	}
	if m.summary != nil {
		sum := *m.summary
		sum.Event, sum.URL, sum.GuestMails = e, url, len(out.Guests)
		msg, err := mail.SummaryMessage(sum)
		if err != nil {
			return store.EndJobs{}, err
		}
		spec, err := mail.Spec(msg, "summary/"+e.ID)
		if err != nil {
			return store.EndJobs{}, err
		}
		out.Other = append(out.Other, spec)
	}
	return out, nil
}

// galleryMailState is where a guest's gallery mail is: none (no mail was
// queued, or its record is gone), pending, sent or failed.
func (s *Server) galleryMailState(ctx context.Context, g store.Guest) (string, error) {
	if g.GalleryMailJob == 0 {
		return "none", nil
	}
	j, err := s.store.Job(ctx, g.GalleryMailJob)
	if errors.Is(err, store.ErrNotFound) {
		return "none", nil
	}
	if err != nil {
		return "", err
	}
	return mailStatus(j.Status), nil
}

// contactDTO is a guest's address, for the hosts (an added route:
// docs/architecture.md). mail is the state of its gallery mail.
type contactDTO struct {
	GuestID   string `json:"guestId"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	CreatedAt int64  `json:"createdAt"`
	Mail      string `json:"mail"`
}

// contactMailsDTO counts the event's gallery mails by state.
type contactMailsDTO struct {
	Pending int `json:"pending"`
	Sent    int `json:"sent"`
	Failed  int `json:"failed"`
}

type contactsBody struct {
	Contacts []contactDTO    `json:"contacts"`
	Mails    contactMailsDTO `json:"mails"`
}

// handleContacts lists the addresses the event's guests left, with the
// state of each one's gallery mail; ?format=csv answers them as a CSV
// file (name, email, left at, mail).
func (s *Server) handleContacts(w http.ResponseWriter, r *http.Request) error {
	e, err := s.visitors.AdminEvent(r)
	if err != nil {
		return err
	}
	format := r.URL.Query().Get("format")
	if format != "" && format != "csv" && format != "json" {
		return web.Field("format", "must be csv or json")
	}
	guests, err := s.store.ContactGuests(r.Context(), e.ID)
	if err != nil {
		return err
	}
	body := contactsBody{Contacts: make([]contactDTO, 0, len(guests))}
	for _, g := range guests {
		state, err := s.galleryMailState(r.Context(), g)
		if err != nil {
			return err
		}
		switch state {
		case "pending":
			body.Mails.Pending++
		case "sent":
			body.Mails.Sent++
		case "failed":
			body.Mails.Failed++
		}
		body.Contacts = append(body.Contacts, contactDTO{GuestID: g.ID, Name: g.Name, Email: g.Email, CreatedAt: g.CreatedAt, Mail: state})
	}
	if format != "csv" {
		return web.JSON(w, r, http.StatusOK, body)
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", contentDisposition(safeName(e.Name)+"-guests.csv"))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	cw := csv.NewWriter(w)
	rows := [][]string{{"name", "email", "left at", "gallery mail"}}
	for _, c := range body.Contacts {
		rows = append(rows, []string{csvCell(c.Name), csvCell(c.Email), time.UnixMilli(c.CreatedAt).UTC().Format(time.RFC3339), c.Mail})
	}
	// After the header, a failure can only cut the answer short.
	if err := cw.WriteAll(rows); err != nil {
		s.log.WarnContext(r.Context(), "contacts csv cut short", "error", err)
	}
	return nil
}

// csvCell keeps a spreadsheet from reading a cell as a formula.
func csvCell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

// guestGalleryDTO is, on the guest page after the end, the gallery link
// made then and where this guest's mail of it is.
type guestGalleryDTO struct {
	URL           string `json:"url"`
	NeedsPassword bool   `json:"needsPassword"`
	ExpiresAt     *int64 `json:"expiresAt"`
	Mail          string `json:"mail"`
}

// guestGallery answers the end's gallery link for guest g of e, nil when
// the event has not ended, made no link, or the link is gone or expired.
func (s *Server) guestGallery(ctx context.Context, origin string, e store.Event, g store.Guest) (*guestGalleryDTO, error) {
	if e.EndedAt == 0 || e.EndShareID == "" {
		return nil, nil
	}
	sh, err := s.store.Share(ctx, e.ID, e.EndShareID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if sh.ExpiredAt(s.now().UnixMilli()) {
		return nil, nil
	}
	state, err := s.galleryMailState(ctx, g)
	if err != nil {
		return nil, err
	}
	out := &guestGalleryDTO{URL: origin + "/g/" + sh.Token, NeedsPassword: sh.PasswordHash != "", Mail: state}
	if sh.ExpiresAt != 0 {
		out.ExpiresAt = &sh.ExpiresAt
	}
	return out, nil
}
