// Package accounts is the console's accounts and sign-in: the first
// owner, signing in and out (with the sign-in limits and the gr_device
// mark of a browser that signed in before), the second factor, the
// signed-in account's own profile and password, and the accounts and
// invitations owners manage (docs/decisions.md, "Accounts, invitations
// and two-factor sign-in").
//
// Its routes are methods of two types: SignIn (/api/admin/login,
// /api/admin/login/code, /api/admin/logout, /api/admin/me,
// /api/admin/me/two-factor, /api/admin/password) and API
// (/api/admin/accounts, /api/admin/invitations, /api/admin/invite/:token).
// The limits themselves, the cookie codec, the mailer and the box's
// origin stay the daemon's and come in through Config.
package accounts

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"eventbox/daemon/clock"
	"eventbox/daemon/cookie"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Config is what the accounts area needs from the daemon. Every field
// is required unless it says otherwise.
type Config struct {
	Store *store.Store
	// Visitors reads and sets the console session.
	Visitors *visitor.Resolver
	// Cookies signs the gr_device cookie.
	Cookies *cookie.Codec
	Logger  *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	// DataDir is where the first owner's generated password is written
	// (initial-password).
	DataDir string
	// AdminUsername is the first owner's username, and the one a sign-in
	// without a username tries.
	AdminUsername string
	// AdminPassword is the first owner's password; "" has one generated.
	AdminPassword string
	// PasswordCost is the bcrypt cost of new hashes (0: the default).
	PasswordCost int
	// DummyHash is checked against when a username does not exist, so
	// that a wrong username costs the same time as a wrong password.
	DummyHash string
	// Limits are the sign-in limits, kept by the daemon.
	Limits Limits

	// Origin is the box's address as the request reached it (or its
	// configured base URL), for invitation links.
	Origin func(r *http.Request) string
	// MailDomain is the domain of the box's Message-IDs (the mailer's).
	MailDomain func(ctx context.Context) string
	// MailQueued nudges the mail job kind after an invitation's mail was
	// queued.
	MailQueued func()
	// Clock is the box's clock: while it is unsure, the second step of
	// sign-in takes a pair of authenticator codes, which also set it
	// (docs/decisions/trust.md, "A clock the box can trust"). Nil: the
	// clock is trusted.
	Clock *clock.Service
}

// Limits are the sign-in limits (docs/decisions.md, "Guessing and
// lock-out").
type Limits struct {
	// Address bounds the sign-in attempts of an unknown browser, per
	// address.
	Address *web.RateLimiter
	// Username bounds second-factor changes (new recovery codes,
	// turning it off), per username.
	Username *web.RateLimiter
	// Guesses is the failure budget of wrong passwords and codes, per
	// username.
	Guesses *web.GuessGuard
	// Device bounds the sign-in attempts of a browser that signed in to
	// the account before, per device.
	Device *web.RateLimiter
}

// SignIn is the signed-in side of the console: signing in and out, the
// second factor, and the account's own profile and password.
type SignIn struct {
	store         *store.Store
	visitors      *visitor.Resolver
	cookies       *cookie.Codec
	log           *slog.Logger
	now           func() time.Time
	dataDir       string
	adminUsername string
	adminPassword string
	cost          int
	dummyHash     string
	limits        Limits
	clock         *clock.Service
}

// NewSignIn builds the sign-in routes over cfg.
func NewSignIn(cfg Config) *SignIn {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &SignIn{store: cfg.Store, visitors: cfg.Visitors, cookies: cfg.Cookies, log: cfg.Logger, now: cfg.Now,
		dataDir: cfg.DataDir, adminUsername: cfg.AdminUsername, adminPassword: cfg.AdminPassword,
		cost: cfg.PasswordCost, dummyHash: cfg.DummyHash, limits: cfg.Limits, clock: cfg.Clock}
}

// API is the owners' side: accounts, invitations, and the invitee's
// acceptance of one.
type API struct {
	store      *store.Store
	visitors   *visitor.Resolver
	log        *slog.Logger
	now        func() time.Time
	cost       int
	origin     func(r *http.Request) string
	mailDomain func(ctx context.Context) string
	mailQueued func()
}

// NewAPI builds the accounts and invitations routes over cfg.
func NewAPI(cfg Config) *API {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &API{store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger, now: cfg.Now, cost: cfg.PasswordCost,
		origin: cfg.Origin, mailDomain: cfg.MailDomain, mailQueued: cfg.MailQueued}
}
