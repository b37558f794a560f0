package setup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"eventbox/daemon/passwords"
	"eventbox/daemon/web"
	"eventbox/netsetup"
	"eventbox/store"
)

// DefaultWindow is how long after a start the setup page of an unset box
// takes a submission.
const DefaultWindow = 30 * time.Minute

// DoneFile is the mark, in DATA_DIR, that the box was set up: the
// service's root step brings the setup hotspot up only while it is
// missing.
const DoneFile = "setup-done"

// clockSlack is how far the box's clock may be from the phone's before
// the phone's time is taken.
const clockSlack = 2 * time.Minute

// The reasons the setup is closed, as GET /api/setup and the 403 answer's
// details name them.
const (
	// ReasonSet: the box was set up (on this page, by the settings file,
	// by a password of the host's, a hotspot of the host's, or an owner
	// who signed in).
	ReasonSet = "set"
	// ReasonExpired: the window after the start is over; a new start of
	// the still unset box opens it again.
	ReasonExpired = "expired"
	// ReasonOff: the box has no way to change its network (make run, a
	// box set up by hand): no setup page.
	ReasonOff = "off"
)

// Choice is what the host gave on the setup page, checked.
type Choice struct {
	// OwnerName and OwnerPassword are the owner's sign-in.
	OwnerName, OwnerPassword string
	// WiFiName is the guests' Wi-Fi; WiFiPassword its password, "" for
	// an open network.
	WiFiName, WiFiPassword string
	// Country is the Wi-Fi country (upper case); TimeZone an IANA name.
	Country, TimeZone string
}

// Network applies the host's Wi-Fi, country and time zone. It must not
// block for long: cmd/eventbox's writes them for the service's root step
// and asks for a restart; tests give a stand-in.
type Network interface {
	Apply(ctx context.Context, c Choice) error
}

// Config is what the setup routes need.
type Config struct {
	Store  *store.Store
	Logger *slog.Logger
	// Now is the clock (time.Now when nil); the window starts at New.
	Now func() time.Time
	// DataDir is where initial-password and DoneFile are.
	DataDir string
	// PasswordCost is the bcrypt cost of the owner's new hash.
	PasswordCost int
	// Window is how long after New the page takes a submission
	// (DefaultWindow when 0).
	Window time.Duration
	// HotspotWiFi tells the hotspot configured, as daemon.Config's; nil
	// or not ok: none.
	HotspotWiFi func(ctx context.Context) (ssid, password string, ok bool)
	// Network applies the host's network choices; nil: the box has no
	// setup page (ReasonOff).
	Network Network
	// SetClock sets the box's clock from the phone's time when the two
	// are more than two minutes apart; nil: the time is left as it is.
	SetClock func(ctx context.Context, t time.Time) error
}

// API answers GET and POST /api/setup.
type API struct {
	cfg   Config
	start time.Time

	// mu makes submissions one at a time; done is set once the box is
	// found set up, which it stays.
	mu   sync.Mutex
	done bool
}

// New returns the setup routes; the window starts now.
func New(cfg Config) *API {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	return &API{cfg: cfg, start: cfg.Now()}
}

// state says whether the page is open, or why not, and until when.
func (a *API) state(ctx context.Context) (reason string, closes time.Time, err error) {
	a.mu.Lock()
	done := a.done
	a.mu.Unlock()
	if done {
		return ReasonSet, time.Time{}, nil
	}
	if a.cfg.Network == nil {
		return ReasonOff, time.Time{}, nil
	}
	unset, err := a.unset(ctx)
	if err != nil {
		return "", time.Time{}, err
	}
	if !unset {
		a.markDone(ctx)
		return ReasonSet, time.Time{}, nil
	}
	closes = a.start.Add(a.cfg.Window)
	if !a.cfg.Now().Before(closes) {
		return ReasonExpired, time.Time{}, nil
	}
	return "", closes, nil
}

// unset reports whether nobody set the box up: no hotspot of the host's,
// and the one account the owner with a generated password who never
// signed in.
func (a *API) unset(ctx context.Context) (bool, error) {
	if a.cfg.HotspotWiFi != nil {
		if ssid, _, ok := a.cfg.HotspotWiFi(ctx); ok && !netsetup.IsSetupSSID(ssid) {
			return false, nil
		}
	}
	accts, err := a.cfg.Store.Accounts().List(ctx)
	if err != nil {
		return false, fmt.Errorf("listing accounts for the setup: %w", err)
	}
	return len(accts) == 1 && generatedOwner(accts[0]), nil
}

// generatedOwner is the first owner as EnsureFirstOwner generated it,
// before anyone signed in with it.
func generatedOwner(a store.Account) bool {
	return a.Role == store.RoleOwner && a.MustChangePassword && a.LastLoginAt == 0
}

