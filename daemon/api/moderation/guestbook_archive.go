package moderation

import (
	"net/http"
	"slices"

	"eventbox/daemon/access"
	"eventbox/store"
)

// MessageArchive streams a ZIP of the guestbook: guestbook.txt with
// every message (oldest first: name, time in the event's language, text,
// and the file name of its voice note) and the voice notes themselves
// (archive.Streamer.Guestbook).
func (m *API) MessageArchive(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var all []store.Message
	q := access.MessageQuery(e.ID, access.HostGuestbook())
	q.Limit = 500
	for {
		page, err := m.store.Messages().List(r.Context(), q)
		if err != nil {
			return err
		}
		all = append(all, page.Items...)
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
	}
	slices.Reverse(all)
	return m.archive.Guestbook(w, r, e, all, m.now())
}
