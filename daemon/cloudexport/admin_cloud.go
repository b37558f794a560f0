package cloudexport

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"eventbox/daemon/mail"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
	"eventbox/webdav"
)

// APIConfig is what the console's routes of the cloud export need.
type APIConfig struct {
	// Store holds the settings and the exports.
	Store *store.Store
	// Visitors finds the :id event the signed-in account reaches.
	Visitors *visitor.Resolver
	// Logger receives the changes of the settings and the exports
	// queued.
	Logger *slog.Logger
	// Remote opens the WebDAV server for the settings test; nil means
	// webdav.New with its default transport.
	Remote RemoteFunc
	// Notify tells the job runner that jobs of the kinds were queued;
	// nil tells nobody.
	Notify func(kinds ...string)
	// Origin is the scheme and host the box's links start with (BASE_URL
	// or the request's); nil means the request's.
	Origin func(r *http.Request) string
}

// API is the console's side of the cloud export: its settings
// (/api/admin/cloud, owners), their test, and an event's exports
// (/api/admin/events/:id/cloud).
type API struct {
	cfg      APIConfig
	store    *store.Store
	visitors *visitor.Resolver
	log      *slog.Logger
}

// NewAPI returns the routes' handlers over cfg.
func NewAPI(cfg APIConfig) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Remote == nil {
		cfg.Remote = dialRemote(nil)
	}
	if cfg.Notify == nil {
		cfg.Notify = func(...string) {}
	}
	return &API{cfg: cfg, store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger}
}

// cloudSettingsDTO is the answer of GET/PUT /api/admin/cloud: the WebDAV
// settings without the password, which is never returned (hasPassword).
type cloudSettingsDTO struct {
	Configured  bool   `json:"configured"`
	URL         string `json:"url"`
	User        string `json:"user"`
	Folder      string `json:"folder"`
	AutoExport  bool   `json:"autoExport"`
	HasPassword bool   `json:"hasPassword"`
	// PasswordLost: the stored password was sealed by another box (the
	// database comes from its backup) and must be entered again.
	PasswordLost bool `json:"passwordLost,omitempty"`
	// GuestLink and GuestLinkPassword are the public link of the export
	// folder the hosts pasted, for a cloud the box cannot share from.
	GuestLink         string `json:"guestLink,omitempty"`
	GuestLinkPassword string `json:"guestLinkPassword,omitempty"`
}

func toCloudSettingsDTO(c store.CloudSettings, ok bool) cloudSettingsDTO {
	if !ok {
		return cloudSettingsDTO{Folder: Folder("")}
	}
	return cloudSettingsDTO{Configured: true, URL: c.URL, User: c.User, Folder: Folder(c.Folder),
		AutoExport: c.AutoExport, HasPassword: c.Password != "", PasswordLost: c.PasswordLost && c.Password == "",
		GuestLink: c.GuestLink, GuestLinkPassword: c.GuestLinkPassword}
}

// cloudSettingsRequest is the body of PUT /api/admin/cloud and of its
// test. An empty or absent password keeps the stored one.
type cloudSettingsRequest struct {
	URL        string `json:"url"`
	User       string `json:"user"`
	Password   string `json:"password"`
	Folder     string `json:"folder"`
	AutoExport bool   `json:"autoExport"`
	// GuestLink (optional) is a public link of the export folder made on
	// the cloud, for the guests' mail; GuestLinkPassword its password.
	GuestLink         string `json:"guestLink"`
	GuestLinkPassword string `json:"guestLinkPassword"`
}

// settings validates the request and merges it with the stored settings.
func (req cloudSettingsRequest) settings(stored store.CloudSettings) (store.CloudSettings, error) {
	details := map[string]string{}
	u, err := url.Parse(strings.TrimSpace(req.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		details["url"] = "must be a WebDAV address starting with https:// or http://"
	}
	if len(req.URL) > 2000 {
		details["url"] = "must be at most 2000 characters"
	}
	if len(req.User) > 200 {
		details["user"] = "must be at most 200 characters"
	}
	if len(req.Password) > 1000 {
		details["password"] = "must be at most 1000 characters"
	}
	if len(req.Folder) > 500 {
		details["folder"] = "must be at most 500 characters"
	}
	if strings.ContainsAny(req.Folder, "\\\x00") || strings.Contains("/"+req.Folder+"/", "/../") {
		details["folder"] = "must be a folder path such as Photos/eventbox"
	}
	if g := strings.TrimSpace(req.GuestLink); g != "" && (len(g) > 2000 || !mail.Reachable(g)) {
		details["guestLink"] = "must be a public https:// link that opens from the internet"
	}
	if len(req.GuestLinkPassword) > 200 {
		details["guestLinkPassword"] = "must be at most 200 characters"
	}
	if len(details) > 0 {
		return store.CloudSettings{}, web.BadRequest(details)
	}
	c := store.CloudSettings{URL: strings.TrimSpace(req.URL), User: req.User, Password: req.Password,
		Folder: Folder(req.Folder), AutoExport: req.AutoExport, GuestLink: strings.TrimSpace(req.GuestLink)}
	if c.GuestLink != "" {
		c.GuestLinkPassword = req.GuestLinkPassword
	}
	if c.Password == "" {
		c.Password, c.PasswordSealed, c.PasswordLost = stored.Password, stored.PasswordSealed, stored.PasswordLost
	}
	return c, nil
}

// Settings answers the WebDAV settings, without the password
// (GET /api/admin/cloud).
func (s *API) Settings(w http.ResponseWriter, r *http.Request) error {
	c, ok, err := s.store.Cloud().Settings(r.Context())
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, toCloudSettingsDTO(c, ok))
}

