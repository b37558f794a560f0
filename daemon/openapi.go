package daemon

import (
	"net/http"
	"slices"
	"strconv"

	"eventbox/api"
)

// Route is one registered route: its method and its pattern as routes.go
// writes it (":name" for a path parameter).
type Route struct {
	Method string
	Path   string
}

// Routes lists every route of the router, in routes.go's order.
func (s *Server) Routes() []Route { return slices.Clone(s.routeTable) }

// handleOpenAPI answers the reference of the HTTP interface
// (api/openapi.yaml), as embedded in the binary.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	doc := api.OpenAPI()
	h := w.Header()
	h.Set("Content-Type", "application/yaml; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(doc)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(doc)
	return err
}
