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
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"eventbox/daemon/cookie"
	"eventbox/daemon/dto"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
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

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type codeRequiredBody struct {
	CodeRequired bool `json:"codeRequired"`
}

func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var req loginRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Password == "" {
		return web.Field("password", "required")
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
		return web.ErrUnauthorized
	}
	if !checkPassword(acct.PasswordHash, req.Password) {
		s.signInFailed(r, device, key)
		return web.ErrUnauthorized
	}
	token, err := s.store.CreateSession(r.Context(), acct.ID, acct.TwoFactor)
	if err != nil {
		return err
	}
	s.visitors.SetSessionCookie(w, r, token)
	if acct.TwoFactor {
		return web.JSON(w, r, http.StatusOK, codeRequiredBody{CodeRequired: true})
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
	return web.JSON(w, r, http.StatusOK, web.OK)
}

func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if err := s.store.DeleteSession(r.Context(), visitor.SessionToken(r)); err != nil {
		return err
	}
	cookie.Clear(w, r, visitor.AdminCookie)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

type accountBody struct {
	Account dto.Account `json:"account"`
}

func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) error {
	return web.JSON(w, r, http.StatusOK, accountBody{Account: dto.AccountOf(visitor.Account(r))})
}

type meRequest struct {
	Name  web.Optional[string] `json:"name"`
	Email web.Optional[string] `json:"email"`
}

func (s *Server) handleUpdateMe(w http.ResponseWriter, r *http.Request) error {
	var req meRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	details := map[string]string{}
	name := strings.TrimSpace(req.Name.Value)
	if req.Name.Set && utf8.RuneCountInString(name) > 100 {
		details["name"] = "must be at most 100 characters"
	} else if msg := web.LineProblem(name); req.Name.Set && msg != "" {
		details["name"] = msg
	}
	email := strings.TrimSpace(req.Email.Value)
	if req.Email.Set && email != "" && !validEmail(email) {
		details["email"] = "must be an email address"
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	acct, err := s.store.UpdateAccount(r.Context(), visitor.Account(r).ID, func(a *store.Account) error {
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
	return web.JSON(w, r, http.StatusOK, accountBody{Account: dto.AccountOf(acct)})
}

type passwordRequest struct {
	Current string `json:"current"`
	Next    string `json:"next"`
}

// handlePassword changes the signed-in account's password and ends its
// other sessions; this browser stays signed in.
func (s *Server) handlePassword(w http.ResponseWriter, r *http.Request) error {
	var req passwordRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Current == "" {
		return web.Field("current", "required")
	}
	if msg := passwordProblem(req.Next); msg != "" {
		return web.Field("next", msg)
	}
	acct := visitor.Account(r)
	if !checkPassword(acct.PasswordHash, req.Current) {
		return web.ErrUnauthorized
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
	if err := s.store.DeleteAccountSessions(r.Context(), acct.ID, visitor.SessionToken(r)); err != nil {
		return err
	}
	if acct.MustChangePassword {
		// The generated password is no longer anyone's: its copy goes.
		path := filepath.Join(s.cfg.DataDir, initialPasswordFile)
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.WarnContext(r.Context(), "removing the initial password file", "file", path, "error", err)
		}
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
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
