package cloudexport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"eventbox/daemon/passwords"
	"eventbox/store"
)

// The guests' gallery link on the hosts' cloud
// (docs/decisions.md, "The gallery mail's link"): the box is offline, so the only gallery a
// guest can open from home is the cloud copy. After the export is done,
// the box shares the event's folder as a public link with a password and
// an expiry through the cloud's share API (Nextcloud's and ownCloud's OCS
// share API), or the hosts paste a link they made themselves.

// ErrLinkNotYet: the event's export is queued or running; the gallery
// mail waits for it.
var ErrLinkNotYet = errors.New("the cloud export of the event is not done yet")

// ErrNoCloudLink: there is no cloud copy guests could open: no export
// settings, no export of the event, or a failed one, and no pasted link.
// The mail waits for the hosts to set one up.
var ErrNoCloudLink = errors.New("no cloud copy of the event guests could open: set up the cloud export, or paste a public link of its folder")

// errNoShareAPI: the cloud has no share API the box knows.
var errNoShareAPI = errors.New("the cloud does not make public links for the box (not a Nextcloud or ownCloud server): paste a public link of the export folder in the cloud settings")

// shareTimeout bounds one call of the share API; maxShareReply its answer.
const (
	shareTimeout  = time.Minute
	maxShareReply = 64 << 10
)

// GuestLink is the gallery link of the guests' mail on the cloud.
type GuestLink struct {
	URL      string
	Password string
}

// GuestLink answers the cloud link of event e for its guests' mail:
// the pasted link of the settings, or a public share the box makes of the
// event's exported folder once its latest export is done (kept on the
// export, so every guest, and every retry, gets the same one). expires
// is the link's end (epoch ms; 0 = 30 days). ErrLinkNotYet while the
// export runs, ErrNoCloudLink without a cloud copy.
func (s *Exporter) GuestLink(ctx context.Context, e store.Event, expires int64) (GuestLink, error) {
	settings, ok, err := s.store.Cloud().Settings(ctx)
	if err != nil {
		return GuestLink{}, err
	}
	if !ok {
		return GuestLink{}, ErrNoCloudLink
	}
	exports, err := s.store.Cloud().Exports(ctx, e.ID)
	if err != nil {
		return GuestLink{}, err
	}
	var x *store.Export
	if len(exports) > 0 {
		x = &exports[0]
	}
	if x != nil && !x.Finished() {
		return GuestLink{}, ErrLinkNotYet
	}
	if settings.GuestLink != "" {
		return GuestLink{URL: settings.GuestLink, Password: settings.GuestLinkPassword}, nil
	}
	if x == nil || x.Status != store.ExportDone {
		return GuestLink{}, ErrNoCloudLink
	}
	if x.ShareURL != "" {
		return GuestLink{URL: x.ShareURL, Password: x.SharePassword}, nil
	}
	if expires == 0 {
		expires = s.now().Add(30 * 24 * time.Hour).UnixMilli()
	}
	link := GuestLink{Password: passwords.Generate()}
	link.URL, err = s.share(ctx, settings, x.Folder, link.Password, expires)
	if err != nil {
		return GuestLink{}, err
	}
	kept, err := s.store.Cloud().SetExportShare(ctx, x.EventID, x.ID, link.URL, link.Password)
	if err != nil {
		return GuestLink{}, err
	}
	s.log.InfoContext(ctx, "export folder shared", "event", e.ID, "export", x.ID)
	return GuestLink{URL: kept.ShareURL, Password: kept.SharePassword}, nil
}

// shareAPI answers the OCS share endpoint of a Nextcloud or ownCloud
// WebDAV address (…/remote.php/dav/files/<user>/… or
// …/remote.php/webdav/…) and the path, in the user's files, of folder
// under that address; ok is false for any other server.
func shareAPI(davURL, folder string) (endpoint, sharePath string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(davURL))
	if err != nil || u.Host == "" {
		return "", "", false
	}
	before, after, found := strings.Cut(u.Path, "/remote.php/")
	if !found {
		return "", "", false
	}
	rest := strings.Trim(after, "/")
	switch {
	case strings.HasPrefix(rest+"/", "dav/files/"):
		parts := strings.SplitN(strings.TrimPrefix(rest, "dav/files/"), "/", 2)
		rest = ""
		if len(parts) == 2 {
			rest = parts[1]
		}
	case strings.HasPrefix(rest+"/", "webdav/"):
		rest = strings.TrimPrefix(strings.TrimPrefix(rest, "webdav"), "/")
	default:
		return "", "", false
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment, u.User = before+"/ocs/v2.php/apps/files_sharing/api/v1/shares", "", "format=json", "", nil
	return u.String(), path.Join("/", rest, folder), true
}

// ocsReply is the part of an OCS answer the box reads.
type ocsReply struct {
	OCS struct {
		Meta struct {
			Status     string `json:"status"`
			StatusCode int    `json:"statuscode"`
			Message    string `json:"message"`
		} `json:"meta"`
		Data struct {
			URL string `json:"url"`
		} `json:"data"`
	} `json:"ocs"`
}

// share makes a read-only public link of folder with password, expiring
// at expires, and answers its address.
func (s *Exporter) share(ctx context.Context, settings store.CloudSettings, folder, password string, expires int64) (string, error) {
	endpoint, sharePath, ok := shareAPI(settings.URL, folder)
	if !ok {
		return "", errNoShareAPI
	}
	form := url.Values{"path": {sharePath}, "shareType": {"3"}, "permissions": {"1"}, "password": {password},
		"expireDate": {time.UnixMilli(expires).UTC().Format("2006-01-02")}}
	ctx, cancel := context.WithTimeout(ctx, shareTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("sharing the export folder: %w", err)
	}
	req.SetBasicAuth(settings.User, settings.Password)
	req.Header.Set("OCS-APIRequest", "true")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	client := &http.Client{Transport: s.cfg.ShareTransport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("sharing the export folder: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxShareReply))
	if err != nil {
		return "", fmt.Errorf("sharing the export folder: reading the answer: %w", err)
	}
	var r ocsReply
	if json.Unmarshal(body, &r) != nil || r.OCS.Meta.Status == "" {
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			return "", errNoShareAPI
		}
		return "", fmt.Errorf("sharing the export folder: the cloud answered %s, not a share", resp.Status)
	}
	if r.OCS.Meta.Status != "ok" || (r.OCS.Meta.StatusCode != 200 && r.OCS.Meta.StatusCode != 100) {
		return "", fmt.Errorf("sharing the export folder: the cloud refused (%d %s)", r.OCS.Meta.StatusCode, r.OCS.Meta.Message)
	}
	u, err := url.Parse(r.OCS.Data.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("sharing the export folder: the cloud answered no link (%q)", r.OCS.Data.URL)
	}
	return u.String(), nil
}
