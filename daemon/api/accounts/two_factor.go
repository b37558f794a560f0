package accounts

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"
	qrcode "github.com/skip2/go-qrcode"

	"eventbox/daemon/clock"
	"eventbox/daemon/cookie"
	"eventbox/daemon/passwords"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Two-factor sign-in (docs/decisions.md, "Accounts, invitations and two-factor sign-in"): TOTP as
// authenticator apps know it (RFC 6238: SHA-1, 6 digits, 30-second steps),
// plus single-use recovery codes stored as hashes.
const (
	totpIssuer        = "eventbox"
	totpPeriod        = 30 // seconds
	totpSecretBytes   = 20
	totpQRSize        = 256 // pixels
	recoveryCodeCount = 10
	// pendingSignInLifetime is how long a sign-in that passed the password
	// waits for its code.
	pendingSignInLifetime = 10 * time.Minute
)

var totpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// totpStep is the number of the 30-second step t falls in.
func totpStep(t time.Time) int64 { return t.Unix() / totpPeriod }

// matchTOTP looks for code among the authenticator codes of the steps
// around now (one step either side, for phones whose clock drifts) that
// come after last, the step accepted before. It answers the matching step.
// Refusing steps up to last is what stops a code being used twice.
func matchTOTP(secret, code string, now time.Time, last int64) (int64, bool) {
	if secret == "" || len(code) != int(otp.DigitsSix) {
		return 0, false
	}
	cur := totpStep(now)
	for step := cur - 1; step <= cur+1; step++ {
		if step <= last || step < 0 {
			continue
		}
		want, err := hotp.GenerateCodeCustom(secret, uint64(step), totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, true
		}
	}
	return 0, false
}

// normalizeCode drops the spaces and dashes people type or paste with a
// code, and folds case (recovery codes are lower-case).
func normalizeCode(code string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '\t' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(code)))
}

// spendCode checks a second factor against a and records its use in a:
// an authenticator code of a step not used before (LastTOTPStep moves on)
// or, when recovery is allowed, an unspent recovery code (it is removed).
// It reports whether the code was good; a is only changed when it was.
func spendCode(a *store.Account, code string, now time.Time, recovery bool) bool {
	code = normalizeCode(code)
	if step, ok := matchTOTP(a.TOTPSecret, code, now, a.LastTOTPStep); ok {
		a.LastTOTPStep = step
		return true
	}
	if !recovery || code == "" {
		return false
	}
	h := store.HashToken(code)
	for i, stored := range a.RecoveryHashes {
		if subtle.ConstantTimeCompare([]byte(stored), []byte(h)) == 1 {
			a.RecoveryHashes = slices.Delete(slices.Clone(a.RecoveryHashes), i, i+1)
			return true
		}
	}
	return false
}

// newRecoveryCodes makes a fresh set of recovery codes, as shown to the
// user ("abcde-fghjk") and as stored (hashes of the code without its dash).
func newRecoveryCodes() (codes, hashes []string) {
	for range recoveryCodeCount {
		raw := (store.NewSlug() + store.NewSlug())[:10]
		codes = append(codes, raw[:5]+"-"+raw[5:])
		hashes = append(hashes, store.HashToken(raw))
	}
	return codes, hashes
}

// clearTwoFactor removes an account's second factor, pending or active.
func clearTwoFactor(a *store.Account) {
	a.TOTPSecret = ""
	a.TwoFactor = false
	a.RecoveryHashes = nil
	a.LastTOTPStep = 0
}

type twoFactorStatusBody struct {
	Enabled           bool `json:"enabled"`
	RecoveryCodesLeft int  `json:"recoveryCodesLeft"`
}

// TwoFactorStatus says whether the signed-in account has two-factor on
// and how many recovery codes it has left.
func (si *SignIn) TwoFactorStatus(w http.ResponseWriter, r *http.Request) error {
	a := visitor.Account(r)
	left := 0
	if a.TwoFactor {
		left = len(a.RecoveryHashes)
	}
	return web.JSON(w, r, http.StatusOK, twoFactorStatusBody{Enabled: a.TwoFactor, RecoveryCodesLeft: left})
}

type twoFactorRequest struct {
	Action string `json:"action"`
	Code   string `json:"code"`
}

// TwoFactor runs the enrolment steps: start (a new secret, pending
// until confirmed), confirm (with a code from the app: two-factor is on,
// recovery codes are shown once) and recovery (a new set of recovery codes,
// with a current code).
func (si *SignIn) TwoFactor(w http.ResponseWriter, r *http.Request) error {
	var req twoFactorRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch req.Action {
	case "start":
		return si.twoFactorStart(w, r)
	case "confirm", "recovery":
		if strings.TrimSpace(req.Code) == "" {
			return web.Field("code", "required")
		}
		if req.Action == "confirm" {
			return si.twoFactorConfirm(w, r, req.Code)
		}
		return si.twoFactorRecovery(w, r, req.Code)
	case "":
		return web.Field("action", "required")
	default:
		return web.Field("action", "must be start, confirm or recovery")
	}
}

