package daemon

import (
	"net/http"
	"sort"
	"time"

	"eventbox/store"
)

const (
	// deviceCookie marks a browser that completed a sign-in to an
	// account, so a guesser cannot lock it out (docs/decisions.md,
	// "Guessing and lock-out"). It is not a credential: it only moves the
	// browser's sign-in attempts from the address and username limits to
	// its own budget.
	deviceCookie = "gr_device"
	deviceAge    = 365 * 24 * time.Hour
	// deviceAccounts bounds how many accounts one browser is known for.
	deviceAccounts = 8
)

// deviceEntry is one account a browser signed in to: a random device id
// (the key of its own budget) and when it was last given.
type deviceEntry struct {
	Device string `json:"d"`
	At     int64  `json:"t"`
}

// devicePass is the decoded gr_device cookie, by account id.
type devicePass map[string]deviceEntry

func (s *Server) readDevicePass(r *http.Request) devicePass {
	pass := devicePass{}
	if c, err := r.Cookie(deviceCookie); err == nil {
		if !s.unsign(c.Value, &pass) {
			return devicePass{}
		}
	}
	return pass
}

// knownDevice returns the device id this browser holds for the account,
// or "" when it never signed in to it (or the mark is over a year old).
func (s *Server) knownDevice(r *http.Request, accountID string) string {
	if accountID == "" {
		return ""
	}
	e, ok := s.readDevicePass(r)[accountID]
	if !ok || !store.ValidID(e.Device) || s.now().Sub(time.UnixMilli(e.At)) > deviceAge {
		return ""
	}
	return e.Device
}

// rememberDevice marks this browser as one that signed in to the account,
// keeping its device id if it had one.
func (s *Server) rememberDevice(w http.ResponseWriter, r *http.Request, accountID string) error {
	pass := s.readDevicePass(r)
	e := pass[accountID]
	if !store.ValidID(e.Device) {
		e.Device = store.NewID()
	}
	e.At = s.now().UnixMilli()
	pass[accountID] = e
	if len(pass) > deviceAccounts {
		ids := make([]string, 0, len(pass))
		for id := range pass {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return pass[ids[i]].At < pass[ids[j]].At })
		for _, id := range ids[:len(ids)-deviceAccounts] {
			delete(pass, id)
		}
	}
	v, err := s.signed(pass)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: deviceCookie, Value: v, Path: "/api/admin/", MaxAge: int(deviceAge / time.Second),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode,
	})
	return nil
}

// signInGate applies the sign-in limits to one attempt on an account
// (accountID "" when the username is unknown). A browser that signed in
// to the account before counts against its own budget only; any other
// request against its address (10 a minute) and the username's failure
// budget, which holds only addresses that already failed. It returns the
// device id ("" for an unknown browser), to pass to signInFailed.
func (s *Server) signInGate(r *http.Request, accountID, username string) (string, error) {
	if dev := s.knownDevice(r, accountID); dev != "" {
		if ok, retry := s.guards.device.allow(dev); !ok {
			return dev, errRateLimited(retry)
		}
		return dev, nil
	}
	addr := clientIP(r)
	if ok, retry := s.limits.login.allow(addr); !ok {
		return "", errRateLimited(retry)
	}
	if ok, retry := s.guards.signIn.allow(username, addr); !ok {
		return "", errRateLimited(retry)
	}
	return "", nil
}

// signInFailed counts a wrong password or code against the username,
// unless it came from a known device (held by its own budget only).
func (s *Server) signInFailed(r *http.Request, device, username string) {
	if device == "" {
		s.guards.signIn.fail(username, clientIP(r))
	}
}
