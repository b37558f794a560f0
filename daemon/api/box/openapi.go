package box

import (
	"net/http"
	"strconv"

	"eventbox/api"
)

// OpenAPI answers the reference of the HTTP interface (api/openapi.yaml),
// as embedded in the binary.
func (a *API) OpenAPI(w http.ResponseWriter, r *http.Request) error {
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
