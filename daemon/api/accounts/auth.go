package accounts

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"eventbox/daemon/cookie"
	"eventbox/daemon/dto"
	"eventbox/daemon/passwords"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/netsetup"
	"eventbox/store"
)

// initialPasswordFile is written in DATA_DIR when the first owner's
// password was generated.
const initialPasswordFile = "initial-password"

// EnsureFirstOwner creates the first owner on a database without accounts:
// the one the boot partition's settings file named, handed over in
// DATA_DIR/first-owner by the service's root step (the file is removed once
// the account exists, and at any start that finds accounts already); else
// ADMIN_USERNAME with ADMIN_PASSWORD, or a generated password that is
// logged once and written to DATA_DIR/initial-password (mode 0600).
func (si *SignIn) EnsureFirstOwner(ctx context.Context) error {
	n, err := si.store.Accounts().Count(ctx)
	if err != nil {
		return fmt.Errorf("counting accounts: %w", err)
	}
	handoff := filepath.Join(si.dataDir, netsetup.OwnerHandoffFile)
	if n > 0 {
		if err := os.Remove(handoff); err == nil {
			si.log.WarnContext(ctx, "first owner of the settings file not created: the box has accounts already", "file", handoff)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", handoff, err)
		}
		return nil
	}
	if done, err := si.ownerFromHandoff(ctx, handoff); done || err != nil {
		return err
	}
	password, generated := si.adminPassword, false
	if password == "" {
		password, generated = passwords.Generate(), true
	}
	hash, err := passwords.Hash(password, si.cost)
	if err != nil {
		return err
	}
	a := store.Account{Username: si.adminUsername, Role: store.RoleOwner, EventIDs: []string{}, PasswordHash: hash,
		MustChangePassword: generated}
	if generated {
		path := filepath.Join(si.dataDir, initialPasswordFile)
		if err := os.WriteFile(path, []byte(password+"\n"), 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := si.store.Accounts().Create(ctx, &a); err != nil {
		return fmt.Errorf("creating first owner: %w", err)
	}
	if generated {
		// The one secret ever logged: the host needs it to sign in.
		si.log.InfoContext(ctx, "first owner created with a generated password",
			"username", a.Username, "password", password,
			"file", filepath.Join(si.dataDir, initialPasswordFile))
	} else {
		si.log.InfoContext(ctx, "first owner created", "username", a.Username)
	}
	return nil
}

// ownerFromHandoff creates the first owner the settings file named, and
// removes the hand-off file once the account exists, so the password stays
// on disk no longer than that. No file answers false; a file that cannot be
// read is logged and removed, and the owner is made as without one.
func (si *SignIn) ownerFromHandoff(ctx context.Context, path string) (bool, error) {
	o, err := netsetup.ReadOwnerHandoff(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	name := strings.TrimSpace(o.Name)
	if err == nil && (name == "" || utf8.RuneCountInString(name) > 60) {
		err = fmt.Errorf("reading the first owner: a user name of %d characters", utf8.RuneCountInString(name))
	}
	if err != nil {
		si.log.WarnContext(ctx, "first owner of the settings file refused", "file", path, "error", err)
		if rmErr := os.Remove(path); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
			return false, fmt.Errorf("removing %s: %w", path, rmErr)
		}
		return false, nil
	}
	hash, err := passwords.Hash(o.Password, si.cost)
	if err != nil {
		return false, err
	}
	a := store.Account{Username: name, Role: store.RoleOwner, EventIDs: []string{}, PasswordHash: hash}
	if err := si.store.Accounts().Create(ctx, &a); err != nil {
		return false, fmt.Errorf("creating the first owner of the settings file: %w", err)
	}
	if err := os.Remove(path); err != nil {
		return true, fmt.Errorf("removing %s: %w", path, err)
	}
	si.log.InfoContext(ctx, "first owner created from the settings file", "username", a.Username)
	return true, nil
}

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type codeRequiredBody struct {
	CodeRequired bool `json:"codeRequired"`
}

// Login checks a username and password within the sign-in limits and
// starts a session: a full one, or one waiting for the second factor
// (answered codeRequired) when the account has two-factor on.
func (si *SignIn) Login(w http.ResponseWriter, r *http.Request) error {
	var req loginRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Password == "" {
		return web.Field("password", "required")
	}
	username := strings.TrimSpace(req.Username)
	if username == "" {
		username = si.adminUsername
	}
	key := strings.ToLower(username)
	acct, err := si.store.Accounts().ByUsername(r.Context(), username)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	device, err := si.signInGate(r, acct.ID, key)
	if err != nil {
		return err
	}
	if acct.ID == "" {
		passwords.Check(si.dummyHash, req.Password)
		si.signInFailed(r, device, key)
		return web.ErrUnauthorized
	}
	if !passwords.Check(acct.PasswordHash, req.Password) {
		si.signInFailed(r, device, key)
		return web.ErrUnauthorized
	}
	token, err := si.store.Sessions().Create(r.Context(), acct.ID, acct.TwoFactor)
	if err != nil {
		return err
	}
	si.visitors.SetSessionCookie(w, r, token)
	if acct.TwoFactor {
		return web.JSON(w, r, http.StatusOK, codeRequiredBody{CodeRequired: true})
	}
	if _, err := si.store.Accounts().Update(r.Context(), acct.ID, func(a *store.Account) error {
		a.LastLoginAt = si.now().UnixMilli()
		return nil
	}); err != nil {
		return err
	}
	if err := si.rememberDevice(w, r, acct.ID); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// Logout ends this browser's session and clears its cookie.
func (si *SignIn) Logout(w http.ResponseWriter, r *http.Request) error {
	if err := si.store.Sessions().Delete(r.Context(), visitor.SessionToken(r)); err != nil {
		return err
	}
	cookie.Clear(w, r, visitor.AdminCookie)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

type accountBody struct {
	Account dto.Account `json:"account"`
}

// Me answers the signed-in account.
func (si *SignIn) Me(w http.ResponseWriter, r *http.Request) error {
	return web.JSON(w, r, http.StatusOK, accountBody{Account: dto.AccountOf(visitor.Account(r))})
}

type meRequest struct {
	Name  web.Optional[string] `json:"name"`
	Email web.Optional[string] `json:"email"`
}

// UpdateMe changes the signed-in account's name and email.
func (si *SignIn) UpdateMe(w http.ResponseWriter, r *http.Request) error {
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
	if req.Email.Set && email != "" && !web.ValidEmail(email) {
		details["email"] = "must be an email address"
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	acct, err := si.store.Accounts().Update(r.Context(), visitor.Account(r).ID, func(a *store.Account) error {
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

// Password changes the signed-in account's password and ends its
// other sessions; this browser stays signed in.
func (si *SignIn) Password(w http.ResponseWriter, r *http.Request) error {
	var req passwordRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Current == "" {
		return web.Field("current", "required")
	}
	if msg := passwords.Problem(req.Next); msg != "" {
		return web.Field("next", msg)
	}
	acct := visitor.Account(r)
	if !passwords.Check(acct.PasswordHash, req.Current) {
		return web.ErrUnauthorized
	}
	hash, err := passwords.Hash(req.Next, si.cost)
	if err != nil {
		return err
	}
	if _, err := si.store.Accounts().Update(r.Context(), acct.ID, func(a *store.Account) error {
		a.PasswordHash = hash
		a.MustChangePassword = false
		return nil
	}); err != nil {
		return err
	}
	if err := si.store.Sessions().DeleteByAccount(r.Context(), acct.ID, visitor.SessionToken(r)); err != nil {
		return err
	}
	if acct.MustChangePassword {
		// The generated password is no longer anyone's: its copy goes.
		path := filepath.Join(si.dataDir, initialPasswordFile)
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			si.log.WarnContext(r.Context(), "removing the initial password file", "file", path, "error", err)
		}
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// ResetPassword gives the named account a new generated password, ends
// all its sessions and returns the password. cost is the bcrypt cost (0:
// default). It serves the reset-password command of the box.
func ResetPassword(ctx context.Context, st *store.Store, username string, cost int) (string, error) {
	acct, err := st.Accounts().ByUsername(ctx, username)
	if err != nil {
		return "", err
	}
	password := passwords.Generate()
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return "", fmt.Errorf("hashing password: %w", err)
	}
	if _, err := st.Accounts().Update(ctx, acct.ID, func(a *store.Account) error {
		a.PasswordHash = string(hash)
		return nil
	}); err != nil {
		return "", err
	}
	if err := st.Sessions().DeleteByAccount(ctx, acct.ID, ""); err != nil {
		return "", err
	}
	return password, nil
}
