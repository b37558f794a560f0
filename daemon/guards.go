package daemon

import (
	"net/http"
	"time"

	"eventbox/daemon/web"
	"eventbox/store"
)

// guards are the limits against guessing and against minting guests
// (docs/decisions.md, "Guessing and lock-out"); the per-route limits
// (docs/design.md, "Rate limits") stay in limiters.
type guards struct {
	signIn    *web.GuessGuard  // wrong passwords and second factors, per username
	device    *web.RateLimiter // sign-in attempts of a known device, per device
	eventCode *web.GuessGuard  // wrong access codes, per event
	linkPass  *web.GuessGuard  // wrong gallery link passwords, per link
	join      *web.RateLimiter // joins, per address
	upload    *web.RateLimiter // uploads and guestbook posts, per address
}

// newGuards sets the figures of docs/decisions.md, "Guessing and lock-out".
func newGuards(now func() time.Time) guards {
	return guards{
		signIn:    web.NewGuessGuard(10, time.Minute, now),
		device:    web.NewRateLimiter(10, time.Minute, now),
		eventCode: web.NewGuessGuard(20, time.Minute, now),
		linkPass:  web.NewGuessGuard(10, time.Minute, now),
		join:      web.NewRateLimiter(60, time.Minute, now),
		upload:    web.NewRateLimiter(240, time.Minute, now),
	}
}

// allowUpload applies the upload limits: 120 a minute per guest
// (docs/design.md, "Rate limits") and 240 a minute per address, so that re-joining for fresh
// guest ids gains a phone at most one more guest's worth
// (docs/decisions.md, "Guessing and lock-out").
func (s *Server) allowUpload(r *http.Request, g store.Guest) error {
	if ok, retry := s.limits.upload.Allow(g.ID); !ok {
		return web.RateLimited(retry)
	}
	if ok, retry := s.guards.upload.Allow(web.ClientIP(r)); !ok {
		return web.RateLimited(retry)
	}
	return nil
}
