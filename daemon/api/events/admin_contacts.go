package events

import (
	"encoding/csv"
	"net/http"
	"strings"
	"time"

	"eventbox/daemon/mediafile"
	"eventbox/daemon/web"
	"eventbox/store"
)

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

// Contacts lists the addresses the event's guests left, with the
// state of each one's gallery mail; ?format=csv answers them as a CSV
// file (name, email, left at, mail).
func (a *API) Contacts(w http.ResponseWriter, r *http.Request, e store.Event) error {
	format := r.URL.Query().Get("format")
	if format != "" && format != "csv" && format != "json" {
		return web.Field("format", "must be csv or json")
	}
	guests, err := a.store.Guests().WithContact(r.Context(), e.ID)
	if err != nil {
		return err
	}
	body := contactsBody{Contacts: make([]contactDTO, 0, len(guests))}
	for _, g := range guests {
		state, err := a.cfg.Outbound.MailState(r.Context(), g)
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
	h.Set("Content-Disposition", mediafile.ContentDisposition(mediafile.SafeName(e.Name)+"-guests.csv"))
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
		a.log.WarnContext(r.Context(), "contacts csv cut short", "error", err)
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
