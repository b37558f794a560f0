package events

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"strconv"
	"strings"

	"eventbox/daemon/mediafile"
	"eventbox/daemon/web"
	"eventbox/qr"
	"eventbox/store"
)

// defaultQRSize is the side of a QR code when the request names none.
const defaultQRSize = 1024

// QR draws the event's QR code, or with spot= a place's code
// captioned with its name, styled by the event's qrStyle: PNG (default) or
// SVG, size×size (512 to 4096, default 1024); download=1 makes it an
// attachment. The code holds <origin>/e/<slug>, or …?at=<spot id>.
func (a *API) QR(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var err error
	q := r.URL.Query()
	details := map[string]string{}
	format := q.Get("format")
	if format == "" {
		format = "png"
	}
	if format != "png" && format != "svg" {
		details["format"] = "must be png or svg"
	}
	size := defaultQRSize
	if q.Has("size") {
		n, err := strconv.Atoi(q.Get("size"))
		if err != nil || n < qr.MinSize || n > qr.MaxSize {
			details["size"] = fmt.Sprintf("must be a whole number from %d to %d", qr.MinSize, qr.MaxSize)
		}
		size = n
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	content := a.origin(r) + "/e/" + e.Slug
	caption, fileName := "", mediafile.SafeName(e.Name)
	if fileName == "" {
		fileName = e.Slug
	}
	if id := q.Get("spot"); id != "" {
		if !store.ValidID(id) {
			return web.ErrNotFound
		}
		sp, err := a.store.Spots().Get(r.Context(), e.ID, id)
		if err != nil {
			return err
		}
		content += "?at=" + sp.ID
		caption = sp.Label
		if n := mediafile.SafeName(sp.Label); n != "" {
			fileName += "-" + n
		}
	}
	st := a.QRStyle(r.Context(), e)
	var buf bytes.Buffer
	h := w.Header()
	if format == "svg" {
		err = a.cfg.QR.SVG(&buf, content, size, st, caption)
		h.Set("Content-Type", "image/svg+xml; charset=utf-8")
		// The SVG is ours, but it is served from the site's own origin:
		// nothing in it may run or load.
		h.Set("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
	} else {
		err = a.cfg.QR.PNG(&buf, content, size, st, caption)
		h.Set("Content-Type", "image/png")
	}
	if err != nil {
		h.Del("Content-Type")
		h.Del("Content-Security-Policy")
		return fmt.Errorf("drawing qr code of event %s: %w", e.ID, err)
	}
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	if q.Get("download") == "1" {
		h.Set("Content-Disposition", mediafile.ContentDisposition(fileName+"-qr."+format))
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		a.log.DebugContext(r.Context(), "sending qr code", "error", err)
	}
	return nil
}

// QRStyle turns the event's qrStyle into the renderer's. Stored colours
// passed the same rule when they were saved; should they not parse or
// pass now, the code falls back to black on white rather than fail. The
// logo is used when qrStyle.logo is on and the event has one.
func (a *API) QRStyle(ctx context.Context, e store.Event) qr.Style {
	st := qr.DefaultStyle()
	fg, err1 := qr.ParseColor(e.QRStyle.Foreground)
	bg, err2 := qr.ParseColor(e.QRStyle.Background)
	if err1 == nil && err2 == nil && qr.ValidateColors(fg, bg) == nil {
		st.Foreground, st.Background = fg, bg
	} else {
		a.log.WarnContext(ctx, "qr colours unusable, drawing black on white", "event", e.ID,
			"foreground", e.QRStyle.Foreground, "background", e.QRStyle.Background)
	}
	st.Round = strings.EqualFold(e.QRStyle.Dots, "round")
	if e.QRStyle.Logo && e.LogoVersion != 0 {
		if logo, err := a.loadLogo(e); err != nil {
			a.log.WarnContext(ctx, "qr code drawn without its logo", "event", e.ID, "error", err)
		} else {
			st.Logo = logo
		}
	}
	return st
}

// loadLogo decodes the event's stored logo.
func (a *API) loadLogo(e store.Event) (image.Image, error) {
	f, err := a.store.Media().Open(e.LogoName())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("decoding logo %s: %w", e.LogoName(), err)
	}
	return m, nil
}
