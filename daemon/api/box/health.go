package box

import (
	"net/http"

	"eventbox/daemon/web"
)

// healthBody is GET /api/health. Storage is "ok", or "low" while the
// storage guard refuses uploads: a full card is not a failed box, so the
// status stays 200.
type healthBody struct {
	Status  string `json:"status"`
	Storage string `json:"storage"`
	// Clock is "synced", "set" or "unsure" (daemon/clock).
	Clock string `json:"clock"`
}

// Health answers 200 { status: ok, storage } while the database can
// be read, 503 otherwise.
func (a *API) Health(w http.ResponseWriter, r *http.Request) error {
	if err := a.cfg.Store.Ping(r.Context()); err != nil {
		a.log.WarnContext(r.Context(), "health check failed", "error", err)
		return web.ErrUnavailable
	}
	storage := "ok"
	if a.cfg.Storage.Check(r.Context()).Low {
		storage = "low"
	}
	return web.JSON(w, r, http.StatusOK, healthBody{Status: "ok", Storage: storage, Clock: string(a.cfg.Clock.State(r.Context()))})
}
