package daemon

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
	// Clock is "synced", "set" or "unsure" (clock_routes.go).
	Clock string `json:"clock"`
}

// handleHealth answers 200 { status: ok, storage } while the database can
// be read, 503 otherwise.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	if err := s.store.Ping(r.Context()); err != nil {
		s.log.WarnContext(r.Context(), "health check failed", "error", err)
		return web.ErrUnavailable
	}
	storage := "ok"
	if s.storage.check(r.Context()).Low {
		storage = "low"
	}
	return web.JSON(w, r, http.StatusOK, healthBody{Status: "ok", Storage: storage, Clock: string(s.clock.State(r.Context()))})
}
