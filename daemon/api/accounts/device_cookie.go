package accounts

import (
	"net/http"
	"time"

	"eventbox/daemon/cookie"
	"eventbox/daemon/web"
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

// deviceKind is gr_device, sent to the console's API only.
var deviceKind = cookie.Kind{Name: deviceCookie, Path: "/api/admin/", Age: deviceAge}

// deviceEntry is one account a browser signed in to: a random device id
// (the key of its own budget) and when it was last given.
type deviceEntry struct {
	Device string `json:"d"`
	At     int64  `json:"t"`
}

// devicePass is the decoded gr_device cookie, by account id.
type devicePass map[string]deviceEntry

func (si *SignIn) readDevicePass(r *http.Request) devicePass {
	pass := devicePass{}
	if !si.cookies.Read(r, deviceKind, &pass) {
		return devicePass{}
	}
	return pass
}

// knownDevice returns the device id this browser holds for the account,
// or "" when it never signed in to it (or the mark is over a year old).
func (si *SignIn) knownDevice(r *http.Request, accountID string) string {
	if accountID == "" {
		return ""
	}
	e, ok := si.readDevicePass(r)[accountID]
	if !ok || !store.ValidID(e.Device) || si.now().Sub(time.UnixMilli(e.At)) > deviceAge {
		return ""
	}
	return e.Device
}

// rememberDevice marks this browser as one that signed in to the account,
// keeping its device id if it had one.
func (si *SignIn) rememberDevice(w http.ResponseWriter, r *http.Request, accountID string) error {
	pass := si.readDevicePass(r)
	e := pass[accountID]
	if !store.ValidID(e.Device) {
		e.Device = store.NewID()
	}
	e.At = si.now().UnixMilli()
	pass[accountID] = e
	cookie.Trim(pass, deviceAccounts, func(e deviceEntry) int64 { return e.At })
	return si.cookies.Write(w, r, deviceKind, pass)
}

// signInGate applies the sign-in limits to one attempt on an account
// (accountID "" when the username is unknown). A browser that signed in
// to the account before counts against its own budget only; any other
// request against its address (10 a minute) and the username's failure
// budget, which holds only addresses that already failed. It returns the
// device id ("" for an unknown browser), to pass to signInFailed.
func (si *SignIn) signInGate(r *http.Request, accountID, username string) (string, error) {
	if dev := si.knownDevice(r, accountID); dev != "" {
		if ok, retry := si.limits.Device.Allow(dev); !ok {
			return dev, web.RateLimited(retry)
		}
		return dev, nil
	}
	addr := web.ClientIP(r)
	if ok, retry := si.limits.Address.Allow(addr); !ok {
		return "", web.RateLimited(retry)
	}
	if ok, retry := si.limits.Guesses.Allow(username, addr); !ok {
		return "", web.RateLimited(retry)
	}
	return "", nil
}

// signInFailed counts a wrong password or code against the username,
// unless it came from a known device (held by its own budget only).
func (si *SignIn) signInFailed(r *http.Request, device, username string) {
	if device == "" {
		si.limits.Guesses.Fail(username, web.ClientIP(r))
	}
}
