package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"eventbox/daemon/access"
	"eventbox/store"
)

const (
	adminCookie     = "gr_admin"
	sessionLifetime = 7 * 24 * time.Hour
	// sessionTouchEvery limits how often a session's last use is written:
	// a commit per console request would wear an SD card for nothing.
	sessionTouchEvery = time.Minute
)

// initialPasswordFile is written in DATA_DIR when the first owner's
// password was generated.
const initialPasswordFile = "initial-password"

// passwordProblem says what is wrong with a new password, or "".
func passwordProblem(p string) string {
	switch {
	case utf8.RuneCountInString(p) < 10:
		return "must be at least 10 characters"
	case len(p) > 72:
		return "must be at most 72 bytes"
	}
	return ""
}

func (s *Server) hashPassword(p string) (string, error) {
	cost := s.cfg.PasswordCost
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	h, err := bcrypt.GenerateFromPassword([]byte(p), cost)
	if err != nil {
		return "", fmt.Errorf("hashing password: %w", err)
	}
	return string(h), nil
}

func checkPassword(hash, p string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(p)) == nil
}

// generatePassword makes a password that is easy to type from a screen:
// four groups of five unambiguous characters.
func generatePassword() string {
	s := store.NewSlug() + store.NewSlug() + store.NewSlug() + store.NewSlug()
	return s[0:5] + "-" + s[5:10] + "-" + s[10:15] + "-" + s[15:20]
}

// ensureFirstOwner creates the first owner on a database without accounts:
// ADMIN_USERNAME with ADMIN_PASSWORD, or a generated password that is
// logged once and written to DATA_DIR/initial-password (mode 0600).
func (s *Server) ensureFirstOwner(ctx context.Context) error {
	n, err := s.store.CountAccounts(ctx)
	if err != nil {
		return fmt.Errorf("counting accounts: %w", err)
	}
	if n > 0 {
		return nil
	}
	password, generated := s.cfg.AdminPassword, false
	if password == "" {
		password, generated = generatePassword(), true
	}
	hash, err := s.hashPassword(password)
	if err != nil {
		return err
	}
	a := store.Account{Username: s.cfg.AdminUsername, Role: store.RoleOwner, EventIDs: []string{}, PasswordHash: hash,
		MustChangePassword: generated}
	if generated {
		path := filepath.Join(s.cfg.DataDir, initialPasswordFile)
		if err := os.WriteFile(path, []byte(password+"\n"), 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := s.store.CreateAccount(ctx, &a); err != nil {
		return fmt.Errorf("creating first owner: %w", err)
	}
	if generated {
		// The one secret ever logged: the host needs it to sign in.
		s.log.InfoContext(ctx, "first owner created with a generated password",
			"username", a.Username, "password", password,
			"file", filepath.Join(s.cfg.DataDir, initialPasswordFile))
	} else {
		s.log.InfoContext(ctx, "first owner created", "username", a.Username)
	}
	return nil
}

func (s *Server) setSessionCookie(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{
		Name: adminCookie, Value: token, Path: "/",
		MaxAge: int(sessionLifetime / time.Second), HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteLaxMode,
	})
}

func clearCookie(w http.ResponseWriter, r *http.Request, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
}

// session resolves the admin cookie to a live session. allowPending admits
// a session that still owes its second factor.
func (s *Server) session(r *http.Request, allowPending bool) (string, store.Session, error) {
	c, err := r.Cookie(adminCookie)
	if err != nil || c.Value == "" {
		return "", store.Session{}, errUnauthorized
	}
	sess, err := s.store.Session(r.Context(), c.Value)
	if errors.Is(err, store.ErrNotFound) {
		return "", store.Session{}, errUnauthorized
	}
	if err != nil {
		return "", store.Session{}, err
	}
	now := s.now()
	if now.Sub(time.UnixMilli(sess.LastUsedAt)) > sessionLifetime {
		_ = s.store.DeleteSession(r.Context(), c.Value)
		return "", store.Session{}, errUnauthorized
	}
	if sess.NeedsCode && !allowPending {
		return "", store.Session{}, errUnauthorized
	}
	return c.Value, sess, nil
}

// admin admits signed-in console users and puts their account in the
// request context; anyone else gets 401 unauthorized.
func (s *Server) admin(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		token, sess, err := s.session(r, false)
		if err != nil {
			return err
		}
		acct, err := s.store.Account(r.Context(), sess.AccountID)
		if errors.Is(err, store.ErrNotFound) {
			return errUnauthorized
		}
		if err != nil {
			return err
		}
		if now := s.now(); now.Sub(time.UnixMilli(sess.LastUsedAt)) > sessionTouchEvery {
			err := s.store.UpdateSession(r.Context(), token, func(ss *store.Session) { ss.LastUsedAt = now.UnixMilli() })
			if err != nil {
				return err
			}
			s.setSessionCookie(w, r, token)
		}
		r = withValue(r, ctxAccount, acct)
		r = withValue(r, ctxSessionToken, token)
		return h(w, r)
	}
}

// owner admits owners only: organizers get 403 forbidden.
func (s *Server) owner(h handlerFunc) handlerFunc {
	return s.admin(func(w http.ResponseWriter, r *http.Request) error {
		if !access.OwnerActions(scope(r)) {
			return errForbidden
		}
		return h(w, r)
	})
}

// account is the signed-in account of a request that passed admin.
func account(r *http.Request) store.Account {
	a, _ := r.Context().Value(ctxAccount).(store.Account)
	return a
}

func sessionToken(r *http.Request) string {
	t, _ := r.Context().Value(ctxSessionToken).(string)
	return t
}

