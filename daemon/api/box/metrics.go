package box

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"eventbox/daemon/web"
)

// Metrics serves the metrics to a scraper that sends the METRICS_TOKEN as
// a bearer token; anyone else, or everyone when no token is set, gets 404
// as if the route did not exist. The token is compared in constant time
// (both sides hashed first, so its length does not show either).
func (a *API) Metrics(w http.ResponseWriter, r *http.Request) error {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if a.cfg.MetricsToken == "" || !ok || token == "" {
		return web.ErrNotFound
	}
	got, want := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(a.cfg.MetricsToken))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return web.ErrNotFound
	}
	a.cfg.Metrics.ServeHTTP(w, r)
	return nil
}