// settingsOf reads the settings a PUT or a test sends, over the
// stored ones (the stored password when the body has none).
func (s *API) settingsOf(r *http.Request) (store.CloudSettings, error) {
	var req cloudSettingsRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return store.CloudSettings{}, err
	}
	stored, _, err := s.store.Cloud().Settings(r.Context())
	if err != nil {
		return store.CloudSettings{}, err
	}
	return req.settings(stored)
}

// SaveSettings stores the settings of the body, the stored password
// when it has none (PUT /api/admin/cloud).
func (s *API) SaveSettings(w http.ResponseWriter, r *http.Request) error {
	c, err := s.settingsOf(r)
	if err != nil {
		return err
	}
	if err := s.store.Cloud().PutSettings(r.Context(), c); err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "cloud settings changed", "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, toCloudSettingsDTO(c, true))
}

// RemoveSettings removes the settings (DELETE /api/admin/cloud).
func (s *API) RemoveSettings(w http.ResponseWriter, r *http.Request) error {
	if err := s.store.Cloud().DeleteSettings(r.Context()); err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "cloud settings removed", "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OKBody{OK: true})
}

// cloudTestBody is the answer of POST /api/admin/cloud/test: ok, or the
// step that failed in the server's own words.
type cloudTestBody struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
}

// cloudTestTimeout bounds the whole test.
const cloudTestTimeout = 30 * time.Second

// TestSettings checks the settings of the body (the stored password
// when it has none): the folder exists or can be made, and a small file
// can be written there, read back and removed.
func (s *API) TestSettings(w http.ResponseWriter, r *http.Request) error {
	c, err := s.settingsOf(r)
	if err != nil {
		return err
	}
	if c.PasswordLost && c.Password == "" {
		return web.JSON(w, r, http.StatusOK, cloudTestBody{Message: errPasswordLost.Error()})
	}
	ctx, cancel := context.WithTimeout(r.Context(), cloudTestTimeout)
	defer cancel()
	remote, err := s.cfg.Remote(ctx, webdav.Settings{URL: c.URL, User: c.User, Password: c.Password})
	if err == nil {
		err = remote.Test(c.Folder)
	}
	if err != nil {
		s.log.InfoContext(r.Context(), "cloud test failed", "error", err)
		return web.JSON(w, r, http.StatusOK, cloudTestBody{Message: Words(err)})
	}
	return web.JSON(w, r, http.StatusOK, cloudTestBody{OK: true})
}

// exportDTO is one export and its progress.
type exportDTO struct {
	ID         string  `json:"id"`
	Scope      string  `json:"scope"`
	Status     string  `json:"status"`
	Total      int     `json:"total"`
	Sent       int     `json:"sent"`
	Bytes      int64   `json:"bytes"`
	Error      *string `json:"error"`
	Folder     string  `json:"folder"`
	CreatedAt  int64   `json:"createdAt"`
	FinishedAt *int64  `json:"finishedAt"`
}

func toExportDTO(x store.Export) exportDTO {
	d := exportDTO{ID: x.ID, Scope: x.Scope, Status: x.Status, Total: x.Total, Sent: x.Sent, Bytes: x.Bytes,
		Folder: x.Folder, CreatedAt: x.CreatedAt}
	if x.Error != "" {
		d.Error = &x.Error
	}
	if x.FinishedAt != 0 {
		d.FinishedAt = &x.FinishedAt
	}
	return d
}

type eventCloudBody struct {
	Configured bool        `json:"configured"`
	Exports    []exportDTO `json:"exports"`
}

