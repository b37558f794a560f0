package accounts

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"eventbox/daemon/cookie"
	"eventbox/daemon/dto"
	"eventbox/daemon/mail"
	"eventbox/daemon/passwords"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Limits of account fields (docs/decisions.md, "Accounts, invitations and two-factor sign-in").
const (
	maxUsername    = 60
	maxAccountName = 100
)

// usernameProblem says what is wrong with a username, or "".
func usernameProblem(u string) string {
	if n := utf8.RuneCountInString(u); n < 1 || n > maxUsername {
		return fmt.Sprintf("must be 1 to %d characters", maxUsername)
	}
	for _, c := range u {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			return "must not contain spaces"
		}
	}
	return ""
}

// accountInput is the body of account creation and update. Create needs
// username and role and refuses the two reset flags.
type accountInput struct {
	Username       web.Optional[string]   `json:"username"`
	Role           web.Optional[string]   `json:"role"`
	Name           web.Nullable[string]   `json:"name"`
	Email          web.Nullable[string]   `json:"email"`
	EventIDs       web.Nullable[[]string] `json:"eventIds"`
	Password       web.Nullable[string]   `json:"password"`
	ResetPassword  web.Optional[bool]     `json:"resetPassword"`
	ResetTwoFactor web.Optional[bool]     `json:"resetTwoFactor"`
}

// validate checks the fields that do not depend on the stored account and
// normalises them in place. Event ids are checked for shape here and for
// existence by checkEventIDs.
func (in *accountInput) validate(details map[string]string) {
	if in.Username.Set {
		in.Username.Value = strings.TrimSpace(in.Username.Value)
		if msg := usernameProblem(in.Username.Value); msg != "" {
			details["username"] = msg
		}
	}
	if in.Role.Set && !web.OneOf(in.Role.Value, store.RoleOwner, store.RoleOrganizer) {
		details["role"] = "must be owner or organizer"
	}
	if in.Name.Set {
		in.Name.Value = strings.TrimSpace(in.Name.Value)
		if utf8.RuneCountInString(in.Name.Value) > maxAccountName {
			details["name"] = fmt.Sprintf("must be at most %d characters", maxAccountName)
		} else if msg := web.LineProblem(in.Name.Value); msg != "" {
			details["name"] = msg
		}
	}
	if in.Email.Set {
		in.Email.Value = strings.TrimSpace(in.Email.Value)
		if in.Email.Value != "" && !web.ValidEmail(in.Email.Value) {
			details["email"] = "must be an email address"
		}
	}
	if in.EventIDs.Set {
		ids, msg := eventIDList(in.EventIDs.Value)
		in.EventIDs.Value = ids
		if msg != "" {
			details["eventIds"] = msg
		}
	}
	if in.Password.Set {
		if in.Password.Null {
			details["password"] = "must be a string; leave it out to have one made"
		} else if msg := passwords.Problem(in.Password.Value); msg != "" {
			details["password"] = msg
		}
	}
}

// apply writes the validated fields over a.
func (in accountInput) apply(a *store.Account) {
	if in.Username.Set {
		a.Username = in.Username.Value
	}
	if in.Role.Set {
		a.Role = in.Role.Value
	}
	if in.Name.Set {
		a.Name = in.Name.Value
	}
	if in.Email.Set {
		a.Email = in.Email.Value
	}
	if in.EventIDs.Set {
		a.EventIDs = in.EventIDs.Value
	}
}