// markDone remembers that the box is set up, here and for the root step
// (DoneFile).
func (a *API) markDone(ctx context.Context) {
	a.mu.Lock()
	a.done = true
	a.mu.Unlock()
	path := filepath.Join(a.cfg.DataDir, DoneFile)
	if _, err := os.Stat(path); err == nil {
		return
	}
	stamp := a.cfg.Now().UTC().Format(time.RFC3339) + "\n"
	if err := os.WriteFile(path, []byte(stamp), 0o640); err != nil {
		a.cfg.Logger.WarnContext(ctx, "marking the box set up", "file", path, "error", err)
	}
}

// Open reports whether the setup page takes a submission now: the
// captive portal sends every page to /setup while it does.
func (a *API) Open(ctx context.Context) bool {
	reason, _, err := a.state(ctx)
	if err != nil {
		a.cfg.Logger.WarnContext(ctx, "reading the setup state", "error", err)
	}
	return err == nil && reason == ""
}

// Run marks the box set up (DoneFile) as soon as it is, checking every
// minute, so that the next start brings no setup hotspot up. It returns
// when ctx ends.
func (a *API) Run(ctx context.Context) error {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		if _, _, err := a.state(ctx); err != nil && ctx.Err() == nil {
			a.cfg.Logger.WarnContext(ctx, "reading the setup state", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// stateBody is GET /api/setup's answer.
type stateBody struct {
	// State is "open" or "closed"; Reason says why closed.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// ClosesAt is when an open page stops taking a submission (epoch ms).
	ClosesAt int64 `json:"closesAt,omitempty"`
	// Now is the box's time (epoch ms), for the page to tell whether the
	// phone's differs.
	Now int64 `json:"now"`
	// Countries and TimeZones are the page's lists while it is open: the
	// ISO 3166 countries (code and English name; the page names them in
	// its language) and Go's time zone names (zones.go).
	Countries []countryDTO `json:"countries,omitempty"`
	TimeZones []string     `json:"timeZones,omitempty"`
}

// countryDTO is one country of the setup page's list.
type countryDTO struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// State is GET /api/setup: whether the page is open, why not, until when.
func (a *API) State(w http.ResponseWriter, r *http.Request) error {
	reason, closes, err := a.state(r.Context())
	if err != nil {
		return err
	}
	body := stateBody{State: "open", Now: a.cfg.Now().UnixMilli()}
	if reason != "" {
		body.State, body.Reason = "closed", reason
	} else {
		body.ClosesAt = closes.UnixMilli()
		body.TimeZones = timeZones[:]
		body.Countries = make([]countryDTO, len(countries))
		for i, c := range countries {
			body.Countries[i] = countryDTO{Code: c[0], Name: c[1]}
		}
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// submitRequest is POST /api/setup's body.
type submitRequest struct {
	OwnerName     string `json:"ownerName"`
	OwnerPassword string `json:"ownerPassword"`
	WiFiName      string `json:"wifiName"`
	// WiFiPassword is "" for an open network.
	WiFiPassword string `json:"wifiPassword"`
	Country      string `json:"country"`
	TimeZone     string `json:"timeZone"`
	// Time is the phone's clock (epoch ms); 0: not given.
	Time int64 `json:"time"`
}

// submitBody is POST /api/setup's answer.
type submitBody struct {
	OK bool `json:"ok"`
	// WiFiName is the network the phone joins next; Open is true when it
	// has no password.
	WiFiName string `json:"wifiName"`
	Open     bool   `json:"open"`
	// ClockSet is true when the box took the phone's time.
	ClockSet bool `json:"clockSet"`
}

// closed is the 403 answer of a submission the box no longer takes.
func closed(reason string) error {
	return &web.Error{Status: http.StatusForbidden, Code: "forbidden", Details: map[string]string{"setup": reason}}
}

// Submit is POST /api/setup: the first visitor's choices set the box up,
// and every later one is refused (403 forbidden, details.setup).
func (a *API) Submit(w http.ResponseWriter, r *http.Request) error {
	var req submitRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	ctx := r.Context()
	reason, _, err := a.state(ctx)
	if err != nil {
		return err
	}
	if reason != "" {
		return closed(reason)
	}
	c, details := check(req)
	var phone time.Time
	if req.Time != 0 {
		phone = time.UnixMilli(req.Time)
		if phone.Year() < 2024 || phone.Year() > 2200 {
			details["time"] = "not a plausible date"
		}
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	hash, err := passwords.Hash(c.OwnerPassword, a.cfg.PasswordCost)
	if err != nil {
		return err
	}
	// One at a time: the account's change checks, in its transaction,
	// that the box is still unset, so a second visitor is refused even
	// if it came in between.
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return closed(ReasonSet)
	}
	if err := a.takeOwner(ctx, c.OwnerName, hash); err != nil {
		return err
	}
	a.done = true
	if err := os.Remove(filepath.Join(a.cfg.DataDir, "initial-password")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.cfg.Logger.WarnContext(ctx, "removing the generated password", "error", err)
	}
	body := submitBody{OK: true, WiFiName: c.WiFiName, Open: c.WiFiPassword == ""}
	if !phone.IsZero() && a.cfg.SetClock != nil && absDuration(phone.Sub(a.cfg.Now())) > clockSlack {
		if err := a.cfg.SetClock(ctx, phone); err != nil {
			a.cfg.Logger.WarnContext(ctx, "setting the clock from the setup page", "error", err)
		} else {
			body.ClockSet = true
			a.cfg.Logger.InfoContext(ctx, "clock set from the setup page", "time", phone.UTC().Format(time.RFC3339))
		}
	}
	if err := a.cfg.Network.Apply(ctx, c); err != nil {
		return fmt.Errorf("applying the setup page's network: %w", err)
	}
	stamp := a.cfg.Now().UTC().Format(time.RFC3339) + "\n"
	if err := os.WriteFile(filepath.Join(a.cfg.DataDir, DoneFile), []byte(stamp), 0o640); err != nil {
		a.cfg.Logger.WarnContext(ctx, "marking the box set up", "error", err)
	}
	a.cfg.Logger.InfoContext(ctx, "box set up from the setup page", "username", c.OwnerName, "wifi", c.WiFiName,
		"open", body.Open, "country", c.Country, "time_zone", c.TimeZone, "clock_set", body.ClockSet)
	return web.JSON(w, r, http.StatusOK, body)
}

// takeOwner renames the generated owner and gives it the host's password,
// if the box is still unset when its transaction runs.
func (a *API) takeOwner(ctx context.Context, name, hash string) error {
	accts, err := a.cfg.Store.Accounts().List(ctx)
	if err != nil {
		return fmt.Errorf("listing accounts for the setup: %w", err)
	}
	if len(accts) != 1 {
		return closed(ReasonSet)
	}
	errTaken := errors.New("set up meanwhile")
	_, err = a.cfg.Store.Accounts().Update(ctx, accts[0].ID, func(acct *store.Account) error {
		if !generatedOwner(*acct) {
			return errTaken
		}
		acct.Username, acct.PasswordHash, acct.MustChangePassword = name, hash, false
		return nil
	})
	if errors.Is(err, errTaken) || errors.Is(err, store.ErrNotFound) {
		return closed(ReasonSet)
	}
	if err != nil {
		return fmt.Errorf("setting up the owner: %w", err)
	}
	return nil
}

// check validates a submission into a Choice, with a message per field
// refused.
func check(req submitRequest) (Choice, map[string]string) {
	c := Choice{OwnerName: strings.TrimSpace(req.OwnerName), OwnerPassword: req.OwnerPassword,
		WiFiName: req.WiFiName, WiFiPassword: req.WiFiPassword,
		Country: strings.ToUpper(strings.TrimSpace(req.Country)), TimeZone: strings.TrimSpace(req.TimeZone)}
	details := map[string]string{}
	switch {
	case c.OwnerName == "" || utf8.RuneCountInString(c.OwnerName) > 60:
		details["ownerName"] = "1 to 60 characters"
	case strings.ContainsFunc(c.OwnerName, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		details["ownerName"] = "no control characters"
	}
	if msg := netsetup.OwnerPasswordProblem(c.OwnerPassword); msg != "" {
		details["ownerPassword"] = msg
	}
	if _, err := netsetup.PlanHotspot(netsetup.HotspotOptions{SSID: c.WiFiName}, netsetup.Facts{}); err != nil {
		details["wifiName"] = "1 to 32 bytes, no control characters"
	} else if netsetup.IsSetupSSID(c.WiFiName) {
		details["wifiName"] = "the setup network's name: choose another"
	}
	if c.WiFiPassword != "" {
		if _, err := netsetup.PlanHotspot(netsetup.HotspotOptions{SSID: "x", Password: c.WiFiPassword}, netsetup.Facts{}); err != nil {
			details["wifiPassword"] = "8 to 63 characters, or empty for an open network"
		}
	}
	if _, err := netsetup.PlanCountry(c.Country, netsetup.Facts{}); err != nil {
		details["country"] = "a two-letter country code such as FR"
	}
	if msg := netsetup.TimeZoneProblem(c.TimeZone); msg != "" {
		details["timeZone"] = msg
	}
	return c, details
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