// EventExports answers whether the settings exist and the event's
// exports (GET /api/admin/events/:id/cloud).
func (s *API) EventExports(w http.ResponseWriter, r *http.Request, e store.Event) error {
	_, ok, err := s.store.Cloud().Settings(r.Context())
	if err != nil {
		return err
	}
	list, err := s.store.Cloud().Exports(r.Context(), e.ID)
	if err != nil {
		return err
	}
	out := eventCloudBody{Configured: ok, Exports: make([]exportDTO, 0, len(list))}
	for _, x := range list {
		out.Exports = append(out.Exports, toExportDTO(x))
	}
	return web.JSON(w, r, http.StatusOK, out)
}

type exportRequest struct {
	Scope string `json:"scope"`
}

type exportBody struct {
	Export exportDTO `json:"export"`
}

// QueueExport queues an export of the event (202); when one of the
// same scope is still queued or running, it answers that one.
func (s *API) QueueExport(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var req exportRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Scope == "" {
		req.Scope = store.ExportVisible
	}
	if req.Scope != store.ExportVisible && req.Scope != store.ExportFavorites {
		return web.Field("scope", "must be visible or favorites")
	}
	x, err := s.queue(r.Context(), e.ID, req.Scope)
	if err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "export queued", "event", e.ID, "export", x.ID, "scope", x.Scope,
		"by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusAccepted, exportBody{Export: toExportDTO(x)})
}

// errPasswordLost: the stored password does not open with this box's
// key.
var errPasswordLost = errors.New("the cloud password was sealed by another box (this database comes from its backup): enter it again")

// errCloudNotSet is the 400 of an export asked for before the settings.
var errCloudNotSet = web.Field("cloud", "set up the cloud export first")

// queue queues an export when the settings exist, and tells the
// runner.
func (s *API) queue(ctx context.Context, eventID, scope string) (store.Export, error) {
	_, ok, err := s.store.Cloud().Settings(ctx)
	if err != nil {
		return store.Export{}, err
	}
	if !ok {
		return store.Export{}, errCloudNotSet
	}
	x, _, err := s.store.Cloud().QueueExport(ctx, eventID, scope)
	if err != nil {
		return store.Export{}, err
	}
	s.cfg.Notify(store.ExportJobKind)
	return x, nil
}

// AutoExport queues the end-of-event export when the settings ask for it,
// and answers whether one is queued.
func (s *API) AutoExport(ctx context.Context, eventID string) bool {
	c, ok, err := s.store.Cloud().Settings(ctx)
	if err != nil || !ok || !c.AutoExport {
		return false
	}
	x, err := s.queue(ctx, eventID, store.ExportVisible)
	if err != nil && !errors.Is(err, errCloudNotSet) {
		s.log.ErrorContext(ctx, "export not queued at the end", "event", eventID, "error", err)
		return false
	}
	return x.ID != ""
}

// guestLinkBody is the answer of GET /api/admin/events/:id/guest-link:
// which gallery link the guests' mails will carry if the event ends now.
type guestLinkBody struct {
	// Link is "box" (the box's own link, which opens from the internet),
	// "cloud" (a public link of the export folder the box makes on the
	// hosts' cloud), "pasted" (the link pasted in the cloud settings) or
	// "none" (only the box's link, which opens on its Wi-Fi alone: the
	// mails wait for a cloud copy).
	Link string `json:"link"`
	// BoxURL is the box's own address.
	BoxURL string `json:"boxUrl"`
	// URL is the pasted link (Link "pasted").
	URL string `json:"url,omitempty"`
	// AutoExport: the cloud export starts by itself at the end; without
	// it the hosts start one, and the mails wait for it.
	AutoExport bool `json:"autoExport"`
}

// GuestLinkPlan answers which gallery link the guests' mails of the :id
// event will carry (GET /api/admin/events/:id/guest-link): the console's
// end card says it, and warns when guests could not open it from home.
func (s *API) GuestLinkPlan(w http.ResponseWriter, r *http.Request, _ store.Event) error {
	origin := ""
	if s.cfg.Origin != nil {
		origin = s.cfg.Origin(r)
	} else {
		origin = "http://" + r.Host
	}
	body := guestLinkBody{Link: "none", BoxURL: origin}
	c, ok, err := s.store.Cloud().Settings(r.Context())
	if err != nil {
		return err
	}
	body.AutoExport = ok && c.AutoExport
	switch {
	case mail.Reachable(origin):
		body.Link = "box"
	case ok && c.GuestLink != "":
		body.Link, body.URL = "pasted", c.GuestLink
	case ok:
		if _, _, share := shareAPI(c.URL, Folder(c.Folder)); share {
			body.Link = "cloud"
		}
	}
	return web.JSON(w, r, http.StatusOK, body)
}
