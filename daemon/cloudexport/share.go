package cloudexport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"eventbox/daemon/passwords"
	"eventbox/s3store"
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
	if x.ShareURL != "" && !presignedEnding(x.ShareURL, s.now()) {
		return GuestLink{URL: x.ShareURL, Password: x.SharePassword}, nil
	}
	if expires == 0 {
		expires = s.now().Add(30 * 24 * time.Hour).UnixMilli()
	}
	if settings.Target() == store.CloudS3 {
		return s.bucketLink(ctx, settings, *x, expires)
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

// bucketLink answers the guests' link to an S3 export, kept on the export:
// the event's index.html under the public address the hosts gave their
// prefix, or else a page of the export written beside it whose every link
// is presigned (S3's limit: 7 days at most, and expires if sooner), itself
// presigned. A presigned index.html alone would not do: the files it
// links to by name need keys of their own.
func (s *Exporter) bucketLink(ctx context.Context, c store.CloudSettings, x store.Export, expires int64) (GuestLink, error) {
	var link string
	if c.S3.PublicURL != "" {
		rel := strings.TrimPrefix(x.Folder, s3store.Key(c.S3.Prefix)+"/")
		link = c.S3.PublicURL + "/" + (&url.URL{Path: rel + "/index.html"}).EscapedPath()
	} else {
		d := min(s3store.MaxPresign, time.UnixMilli(expires).Sub(s.now()))
		if d < time.Hour {
			d = time.Hour
		}
		b, err := s.cfg.Bucket(s3Settings(c.S3))
		if err != nil {
			return GuestLink{}, err
		}
		if link, err = s.presignedPage(ctx, b, x, d); err != nil {
			return GuestLink{}, err
		}
	}
	var kept store.Export
	var err error
	if x.ShareURL != "" {
		// The presigned link kept ends within a day: a new one replaces
		// it, unless another caller replaced it first.
		kept, err = s.store.Cloud().RenewExportShare(ctx, x.EventID, x.ID, x.ShareURL, link)
	} else {
		kept, err = s.store.Cloud().SetExportShare(ctx, x.EventID, x.ID, link, "")
	}
	if err != nil {
		return GuestLink{}, err
	}
	s.log.InfoContext(ctx, "export linked for the guests", "event", x.EventID, "export", x.ID, "public", c.S3.PublicURL != "")
	return GuestLink{URL: kept.ShareURL, Password: kept.SharePassword}, nil
}

// GuestPageName is the page of an S3 export whose links are presigned,
// written beside index.html for the guests' mail.
const GuestPageName = "guests.html"

// presignedPage writes the export's page of presigned links and answers
// its own presigned link, valid for d.
func (s *Exporter) presignedPage(ctx context.Context, b *s3store.Bucket, x store.Export, d time.Duration) (string, error) {
	files, err := b.List(ctx, x.Folder)
	if err != nil {
		return "", fmt.Errorf("listing the export for the guests' page: %w", err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if name != GuestPageName && name != ManifestName && !strings.HasPrefix(name, ".") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	// The page says the event's name and language, as index.html does.
	title, lang := path.Base(x.Folder), "en"
	if e, err := s.store.Events().Get(ctx, x.EventID); err == nil {
		title = e.Name
		if e.DefaultLocale != "" {
			lang = e.DefaultLocale
		}
	}
	var page strings.Builder
	page.WriteString("<!doctype html>\n<html lang=\"" + html.EscapeString(lang) + "\"><head><meta charset=\"utf-8\">" +
		"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">" +
		"<title>" + html.EscapeString(title) + "</title>\n<style>body{font-family:system-ui,sans-serif;margin:1rem}" +
		"main{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:.75rem}" +
		"img,video{width:100%;height:220px;object-fit:cover;border-radius:4px;background:#ddd}</style></head>\n<body>\n<h1>" +
		html.EscapeString(title) + "</h1>\n<main>\n")
	var rest []string
	for _, name := range names {
		link, err := b.Presign(ctx, s3store.Key(x.Folder, name), d)
		if err != nil {
			return "", err
		}
		href, label := html.EscapeString(link), html.EscapeString(name)
		switch strings.ToLower(path.Ext(name)) {
		case ".jpg", ".jpeg", ".png", ".webp", ".gif":
			fmt.Fprintf(&page, "<a href=\"%s\" aria-label=\"%s\"><img src=\"%s\" loading=\"lazy\" alt=\"\"></a>\n", href, label, href)
		case ".mp4", ".mov", ".webm":
			fmt.Fprintf(&page, "<a href=\"%s\" aria-label=\"%s\"><video src=\"%s\" preload=\"metadata\" controls></video></a>\n", href, label, href)
		default:
			if name != "index.html" {
				rest = append(rest, fmt.Sprintf("<li><a href=\"%s\">%s</a></li>", href, label))
			}
		}
	}
	page.WriteString("</main>\n")
	if len(rest) > 0 {
		page.WriteString("<ul>" + strings.Join(rest, "") + "</ul>\n")
	}
	page.WriteString("</body></html>\n")
	r := strings.NewReader(page.String())
	key := s3store.Key(x.Folder, GuestPageName)
	if _, err := b.Put(ctx, key, r, r.Size(), "text/html; charset=utf-8"); err != nil {
		return "", fmt.Errorf("writing the guests' page: %w", err)
	}
	return b.Presign(ctx, key, d)
}

// presignedEnding reports whether link is a presigned S3 link
// (X-Amz-Date and X-Amz-Expires) that ends within a day of now, or
// already ended: a mail sent now must carry a new one.
func presignedEnding(link string, now time.Time) bool {
	u, err := url.Parse(link)
	if err != nil {
		return false
	}
	q := u.Query()
	signed, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil {
		return false
	}
	secs, err := strconv.Atoi(q.Get("X-Amz-Expires"))
	if err != nil {
		return false
	}
	return signed.Add(time.Duration(secs) * time.Second).Before(now.Add(24 * time.Hour))
}
