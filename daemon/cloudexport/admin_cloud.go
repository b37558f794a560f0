package cloudexport

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"eventbox/daemon/mail"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/s3store"
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
	// Bucket opens the S3-compatible bucket for the settings test and the
	// guests' link; nil means s3store.New with its default transport.
	Bucket BucketFunc
	// BoxName names the box in an S3 export's keys unless the settings
	// do; "" means "eventbox".
	BoxName string
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
	if cfg.Bucket == nil {
		cfg.Bucket = dialBucket(nil)
	}
	if cfg.BoxName == "" {
		cfg.BoxName = "eventbox"
	}
	if cfg.Notify == nil {
		cfg.Notify = func(...string) {}
	}
	return &API{cfg: cfg, store: cfg.Store, visitors: cfg.Visitors, log: cfg.Logger}
}

// cloudSettingsDTO is the answer of GET/PUT /api/admin/cloud: the
// settings without the password or the S3 secret, which are never
// returned (hasPassword, s3.hasSecret).
type cloudSettingsDTO struct {
	Configured bool `json:"configured"`
	// Kind is webdav or s3.
	Kind string `json:"kind"`
	// S3 are the bucket's settings (kind s3).
	S3 *s3SettingsDTO `json:"s3,omitempty"`
	// BoxName is the box's own name, which S3 keys carry unless the
	// settings name the box otherwise.
	BoxName     string `json:"boxName"`
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

// s3SettingsDTO is an S3-compatible bucket's settings without the
// secret (hasSecret).
type s3SettingsDTO struct {
	Endpoint  string `json:"endpoint"`
	Region    string `json:"region"`
	Bucket    string `json:"bucket"`
	Prefix    string `json:"prefix"`
	BoxName   string `json:"boxName"`
	AccessKey string `json:"accessKey"`
	HasSecret bool   `json:"hasSecret"`
	// SecretLost: the stored secret was sealed by another box and must be
	// entered again.
	SecretLost bool   `json:"secretLost,omitempty"`
	PathStyle  bool   `json:"pathStyle"`
	PublicURL  string `json:"publicUrl"`
}

func (s *API) toCloudSettingsDTO(c store.CloudSettings, ok bool) cloudSettingsDTO {
	if !ok {
		return cloudSettingsDTO{Kind: store.CloudWebDAV, Folder: Folder(""), BoxName: s.cfg.BoxName}
	}
	d := cloudSettingsDTO{Configured: true, Kind: c.Target(), BoxName: s.cfg.BoxName, URL: c.URL, User: c.User,
		Folder: Folder(c.Folder), AutoExport: c.AutoExport, HasPassword: c.Password != "",
		PasswordLost: c.PasswordLost && c.Password == "", GuestLink: c.GuestLink, GuestLinkPassword: c.GuestLinkPassword}
	if c.S3 != nil {
		d.S3 = &s3SettingsDTO{Endpoint: c.S3.Endpoint, Region: c.S3.Region, Bucket: c.S3.Bucket, Prefix: c.S3.Prefix,
			BoxName: c.S3.BoxName, AccessKey: c.S3.AccessKey, HasSecret: c.S3.Secret != "",
			SecretLost: c.S3.SecretLost && c.S3.Secret == "", PathStyle: c.S3.PathStyle, PublicURL: c.S3.PublicURL}
	}
	return d
}

// cloudSettingsRequest is the body of PUT /api/admin/cloud and of its
// test. An empty or absent password or secret keeps the stored one.
type cloudSettingsRequest struct {
	// Kind is webdav (also when absent) or s3.
	Kind string `json:"kind"`
	// S3 are the bucket's settings (kind s3).
	S3         *s3SettingsRequest `json:"s3"`
	URL        string             `json:"url"`
	User       string             `json:"user"`
	Password   string             `json:"password"`
	Folder     string             `json:"folder"`
	AutoExport bool               `json:"autoExport"`
	// GuestLink (optional) is a public link of the export folder made on
	// the cloud, for the guests' mail; GuestLinkPassword its password.
	GuestLink         string `json:"guestLink"`
	GuestLinkPassword string `json:"guestLinkPassword"`
}

// s3SettingsRequest are the bucket's settings of a request.
type s3SettingsRequest struct {
	Endpoint  string `json:"endpoint"`
	Region    string `json:"region"`
	Bucket    string `json:"bucket"`
	Prefix    string `json:"prefix"`
	BoxName   string `json:"boxName"`
	AccessKey string `json:"accessKey"`
	Secret    string `json:"secret"`
	PathStyle bool   `json:"pathStyle"`
	PublicURL string `json:"publicUrl"`
}

// bucketName is S3's rule for a bucket's name: 3 to 63 lower-case
// letters, digits, dots and dashes, starting and ending with a letter or
// a digit.
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// settings validates the bucket's settings into details (keys
// "s3.endpoint", …) and merges them with the stored ones (the stored
// secret when the request has none).
func (req s3SettingsRequest) settings(stored *store.S3Settings, details map[string]string) *store.S3Settings {
	endpoint := strings.TrimSpace(req.Endpoint)
	raw := endpoint
	if raw != "" && !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" || len(endpoint) > 500 {
		details["s3.endpoint"] = "must be the store's address, such as https://s3.eu-central-1.amazonaws.com, without a path"
	}
	if len(req.Region) > 64 || strings.ContainsAny(req.Region, " /\\") {
		details["s3.region"] = "must be a region such as eu-central-1, or empty"
	}
	if !bucketName.MatchString(strings.TrimSpace(req.Bucket)) {
		details["s3.bucket"] = "must be a bucket's name: 3 to 63 lower-case letters, digits, dots and dashes"
	}
	if len(req.Prefix) > 300 || strings.ContainsAny(req.Prefix, "\\\x00") {
		details["s3.prefix"] = "must be a key prefix such as events, at most 300 characters"
	}
	if len(req.BoxName) > 100 || strings.ContainsAny(req.BoxName, "/\\\x00") {
		details["s3.boxName"] = "must be a name without slashes, at most 100 characters"
	}
	if strings.TrimSpace(req.AccessKey) == "" || len(req.AccessKey) > 200 {
		details["s3.accessKey"] = "must be the access key's id, at most 200 characters"
	}
	if len(req.Secret) > 500 {
		details["s3.secret"] = "must be at most 500 characters"
	}
	if p := strings.TrimSpace(req.PublicURL); p != "" && (len(p) > 2000 || !mail.Reachable(p)) {
		details["s3.publicUrl"] = "must be a public https:// address that opens from the internet"
	}
	out := &store.S3Settings{Endpoint: endpoint, Region: strings.TrimSpace(req.Region), Bucket: strings.TrimSpace(req.Bucket),
		Prefix: s3store.Key(req.Prefix), BoxName: s3store.Key(req.BoxName), AccessKey: strings.TrimSpace(req.AccessKey),
		Secret: req.Secret, PathStyle: req.PathStyle, PublicURL: strings.TrimRight(strings.TrimSpace(req.PublicURL), "/")}
	if out.Secret == "" && stored != nil {
		out.Secret, out.SecretSealed, out.SecretLost = stored.Secret, stored.SecretSealed, stored.SecretLost
	}
	if out.Secret == "" && len(out.SecretSealed) == 0 {
		details["s3.secret"] = "enter the secret key"
	}
	return out
}

