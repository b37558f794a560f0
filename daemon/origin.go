package daemon

import "net/http"

// origin is the absolute origin for links the box hands out (invitation
// urls, QR codes, mails): BASE_URL when set, else the scheme and Host of
// the request itself, so that a link made on eventbox.local works on
// eventbox.local. It has no trailing slash.
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