type twoFactorStartBody struct {
	Secret string `json:"secret"`
	URI    string `json:"uri"`
	QR     string `json:"qr"`
}

func (si *SignIn) twoFactorStart(w http.ResponseWriter, r *http.Request) error {
	a := visitor.Account(r)
	key, err := totp.Generate(totp.GenerateOpts{
		Issuer: totpIssuer, AccountName: a.Username, Period: totpPeriod,
		SecretSize: totpSecretBytes, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1,
	})
	if err != nil {
		return fmt.Errorf("making a two-factor secret: %w", err)
	}
	png, err := qrcode.Encode(key.URL(), qrcode.Medium, totpQRSize)
	if err != nil {
		return fmt.Errorf("drawing the two-factor QR code: %w", err)
	}
	_, err = si.store.Accounts().Update(r.Context(), a.ID, func(a *store.Account) error {
		if a.TwoFactor {
			return web.Field("action", "two-factor is already on; turn it off first")
		}
		clearTwoFactor(a)
		a.TOTPSecret = key.Secret()
		return nil
	})
	if err != nil {
		return err
	}
	si.log.InfoContext(r.Context(), "two-factor enrolment started", "account", a.ID)
	return web.JSON(w, r, http.StatusOK, twoFactorStartBody{
		Secret: key.Secret(),
		URI:    key.URL(),
		QR:     "data:image/png;base64," + base64.StdEncoding.EncodeToString(png),
	})
}

type twoFactorConfirmBody struct {
	Enabled       bool     `json:"enabled"`
	RecoveryCodes []string `json:"recoveryCodes"`
}

func (si *SignIn) twoFactorConfirm(w http.ResponseWriter, r *http.Request, code string) error {
	codes, hashes := newRecoveryCodes()
	now := si.now()
	_, err := si.store.Accounts().Update(r.Context(), visitor.Account(r).ID, func(a *store.Account) error {
		switch {
		case a.TwoFactor:
			return web.Field("action", "two-factor is already on")
		case a.TOTPSecret == "":
			return web.Field("action", "start first")
		}
		step, ok := matchTOTP(a.TOTPSecret, normalizeCode(code), now, a.LastTOTPStep)
		if !ok {
			return web.Field("code", "is not the code the app shows")
		}
		a.TwoFactor = true
		a.LastTOTPStep = step
		a.RecoveryHashes = hashes
		return nil
	})
	if err != nil {
		return err
	}
	si.log.InfoContext(r.Context(), "two-factor enabled", "account", visitor.Account(r).ID)
	return web.JSON(w, r, http.StatusOK, twoFactorConfirmBody{Enabled: true, RecoveryCodes: codes})
}

type recoveryCodesBody struct {
	RecoveryCodes []string `json:"recoveryCodes"`
}

func (si *SignIn) twoFactorRecovery(w http.ResponseWriter, r *http.Request, code string) error {
	a := visitor.Account(r)
	if ok, retry := si.limits.Username.Allow(strings.ToLower(a.Username)); !ok {
		return web.RateLimited(retry)
	}
	codes, hashes := newRecoveryCodes()
	now := si.now()
	_, err := si.store.Accounts().Update(r.Context(), a.ID, func(a *store.Account) error {
		if !a.TwoFactor {
			return web.Field("action", "two-factor is off")
		}
		if !spendCode(a, code, now, true) {
			return web.Field("code", "is not a current or recovery code")
		}
		a.RecoveryHashes = hashes
		return nil
	})
	if err != nil {
		return err
	}
	si.log.InfoContext(r.Context(), "recovery codes replaced", "account", a.ID)
	return web.JSON(w, r, http.StatusOK, recoveryCodesBody{RecoveryCodes: codes})
}

type twoFactorOffRequest struct {
	Password string `json:"password"`
	Code     string `json:"code"`
}

type twoFactorOffBody struct {
	Enabled bool `json:"enabled"`
}

// TwoFactorOff removes the second factor with the password and a
// current or recovery code. A wrong password is a 400 naming the field,
// like a wrong code: the console stays signed in.
func (si *SignIn) TwoFactorOff(w http.ResponseWriter, r *http.Request) error {
	var req twoFactorOffRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	a := visitor.Account(r)
	if ok, retry := si.limits.Username.Allow(strings.ToLower(a.Username)); !ok {
		return web.RateLimited(retry)
	}
	if req.Password == "" {
		return web.Field("password", "required")
	}
	if !passwords.Check(a.PasswordHash, req.Password) {
		return web.Field("password", "is not right")
	}
	now := si.now()
	_, err := si.store.Accounts().Update(r.Context(), a.ID, func(a *store.Account) error {
		if a.TwoFactor {
			if strings.TrimSpace(req.Code) == "" {
				return web.Field("code", "required")
			}
			if !spendCode(a, req.Code, now, true) {
				return web.Field("code", "is not a current or recovery code")
			}
		}
		clearTwoFactor(a)
		return nil
	})
	if err != nil {
		return err
	}
	si.log.InfoContext(r.Context(), "two-factor disabled", "account", a.ID)
	return web.JSON(w, r, http.StatusOK, twoFactorOffBody{Enabled: false})
}