// settings validates the request and merges it with the stored settings.
func (req cloudSettingsRequest) settings(stored store.CloudSettings) (store.CloudSettings, error) {
	switch req.Kind {
	case "", store.CloudWebDAV:
	case store.CloudS3:
		details := map[string]string{}
		if req.S3 == nil {
			return store.CloudSettings{}, web.Field("s3", "the bucket's settings are missing")
		}
		s3 := req.S3.settings(stored.S3, details)
		if len(details) > 0 {
			return store.CloudSettings{}, web.BadRequest(details)
		}
		return store.CloudSettings{Kind: store.CloudS3, S3: s3, Folder: Folder(req.Folder), AutoExport: req.AutoExport}, nil
	default:
		return store.CloudSettings{}, web.Field("kind", "must be webdav or s3")
	}
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
	c := store.CloudSettings{Kind: store.CloudWebDAV, URL: strings.TrimSpace(req.URL), User: req.User, Password: req.Password,
		Folder: Folder(req.Folder), AutoExport: req.AutoExport, GuestLink: strings.TrimSpace(req.GuestLink)}
	if c.GuestLink != "" {
		c.GuestLinkPassword = req.GuestLinkPassword
	}
	if c.Password == "" {
		c.Password, c.PasswordSealed, c.PasswordLost = stored.Password, stored.PasswordSealed, stored.PasswordLost
	}
	return c, nil
}

