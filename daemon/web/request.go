package web

import (
	"net/http"
	"net/netip"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// HandlerFunc is an API handler: it writes its success answer itself and
// returns an error for anything else, which the adapter turns into the
// { error, details } answer.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Param returns a path parameter of the route.
func Param(r *http.Request, name string) string {
	return httprouter.ParamsFromContext(r.Context()).ByName(name)
}

// MaxTokenLen bounds the :token of a link's path (gallery links, wall
// links, invitations): the box's own tokens are 43 characters, and an
// absurd one is refused before it is hashed.
const MaxTokenLen = 128

// Token is the route's :token parameter, or ErrNotFound, as for an unknown
// link, when it is empty or longer than MaxTokenLen.
func Token(r *http.Request) (string, error) {
	t := Param(r, "token")
	if t == "" || len(t) > MaxTokenLen {
		return "", ErrNotFound
	}
	return t, nil
}

// ClientIP is the address of the request's peer: RemoteAddr only, as
// X-Forwarded-For is the client's to invent.
func ClientIP(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

// ClientAddr is ClientIP parsed, unmapped (an IPv4-mapped IPv6 address as
// its IPv4 one) and without zone; ok is false when it is not an address.
func ClientAddr(r *http.Request) (addr netip.Addr, ok bool) {
	a, err := netip.ParseAddr(ClientIP(r))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// LogPath is the request path as logs may show it, with the credential
// of a link replaced by "…". One rule covers every route and page with a
// secret in its path: the segment after g, invite or wall, the first
// segment after an optional api and admin, is a token (routes.go's
// /api/g/:token…, /api/admin/invite/:token, /api/wall/:token…, and the
// pages /g/, /invite/ and /wall/). TestLogsRedactEveryTokenRoute walks
// routes.go's :token routes.
func LogPath(r *http.Request) string {
	segs := strings.Split(r.URL.Path, "/")
	for i, seg := range segs {
		switch seg {
		case "", "api", "admin":
			continue
		case "g", "invite", "wall":
			if i+1 < len(segs) && segs[i+1] != "" {
				segs[i+1] = "…"
				return strings.Join(segs, "/")
			}
		}
		break
	}
	return r.URL.Path
}
