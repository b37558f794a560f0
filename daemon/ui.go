package daemon

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"eventbox/i18n"
)

// uiFiles serves the embedded web interface. Each file's ETag is hashed
// once at start; browsers revalidate and get 304 while it is unchanged.
// Text files (pages, code, styles, catalogues) are compressed once at
// start too and sent gzipped to browsers that take it: about a quarter of
// the bytes on a crowded hotspot (docs/decisions/guests.md, "The first
// screen on a slow hotspot").
type uiFiles struct {
	fsys  fs.FS
	etags map[string]string // file path → quoted ETag
	gz    map[string][]byte // file path → its gzip, for the text files
}

// compressible reports whether a web file is text worth sending gzipped.
func compressible(name string) bool {
	switch path.Ext(name) {
	case ".html", ".js", ".css", ".json", ".svg":
		return true
	}
	return false
}

// Pages is the web interface prepared for serving: the pages' texts
// added from its catalogue (i18n.Web) and every file's ETag computed. It
// is read-only, and one may serve any number of daemons.
type Pages struct {
	files *uiFiles
}

// PreparePages prepares the web interface ui for serving; a nil ui serves
// no pages.
func PreparePages(ui fs.FS) (*Pages, error) {
	web, err := i18n.Web(ui)
	if err != nil {
		return nil, err
	}
	files, err := newUIFiles(web)
	if err != nil {
		return nil, err
	}
	return &Pages{files: files}, nil
}

func newUIFiles(fsys fs.FS) (*uiFiles, error) {
	u := &uiFiles{fsys: fsys, etags: map[string]string{}, gz: map[string][]byte{}}
	if fsys == nil {
		return u, nil
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		u.etags[p] = `"` + hex.EncodeToString(sum[:])[:20] + `"`
		if compressible(p) {
			var z bytes.Buffer
			zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
			if err != nil {
				return err
			}
			if _, err := zw.Write(b); err != nil {
				return err
			}
			if err := zw.Close(); err != nil {
				return err
			}
			if z.Len() < len(b) {
				u.gz[p] = z.Bytes()
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("hashing web files: %w", err)
	}
	return u, nil
}

// pageCSP is the Content-Security-Policy of every page (docs/decisions.md,
// "Pages"): scripts and styles only from the box's own files, never
// inline, so markup slipped into a caption or name cannot run; images and
// sound also from blob: (previews of what the phone is about to send) and
// data: (the two-factor QR code); no plugins, no framing, no <base>.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; font-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// page maps a page path to the HTML file that renders it (docs/design.md,
// "Pages"); the pages read the rest of the path themselves.
func page(p string) string {
	switch {
	case p == "/":
		return "index.html"
	case strings.HasPrefix(p, "/e/"):
		return "guest.html"
	case strings.HasPrefix(p, "/g/"):
		return "gallery.html"
	case strings.HasPrefix(p, "/wall/"):
		return "wall.html"
	case strings.HasPrefix(p, "/invite/"):
		return "admin.html"
	case p == "/admin" || strings.HasPrefix(p, "/admin/"):
		return "admin.html"
	case p == "/setup":
		return "setup.html"
	case p == "/portal":
		return "portal.html"
	}
	return ""
}

func (u *uiFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := page(r.URL.Path)
	if name == "" {
		name = strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	}
	etag, ok := u.etags[name]
	if !ok {
		http.Error(w, "page not found", http.StatusNotFound)
		return
	}
	h := w.Header()
	for _, l := range u.preloads(r, name) {
		h.Add("Link", l)
	}
	if z, ok := u.gz[name]; ok {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			u.headers(h, name, etag[:len(etag)-1]+`-gz"`)
			h.Set("Content-Encoding", "gzip")
			http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(z))
			return
		}
	}
	f, err := u.fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		http.Error(w, "page not found", http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, "page unavailable", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	body, err := io.ReadAll(f)
	if err != nil {
		http.Error(w, "page unavailable", http.StatusInternalServerError)
		return
	}
	u.headers(h, name, etag)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}

// headers sets what every answer of the web file name carries.
func (u *uiFiles) headers(h http.Header, name, etag string) {
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		h.Set("Content-Type", ct)
	}
	if strings.HasSuffix(name, ".html") {
		h.Set("Content-Security-Policy", pageCSP)
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
	}
}

// preloads are the Link headers that start, with the page itself, what
// its first screen waits for: for the guest page, the event's answer and
// the guest catalogue in English (every page's fallback) and in the
// language the browser asks for first, which is the one the page picks
// unless the guest chose another on this phone or the event has a default
// of its own. The page then shows the event's name after two round trips,
// not four (docs/decisions/guests.md, "The first screen on a slow
// hotspot"). A guess the page does not use costs one small download.
func (u *uiFiles) preloads(r *http.Request, name string) []string {
	if name != "guest.html" || r.URL.Query().Get("booth") != "" {
		return nil
	}
	slug := strings.ToLower(strings.TrimPrefix(r.URL.Path, "/e/"))
	if slug == "" || len(slug) > 64 || strings.Trim(slug, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return nil
	}
	out := []string{"</api/e/" + slug + ">; rel=preload; as=fetch; crossorigin=anonymous"}
	langs := []string{"en"}
	if l := u.browserLang(r.Header.Get("Accept-Language")); l != "" && l != "en" {
		langs = append(langs, l)
	}
	for _, l := range langs {
		out = append(out, "</locales/"+l+"/guest.json>; rel=preload; as=fetch; crossorigin=anonymous")
	}
	return out
}

// browserLang is the first language of an Accept-Language header the
// pages have a guest catalogue for, as the pages' pickLang matches the
// browser's languages (whole tag, then its first two letters), or "".
func (u *uiFiles) browserLang(accept string) string {
	for _, part := range strings.Split(accept, ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		tag = strings.ToLower(strings.TrimSpace(tag))
		for _, l := range []string{tag, tag[:min(2, len(tag))]} {
			if l == "" || strings.ContainsAny(l, "/.") {
				continue
			}
			if _, ok := u.etags["locales/"+l+"/guest.json"]; ok {
				return l
			}
		}
	}
	return ""
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip
// (and does not refuse it with q=0).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
				continue
			}
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