type loginCodeRequest struct {
	Code string `json:"code"`
}

// errWrongCode aborts the account update of a failed second factor.
var errWrongCode = errors.New("second factor does not match")

// LoginCode completes a sign-in that answered codeRequired: an
// authenticator code not used before, or a recovery code (then spent). On
// success the pending session is replaced by a new full one. A wrong code
// is 401 and the pending session stays for another try, within the rate
// limits and pendingSignInLifetime.
func (si *SignIn) LoginCode(w http.ResponseWriter, r *http.Request) error {
	var req loginCodeRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.Code) == "" {
		return web.Field("code", "required")
	}
	token, sess, err := si.visitors.Session(r, true)
	if err != nil {
		return err
	}
	if !sess.NeedsCode {
		return web.JSON(w, r, http.StatusOK, web.OK)
	}
	end := func() error {
		cookie.Clear(w, r, visitor.AdminCookie)
		if err := si.store.Sessions().Delete(r.Context(), token); err != nil {
			return err
		}
		return web.ErrUnauthorized
	}
	if si.now().Sub(time.UnixMilli(sess.CreatedAt)) > pendingSignInLifetime {
		return end()
	}
	acct, err := si.store.Accounts().Get(r.Context(), sess.AccountID)
	if errors.Is(err, store.ErrNotFound) {
		return end()
	}
	if err != nil {
		return err
	}
	key := strings.ToLower(acct.Username)
	device, err := si.signInGate(r, acct.ID, key)
	if err != nil {
		return err
	}
	if !acct.TwoFactor {
		// The second factor was reset meanwhile: sign in again.
		return end()
	}
	now := si.now()
	var told signInClock // a pair of codes tells the time while the clock is unsure
	_, err = si.store.Accounts().Update(r.Context(), acct.ID, func(a *store.Account) error {
		if !a.TwoFactor || !si.spendSignInCode(r.Context(), a, req.Code, now, &told) {
			return errWrongCode
		}
		a.LastLoginAt = now.UnixMilli()
		return nil
	})
	if errors.Is(err, errWrongCode) {
		si.log.InfoContext(r.Context(), "wrong second factor", "account", acct.ID)
		si.signInFailed(r, device, key)
		return web.ErrUnauthorized
	}
	if err != nil {
		return err
	}
	si.setClockFromSignIn(r.Context(), now, told)
	if err := si.store.Sessions().Delete(r.Context(), token); err != nil {
		return err
	}
	full, err := si.store.Sessions().Create(r.Context(), acct.ID, false)
	if err != nil {
		return err
	}
	si.visitors.SetSessionCookie(w, r, full)
	if err := si.rememberDevice(w, r, acct.ID); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// signInClock is what a sign-in's pair of authenticator codes told of the
// time.
type signInClock struct {
	offset time.Duration
	told   bool
}

// spendSignInCode is spendCode for the second sign-in step. Whatever the
// clock's state, one authenticator code of the box's own time (a step
// either side) signs in. While the clock is unsure and the code is not of
// the box's time, the box's time may be what is wrong: then it takes two
// consecutive codes matched within three days (clock.MatchTOTPPair),
// which also tell the time, or a recovery code.
func (si *SignIn) spendSignInCode(ctx context.Context, a *store.Account, code string, now time.Time, c *signInClock) bool {
	if si.clock == nil || si.clock.State(ctx) != clock.Unsure {
		return spendCode(a, code, now, true)
	}
	code = normalizeCode(code)
	if step, ok := matchTOTP(a.TOTPSecret, code, now, a.LastTOTPStep); ok {
		// The phone agrees with the box to within a minute; that is not
		// close enough to set the clock by, so it stays unsure.
		a.LastTOTPStep = step
		return true
	}
	if m, ok := clock.MatchTOTPPair(a.TOTPSecret, code, now, a.LastTOTPStep); ok {
		a.LastTOTPStep = m.Step
		*c = signInClock{offset: m.Offset, told: true}
		return true
	}
	if len(code) == int(otp.DigitsSix) {
		return false // one code of another time: the pair tells which
	}
	return spendCode(a, code, now, true)
}

// setClockFromSignIn sets the clock from what the sign-in's codes told.
// A failure is logged: the host is in, and the console can still set it.
func (si *SignIn) setClockFromSignIn(ctx context.Context, now time.Time, c signInClock) {
	if !c.told {
		return
	}
	if _, err := si.clock.Set(ctx, now.Add(c.offset)); err != nil {
		si.log.ErrorContext(ctx, "setting the clock from a sign-in's codes", "error", err)
	}
}
