package daemon

import "net/http"

// origin is the absolute origin of links that leave the page they are made
// on (QR codes, the booth link, gallery links): BASE_URL when it is set,
// else the request's own scheme (from TLS) and Host.
func (s *Server) origin(r *http.Request) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