// Settings answers the cloud settings, without the password or the secret
// (GET /api/admin/cloud).
func (s *API) Settings(w http.ResponseWriter, r *http.Request) error {
	c, ok, err := s.store.Cloud().Settings(r.Context())
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, s.toCloudSettingsDTO(c, ok))
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
	return web.JSON(w, r, http.StatusOK, s.toCloudSettingsDTO(c, true))
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
// step that failed in the server's own words; for S3, each of the three
// steps (write, read, delete) and how it went.
type cloudTestBody struct {
	OK      bool           `json:"ok"`
	Message string         `json:"message,omitempty"`
	Steps   []cloudTestRun `json:"steps,omitempty"`
}

// cloudTestRun is one step of the settings test: passed, failed, or not
// reached after a failed one.
type cloudTestRun struct {
	// Step is write, read or delete.
	Step string `json:"step"`
	// Result is ok, failed or skipped.
	Result string `json:"result"`
}

// cloudTestTimeout bounds the whole test.
const cloudTestTimeout = 30 * time.Second

// TestSettings checks the settings of the body (the stored password or
// secret when it has none): on WebDAV, the folder exists or can be made,
// and a small file can be written there, read back and removed; on S3, a
// small object can be written under the box's prefix, read back and
// removed, each step reported.
func (s *API) TestSettings(w http.ResponseWriter, r *http.Request) error {
	c, err := s.settingsOf(r)
	if err != nil {
		return err
	}
	if lost := secretLost(c); lost != nil {
		return web.JSON(w, r, http.StatusOK, cloudTestBody{Message: lost.Error()})
	}
	ctx, cancel := context.WithTimeout(r.Context(), cloudTestTimeout)
	defer cancel()
	if c.Target() == store.CloudS3 {
		return web.JSON(w, r, http.StatusOK, s.testBucket(ctx, c))
	}
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

// testBucket runs the S3 settings test under <prefix>/<box name>.
func (s *API) testBucket(ctx context.Context, c store.CloudSettings) cloudTestBody {
	steps := []string{s3store.StepWrite, s3store.StepRead, s3store.StepDelete}
	names := []string{"write", "read", "delete"}
	body := cloudTestBody{OK: true}
	failed := len(steps)
	b, err := s.cfg.Bucket(s3Settings(c.S3))
	if err == nil {
		err = b.Test(ctx, s3store.Key(c.S3.Prefix, boxNameOf(c, s.cfg.BoxName)))
	}
	if err != nil {
		s.log.InfoContext(ctx, "cloud test failed", "error", err)
		body.OK, body.Message, failed = false, Words(err), 0
		var e *s3store.Error
		if errors.As(err, &e) {
			for i, st := range steps {
				if e.Op == st {
					failed = i
				}
			}
		}
	}
	for i, n := range names {
		result := "ok"
		switch {
		case i == failed:
			result = "failed"
		case i > failed:
			result = "skipped"
		}
		body.Steps = append(body.Steps, cloudTestRun{Step: n, Result: result})
	}
	return body
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
	// hosts' cloud), "public" (index.html under the public address of the
	// bucket's prefix), "presigned" (a page of the S3 export whose links
	// the box signs, valid 7 days), "pasted" (the link pasted in the cloud settings) or
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
	case ok && c.Target() == store.CloudS3 && c.S3.PublicURL != "":
		body.Link = "public"
	case ok && c.Target() == store.CloudS3:
		body.Link = "presigned"
	case ok:
		if _, _, share := shareAPI(c.URL, Folder(c.Folder)); share {
			body.Link = "cloud"
		}
	}
	return web.JSON(w, r, http.StatusOK, body)
}