// eventIDList checks the shape of a list of event ids and drops
// repetitions; it answers a message for details when one is malformed.
func eventIDList(ids []string) ([]string, string) {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !store.ValidID(id) {
			return out, fmt.Sprintf("%q is not an event id", id)
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, ""
}

// checkEventIDs adds a message to details unless every id names an
// existing event.
func (api *API) checkEventIDs(ctx context.Context, ids []string, details map[string]string) error {
	for _, id := range ids {
		_, err := api.store.Events().Get(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			details["eventIds"] = fmt.Sprintf("no event has the id %s", id)
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// accountStoreError turns the store's refusals of an account change into
// answers naming the field.
func accountStoreError(err error) error {
	switch {
	case errors.Is(err, store.ErrConflict):
		return web.Field("username", "is already taken")
	case errors.Is(err, store.ErrUnknownEvent):
		return web.Field("eventIds", "names an event that does not exist")
	case errors.Is(err, store.ErrLastOwner):
		return web.Field("role", "the last owner must stay an owner")
	}
	return err
}

// accountPasswordBody is the answer of account creation and update:
// password is the generated one, shown this once, else null.
type accountPasswordBody struct {
	Account  dto.Account `json:"account"`
	Password *string     `json:"password"`
}

type accountsBody struct {
	Accounts []dto.Account `json:"accounts"`
}

// ListAccounts answers every account, oldest first (owners only).
func (api *API) ListAccounts(w http.ResponseWriter, r *http.Request) error {
	list, err := api.store.Accounts().List(r.Context())
	if err != nil {
		return err
	}
	out := make([]dto.Account, 0, len(list))
	for _, a := range list {
		out = append(out, dto.AccountOf(a))
	}
	return web.JSON(w, r, http.StatusOK, accountsBody{Accounts: out})
}

// CreateAccount makes an account; without a password one is
// generated and answered once.
func (api *API) CreateAccount(w http.ResponseWriter, r *http.Request) error {
	var in accountInput
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	details := map[string]string{}
	in.validate(details)
	if !in.Username.Set {
		details["username"] = "required"
	}
	if !in.Role.Set {
		details["role"] = "required"
	}
	if in.ResetPassword.Set {
		details["resetPassword"] = "only on update"
	}
	if in.ResetTwoFactor.Set {
		details["resetTwoFactor"] = "only on update"
	}
	if err := api.checkEventIDs(r.Context(), in.EventIDs.Value, details); err != nil {
		return err
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	var generated *string
	password := in.Password.Value
	if !in.Password.Set {
		password = passwords.Generate()
		generated = &password
	}
	hash, err := passwords.Hash(password, api.cost)
	if err != nil {
		return err
	}
	a := store.Account{PasswordHash: hash}
	in.apply(&a)
	if err := api.store.Accounts().Create(r.Context(), &a); err != nil {
		return accountStoreError(err)
	}
	api.log.InfoContext(r.Context(), "account created", "account", a.ID, "username", a.Username,
		"role", a.Role, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusCreated, accountPasswordBody{Account: dto.AccountOf(a), Password: generated})
}

// UpdateAccount changes an account. A new password (given or reset)
// and a reset second factor end the account's sessions, except the one
// making the change.
func (api *API) UpdateAccount(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	var in accountInput
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	details := map[string]string{}
	in.validate(details)
	resetPassword := in.ResetPassword.Set && in.ResetPassword.Value
	resetTwoFactor := in.ResetTwoFactor.Set && in.ResetTwoFactor.Value
	if resetPassword && in.Password.Set {
		details["resetPassword"] = "cannot be combined with password"
	}
	if err := api.checkEventIDs(r.Context(), in.EventIDs.Value, details); err != nil {
		return err
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	if _, err := api.store.Accounts().Get(r.Context(), id); err != nil {
		return err
	}
	var generated *string
	password := in.Password.Value
	if resetPassword {
		password = passwords.Generate()
		generated = &password
	}
	hash := ""
	if password != "" {
		var err error
		if hash, err = passwords.Hash(password, api.cost); err != nil {
			return err
		}
	}
	a, err := api.store.Accounts().Update(r.Context(), id, func(a *store.Account) error {
		in.apply(a)
		if hash != "" {
			a.PasswordHash = hash
		}
		if resetTwoFactor {
			clearTwoFactor(a)
		}
		return nil
	})
	if err != nil {
		return accountStoreError(err)
	}
	if hash != "" || resetTwoFactor {
		except := ""
		if id == visitor.Account(r).ID {
			except = visitor.SessionToken(r)
		}
		if err := api.store.Sessions().DeleteByAccount(r.Context(), id, except); err != nil {
			return err
		}
	}
	api.log.InfoContext(r.Context(), "account updated", "account", a.ID, "username", a.Username,
		"role", a.Role, "passwordChanged", hash != "", "twoFactorReset", resetTwoFactor, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, accountPasswordBody{Account: dto.AccountOf(a), Password: generated})
}

// DeleteAccount removes an account and ends its sessions at once;
// the last owner stays.
func (api *API) DeleteAccount(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	err := api.store.Accounts().Delete(r.Context(), id)
	if errors.Is(err, store.ErrLastOwner) {
		return web.Field("id", "the last owner cannot be deleted")
	}
	if err != nil {
		return err
	}
	if id == visitor.Account(r).ID {
		cookie.Clear(w, r, visitor.AdminCookie)
	}
	api.log.InfoContext(r.Context(), "account deleted", "account", id, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// invitationDTO is an invitation as owners see it: never its token.
type invitationDTO struct {
	ID        string   `json:"id"`
	Email     string   `json:"email"`
	Role      string   `json:"role"`
	EventIDs  []string `json:"eventIds"`
	CreatedAt int64    `json:"createdAt"`
	ExpiresAt int64    `json:"expiresAt"`
}

func toInvitationDTO(inv store.Invitation) invitationDTO {
	ids := inv.EventIDs
	if ids == nil {
		ids = []string{}
	}
	return invitationDTO{ID: inv.ID, Email: inv.Email, Role: inv.Role, EventIDs: ids,
		CreatedAt: inv.CreatedAt, ExpiresAt: inv.ExpiresAt}
}

type invitationRequest struct {
	Email    string   `json:"email"`
	Role     string   `json:"role"`
	EventIDs []string `json:"eventIds"`
}

// invitationCreatedBody answers an invitation: url carries the token and
// is shown this once; emailed says whether a mail is on its way.
type invitationCreatedBody struct {
	Invitation invitationDTO `json:"invitation"`
	URL        string        `json:"url"`
	Emailed    bool          `json:"emailed"`
}

type invitationsBody struct {
	Invitations []invitationDTO `json:"invitations"`
}

// CreateInvitation makes an invitation link valid for 7 days. It is
// mailed to the invitee when mail is set up (emailed); otherwise emailed
// is false and the owner passes the link on (docs/decisions.md,
// "Accounts, invitations and two-factor sign-in").
func (api *API) CreateInvitation(w http.ResponseWriter, r *http.Request) error {
	var req invitationRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	details := map[string]string{}
	email := strings.TrimSpace(req.Email)
	if email == "" {
		details["email"] = "required"
	} else if !web.ValidEmail(email) {
		details["email"] = "must be an email address"
	}
	if req.Role == "" {
		details["role"] = "required"
	} else if !web.OneOf(req.Role, store.RoleOwner, store.RoleOrganizer) {
		details["role"] = "must be owner or organizer"
	}
	ids, msg := eventIDList(req.EventIDs)
	if msg != "" {
		details["eventIds"] = msg
	} else if err := api.checkEventIDs(r.Context(), ids, details); err != nil {
		return err
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	inv := store.Invitation{Email: email, Role: req.Role, EventIDs: ids, CreatedBy: visitor.Account(r).ID}
	origin := api.origin(r)
	settings, err := api.store.Mail().Settings(r.Context())
	if err != nil {
		return err
	}
	// The link is mailed only when mail is set up: the owner is here to
	// pass it on otherwise, and a mail waiting for settings would say
	// "emailed" when it is not.
	var mailJobs []func(string) (store.JobSpec, error)
	if settings.Ready() {
		domain := api.mailDomain(r.Context())
		mailJobs = append(mailJobs, func(token string) (store.JobSpec, error) {
			msg, err := mail.InvitationMessage(email, origin+"/invite/"+token, inv.Role, domain, inv.ExpiresAt)
			if err != nil {
				return store.JobSpec{}, err
			}
			return mail.Spec(msg, "")
		})
	}
	token, err := api.store.Invitations().Create(r.Context(), &inv, mailJobs...)
	if err != nil {
		return accountStoreError(err)
	}
	if len(mailJobs) > 0 {
		api.mailQueued()
	}
	api.log.InfoContext(r.Context(), "invitation created", "invitation", inv.ID, "role", inv.Role, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusCreated, invitationCreatedBody{
		Invitation: toInvitationDTO(inv),
		URL:        origin + "/invite/" + token,
		Emailed:    len(mailJobs) > 0,
	})
}

// ListInvitations answers the invitations that can still be used,
// newest first, without their tokens (owners only).
func (api *API) ListInvitations(w http.ResponseWriter, r *http.Request) error {
	list, err := api.store.Invitations().List(r.Context())
	if err != nil {
		return err
	}
	out := make([]invitationDTO, 0, len(list))
	for _, inv := range list {
		out = append(out, toInvitationDTO(inv))
	}
	return web.JSON(w, r, http.StatusOK, invitationsBody{Invitations: out})
}

// DeleteInvitation revokes an invitation: its link answers 404 from
// now on.
func (api *API) DeleteInvitation(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	if err := api.store.Invitations().Delete(r.Context(), id); err != nil {
		return err
	}
	api.log.InfoContext(r.Context(), "invitation revoked", "invitation", id, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

type acceptInvitationRequest struct {
	Username string `json:"username"`
	Name     string `json:"name"`
	Password string `json:"password"`
}

// AcceptInvitation is the invitee's public route: the token is the
// credential. It creates the account with the invitation's role and
// events and signs the caller in. A spent, expired or revoked link is 404,
// checked before the body so that the page can say so at once.
func (api *API) AcceptInvitation(w http.ResponseWriter, r *http.Request) error {
	token, err := web.Token(r)
	if err != nil {
		return err
	}
	if _, err := api.store.Invitations().ByToken(r.Context(), token); err != nil {
		return err
	}
	var req acceptInvitationRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	details := map[string]string{}
	username := strings.TrimSpace(req.Username)
	if msg := usernameProblem(username); msg != "" {
		details["username"] = msg
	}
	name := strings.TrimSpace(req.Name)
	if utf8.RuneCountInString(name) > maxAccountName {
		details["name"] = fmt.Sprintf("must be at most %d characters", maxAccountName)
	} else if msg := web.LineProblem(name); msg != "" {
		details["name"] = msg
	}
	if msg := passwords.Problem(req.Password); msg != "" {
		details["password"] = msg
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	hash, err := passwords.Hash(req.Password, api.cost)
	if err != nil {
		return err
	}
	a := store.Account{Username: username, Name: name, PasswordHash: hash, LastLoginAt: api.now().UnixMilli()}
	if err := api.store.Invitations().Accept(r.Context(), token, &a); err != nil {
		return accountStoreError(err)
	}
	session, err := api.store.Sessions().Create(r.Context(), a.ID, false)
	if err != nil {
		return err
	}
	api.visitors.SetSessionCookie(w, r, session)
	api.log.InfoContext(r.Context(), "invitation accepted", "account", a.ID, "username", a.Username, "role", a.Role)
	return web.JSON(w, r, http.StatusCreated, web.OK)
}
