package gallery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"eventbox/daemon/dto"
	"eventbox/daemon/passwords"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Limits of a gallery link's fields (docs/decisions.md, "Gallery links").
const (
	maxShareLabel       = 80
	minSharePassword    = 4
	maxSharePassword    = 72 // bytes: bcrypt's limit
	maxShareExpiresDays = 3650
)

// passwordChoice is the password field of a new link: a string (that
// password) or true (the server makes one); false counts as none.
type passwordChoice struct {
	generate bool
	none     bool
	value    string
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *passwordChoice) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		p.generate = true
		return nil
	case "false":
		p.none = true
		return nil
	}
	if err := json.Unmarshal(b, &p.value); err != nil {
		return &web.FieldError{Msg: "must be a password, true (make one) or null (none)"}
	}
	return nil
}

type shareRequest struct {
	Password      web.Nullable[passwordChoice] `json:"password"`
	Label         web.Nullable[string]         `json:"label"`
	AllowDownload web.Nullable[bool]           `json:"allowDownload"`
	FavoritesOnly web.Nullable[bool]           `json:"favoritesOnly"`
	ExpiresInDays web.Nullable[int]            `json:"expiresInDays"`
}

type shareBody struct {
	Share    dto.Share `json:"share"`
	Password *string   `json:"password"`
}

type shareListBody struct {
	Shares []dto.Share `json:"shares"`
}

// newShareOptions are what a new gallery link is made with.
type newShareOptions struct {
	Label         string
	AllowDownload bool
	FavoritesOnly bool
	// ExpiresInDays counts from now; 0 means the link never expires.
	ExpiresInDays int
	// Password is the link's password; "" with GeneratePassword false
	// makes an open link.
	Password         string
	GeneratePassword bool
}

// createShare stores a new gallery link of the event and returns it with
// the generated password ("" unless GeneratePassword).
func (g *API) createShare(ctx context.Context, e store.Event, o newShareOptions) (store.Share, string, error) {
	sh := store.Share{EventID: e.ID, Label: o.Label, AllowDownload: o.AllowDownload, FavoritesOnly: o.FavoritesOnly}
	if o.ExpiresInDays > 0 {
		sh.ExpiresAt = g.now().Add(time.Duration(o.ExpiresInDays) * 24 * time.Hour).UnixMilli()
	}
	password, generated := o.Password, ""
	if o.GeneratePassword {
		password = passwords.Generate()
		generated = password
	}
	if password != "" {
		hash, err := passwords.Hash(password, g.cfg.PasswordCost)
		if err != nil {
			return store.Share{}, "", err
		}
		sh.PasswordHash, sh.Password = hash, generated
	}
	if err := g.store.Shares().Create(ctx, &sh); err != nil {
		return store.Share{}, "", err
	}
	g.log.InfoContext(ctx, "gallery link created", "event", e.ID, "share", sh.ID, "password", sh.PasswordHash != "")
	return sh, generated, nil
}

// options validates the request; defaults for download and favorites come
// from the event's gallery-link settings.
func (req shareRequest) options(e store.Event) (newShareOptions, error) {
	o := newShareOptions{AllowDownload: e.GalleryLinkDownload, FavoritesOnly: e.GalleryLinkFavorites}
	details := map[string]string{}
	if req.Label.Set && !req.Label.Null {
		o.Label = strings.Join(strings.Fields(req.Label.Value), " ")
		if utf8.RuneCountInString(o.Label) > maxShareLabel {
			details["label"] = fmt.Sprintf("must be at most %d characters", maxShareLabel)
		} else if msg := web.LineProblem(o.Label); msg != "" {
			details["label"] = msg
		}
	}
	if req.AllowDownload.Set && !req.AllowDownload.Null {
		o.AllowDownload = req.AllowDownload.Value
	}
	if req.FavoritesOnly.Set && !req.FavoritesOnly.Null {
		o.FavoritesOnly = req.FavoritesOnly.Value
	}
	if req.ExpiresInDays.Set && !req.ExpiresInDays.Null {
		o.ExpiresInDays = req.ExpiresInDays.Value
		if o.ExpiresInDays < 1 || o.ExpiresInDays > maxShareExpiresDays {
			details["expiresInDays"] = fmt.Sprintf("must be 1 to %d days, or null for a link that does not expire", maxShareExpiresDays)
		}
	}
	if req.Password.Set && !req.Password.Null {
		p := req.Password.Value
		o.GeneratePassword = p.generate
		if !p.generate && !p.none {
			if strings.TrimSpace(p.value) == "" || utf8.RuneCountInString(p.value) < minSharePassword || len(p.value) > maxSharePassword {
				details["password"] = fmt.Sprintf("must be %d characters to %d bytes, true to make one, or null", minSharePassword, maxSharePassword)
			}
			o.Password = p.value
		}
	}
	if len(details) > 0 {
		return newShareOptions{}, web.BadRequest(details)
	}
	return o, nil
}

// ListShares lists an event's gallery links, newest first, expired
// ones included (revoked ones are gone).
func (g *API) ListShares(w http.ResponseWriter, r *http.Request, e store.Event) error {
	shares, err := g.store.Shares().List(r.Context(), e.ID)
	if err != nil {
		return err
	}
	origin, now := g.cfg.Origin(r), g.now().UnixMilli()
	out := shareListBody{Shares: make([]dto.Share, 0, len(shares))}
	for _, sh := range shares {
		out.Shares = append(out.Shares, dto.ShareOf(origin, sh, now))
	}
	return web.JSON(w, r, http.StatusOK, out)
}

// CreateShare makes a gallery link. A generated password is in this
// answer only; it is stored hashed.
func (g *API) CreateShare(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var req shareRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	o, err := req.options(e)
	if err != nil {
		return err
	}
	sh, generated, err := g.createShare(r.Context(), e, o)
	if errors.Is(err, store.ErrTooMany) {
		return web.Field("shares", fmt.Sprintf("an event has at most %d gallery links; revoke one first", store.MaxShares))
	}
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusCreated, shareBody{Share: dto.ShareOf(g.cfg.Origin(r), sh, g.now().UnixMilli()), Password: dto.NullString(generated)})
}

// DeleteShare revokes a gallery link: its url answers 404 from now
// on, and browsers that unlocked it lose access to its photos.
func (g *API) DeleteShare(w http.ResponseWriter, r *http.Request, e store.Event) error {
	id := web.Param(r, "shareId")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	if err := g.store.Shares().Delete(r.Context(), e.ID, id); err != nil {
		return err
	}
	g.log.InfoContext(r.Context(), "gallery link revoked", "event", e.ID, "share", id, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OK)
}
