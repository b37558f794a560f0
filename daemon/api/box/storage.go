package box

import (
	"net/http"

	"eventbox/daemon/web"
)

// Storage is GET /api/admin/storage (an added route): the storage
// guard's state, for the console's banner.
func (a *API) Storage(w http.ResponseWriter, r *http.Request) error {
	st := a.cfg.Storage.Check(r.Context())
	return web.JSON(w, r, http.StatusOK, storageDTO{Low: st.Low, FreeBytes: st.Free, MarginBytes: st.Margin})
}
