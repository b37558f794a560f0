package daemon

import "net/http"

type healthBody struct {
	Status string `json:"status"`
}

// handleHealth answers 200 { status: ok } while the database can be read,
// 503 otherwise.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	if err := s.store.Ping(r.Context()); err != nil {
		s.log.WarnContext(r.Context(), "health check failed", "error", err)
		return errUnavailable
	}
	return writeJSON(w, r, http.StatusOK, healthBody{Status: "ok"})
}
