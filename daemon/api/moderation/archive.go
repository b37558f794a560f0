package moderation

import (
	"net/http"

	"eventbox/daemon/access"
	"eventbox/daemon/archive"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Archive streams a ZIP of the event's photos: the visible ones; all=1
// adds pending and hidden; favorites=1 keeps the favorites.
func (m *API) Archive(w http.ResponseWriter, r *http.Request, e store.Event) error {
	all, err := web.ParseFlag(r, "all")
	if err != nil {
		return err
	}
	favorites, err := web.ParseFlag(r, "favorites")
	if err != nil {
		return err
	}
	what := "all photos"
	if favorites {
		what = "favourites"
	}
	if all {
		what += " incl. hidden and pending"
	}
	return m.archive.Photos(w, r, e, access.PhotoQuery(e.ID, access.HostArchive(all, favorites)), archive.Options{Name: archive.Name(e, what)})
}