// adminEvent loads the event named by the :id parameter if the signed-in
// account may reach it. Events outside an organizer's scope answer 404,
// exactly like events that do not exist.
func (s *Server) adminEvent(r *http.Request) (store.Event, error) {
	id := param(r, "id")
	if !store.ValidID(id) || !access.Reaches(scope(r), id) {
		return store.Event{}, errNotFound
	}
	return s.store.Event(r.Context(), id)
}

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type codeRequiredBody struct {
	CodeRequired bool `json:"codeRequired"`
}

func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var req loginRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.Password == "" {
		return errField("password", "required")
	}
	username := strings.TrimSpace(req.Username)
	if username == "" {
		username = s.cfg.AdminUsername
	}
	key := strings.ToLower(username)
	acct, err := s.store.AccountByUsername(r.Context(), username)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	device, err := s.signInGate(r, acct.ID, key)
	if err != nil {
		return err
	}
	if acct.ID == "" {
		checkPassword(s.dummyHash, req.Password)
		s.signInFailed(r, device, key)
		return errUnauthorized
	}
	if !checkPassword(acct.PasswordHash, req.Password) {
		s.signInFailed(r, device, key)
		return errUnauthorized
	}
	token, err := s.store.CreateSession(r.Context(), acct.ID, acct.TwoFactor)
	if err != nil {
		return err
	}
	s.setSessionCookie(w, r, token)
	if acct.TwoFactor {
		return writeJSON(w, r, http.StatusOK, codeRequiredBody{CodeRequired: true})
	}
	if _, err := s.store.UpdateAccount(r.Context(), acct.ID, func(a *store.Account) error {
		a.LastLoginAt = s.now().UnixMilli()
		return nil
	}); err != nil {
		return err
	}
	if err := s.rememberDevice(w, r, acct.ID); err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, okTrue)
}

func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if err := s.store.DeleteSession(r.Context(), sessionToken(r)); err != nil {
		return err
	}
	clearCookie(w, r, adminCookie)
	return writeJSON(w, r, http.StatusOK, okTrue)
}

type accountBody struct {
	Account accountDTO `json:"account"`
}

func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, r, http.StatusOK, accountBody{Account: toAccountDTO(account(r))})
}

type meRequest struct {
	Name  Optional[string] `json:"name"`
	Email Optional[string] `json:"email"`
}

func (s *Server) handleUpdateMe(w http.ResponseWriter, r *http.Request) error {
	var req meRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	details := map[string]string{}
	name := strings.TrimSpace(req.Name.Value)
	if req.Name.Set && utf8.RuneCountInString(name) > 100 {
		details["name"] = "must be at most 100 characters"
	} else if msg := lineProblem(name); req.Name.Set && msg != "" {
		details["name"] = msg
	}
	email := strings.TrimSpace(req.Email.Value)
	if req.Email.Set && email != "" && !validEmail(email) {
		details["email"] = "must be an email address"
	}
	if len(details) > 0 {
		return errBadRequest(details)
	}
	acct, err := s.store.UpdateAccount(r.Context(), account(r).ID, func(a *store.Account) error {
		if req.Name.Set {
			a.Name = name
		}
		if req.Email.Set {
			a.Email = email
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, accountBody{Account: toAccountDTO(acct)})
}

type passwordRequest struct {
	Current string `json:"current"`
	Next    string `json:"next"`
}

// handlePassword changes the signed-in account's password and ends its
// other sessions; this browser stays signed in.
func (s *Server) handlePassword(w http.ResponseWriter, r *http.Request) error {
	var req passwordRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.Current == "" {
		return errField("current", "required")
	}
	if msg := passwordProblem(req.Next); msg != "" {
		return errField("next", msg)
	}
	acct := account(r)
	if !checkPassword(acct.PasswordHash, req.Current) {
		return errUnauthorized
	}
	hash, err := s.hashPassword(req.Next)
	if err != nil {
		return err
	}
	if _, err := s.store.UpdateAccount(r.Context(), acct.ID, func(a *store.Account) error {
		a.PasswordHash = hash
		a.MustChangePassword = false
		return nil
	}); err != nil {
		return err
	}
	if err := s.store.DeleteAccountSessions(r.Context(), acct.ID, sessionToken(r)); err != nil {
		return err
	}
	if acct.MustChangePassword {
		// The generated password is no longer anyone's: its copy goes.
		path := filepath.Join(s.cfg.DataDir, initialPasswordFile)
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.WarnContext(r.Context(), "removing the initial password file", "file", path, "error", err)
		}
	}
	return writeJSON(w, r, http.StatusOK, okTrue)
}

// validEmail accepts a plain address (no display name), at most 254
// characters, with a dot in the domain.
func validEmail(s string) bool {
	if len(s) > 254 || strings.ContainsAny(s, " <>\"") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".")
}

// ResetPassword gives the named account a new generated password, ends
// all its sessions and returns the password. cost is the bcrypt cost (0:
// default). It serves the reset-password command of the box.
func ResetPassword(ctx context.Context, st *store.Store, username string, cost int) (string, error) {
	acct, err := st.AccountByUsername(ctx, username)
	if err != nil {
		return "", err
	}
	password := generatePassword()
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return "", fmt.Errorf("hashing password: %w", err)
	}
	if _, err := st.UpdateAccount(ctx, acct.ID, func(a *store.Account) error {
		a.PasswordHash = string(hash)
		return nil
	}); err != nil {
		return "", err
	}
	if err := st.DeleteAccountSessions(ctx, acct.ID, ""); err != nil {
		return "", err
	}
	return password, nil
}
