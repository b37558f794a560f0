package daemon

import (
	"bytes"
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

	"eventbox/daemon/i18n"
)

// uiFiles serves the embedded web interface. Each file's ETag is hashed
// once at start; browsers revalidate and get 304 while it is unchanged.
type uiFiles struct {
	fsys  fs.FS
	etags map[string]string // file path → quoted ETag
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
	u := &uiFiles{fsys: fsys, etags: map[string]string{}}
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
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		u.etags[p] = `"` + hex.EncodeToString(h.Sum(nil))[:20] + `"`
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
	h := w.Header()
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
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}
