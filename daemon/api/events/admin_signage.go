package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"eventbox/assets"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/web"
	"eventbox/i18n"
	"eventbox/qr"
	"eventbox/signage"
	"eventbox/store"
)

// signageQRSize is the pixel side of the QR codes put in a sign: sharp
// at 60 mm on an A3 poster (about 200 dpi).
const signageQRSize = 1024

// signageKinds maps the kind= values to the renderer's kinds; card and
// places are the names the first releases used for the same signs.
var signageKinds = map[string]string{
	"table": signage.Table, "card": signage.Table,
	"poster": signage.Poster,
	"place":  signage.Place, "places": signage.Place,
}

// Signage makes the event's printable signs as a PDF
// (docs/decisions.md, "Signage kit"): kind=table (size=a6, default, or
// a5), poster (size=a4, default, or a3) or place (A6 cards, one per
// place). Step 1 names the box's hotspot when it runs one; ssid= and
// wifiPassword= name another network, wifi=0 leaves the step out. The
// fixed texts are in lang=, else the event's language, else English.
func (a *API) Signage(w http.ResponseWriter, r *http.Request, e store.Event) error {
	q := r.URL.Query()
	pdf, size, err := a.SignagePDF(r.Context(), e, q, a.origin(r))
	if err != nil {
		return err
	}
	name := mediafile.SafeName(e.Name)
	if name == "" {
		name = e.Slug
	}
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(pdf)))
	h.Set("Content-Disposition", mediafile.ContentDisposition(fmt.Sprintf("%s-%s-%s.pdf", name, q.Get("kind"), size)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	if _, err := w.Write(pdf); err != nil {
		a.log.DebugContext(r.Context(), "sending signage", "error", err)
	}
	return nil
}

// SignagePDF makes the signs of event e that the query q asks for (the
// parameters of GET …/signage), with links starting at origin, and
// answers the PDF and its paper size; a bad parameter is a bad_request
// error. The console's download and the printer (daemon/printing) share
// it.
func (a *API) SignagePDF(ctx context.Context, e store.Event, q url.Values, origin string) ([]byte, string, error) {
	details := map[string]string{}
	kind, ok := signageKinds[q.Get("kind")]
	if !ok {
		details["kind"] = "must be table, poster or place"
	}
	size := strings.ToLower(q.Get("size"))
	switch {
	case kind == signage.Table && size == "":
		size = signage.A6
	case kind == signage.Poster && size == "":
		size = signage.A4
	case kind == signage.Table && size != signage.A6 && size != signage.A5:
		details["size"] = "must be a6 or a5 for a table card"
	case kind == signage.Poster && size != signage.A4 && size != signage.A3:
		details["size"] = "must be a4 or a3 for a poster"
	}
	// lang= is one language, or two for a mixed party ("fr,en": each
	// fixed text in French, then in English where both fit).
	lang, also, two := strings.Cut(q.Get("lang"), ",")
	if lang == "" && !two {
		lang = e.DefaultLocale
	}
	langs := store.Choice(i18n.Embedded().Codes())
	if (lang != "" || two) && !langs.Allows(lang) || two && (!langs.Allows(also) || also == lang) {
		details["lang"] = "must be " + langs.Phrase() + ", or two different ones, comma-separated (fr,en)"
	}
	ssid, password := q.Get("ssid"), q.Get("wifiPassword")
	if utf8.RuneCountInString(ssid) > 32 || len(ssid) > 32 {
		details["ssid"] = "must be at most 32 bytes"
	}
	if len(password) > 64 {
		details["wifiPassword"] = "must be at most 64 characters"
	}
	if password != "" && ssid == "" {
		details["ssid"] = "name the network of the password"
	}
	if len(details) > 0 {
		return nil, "", web.BadRequest(details)
	}
	if ssid == "" && q.Get("wifi") != "0" && a.cfg.HotspotWiFi != nil {
		ssid, password, _ = a.cfg.HotspotWiFi(ctx)
	}
	sheet, err := a.signageSheet(ctx, origin, e, kind, size, lang, ssid, password)
	if err != nil {
		return nil, "", err
	}
	sheet.Also = also
	rd, err := a.signageRenderer()
	if err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	if err := rd.Write(&buf, sheet); errors.Is(err, signage.ErrNoPlaces) {
		return nil, "", web.Field("kind", "the event has no places yet")
	} else if err != nil {
		return nil, "", fmt.Errorf("making signage of event %s: %w", e.ID, err)
	}
	return buf.Bytes(), size, nil
}

// signageSheet gathers what the signs of the event show.
func (a *API) signageSheet(ctx context.Context, origin string, e store.Event, kind, size, lang, ssid, password string) (signage.Sheet, error) {
	join := origin + "/e/" + e.Slug
	style := a.QRStyle(ctx, e)
	code := func(content string, st qr.Style) ([]byte, error) {
		var b bytes.Buffer
		if err := a.cfg.QR.PNG(&b, content, signageQRSize, st, ""); err != nil {
			return nil, fmt.Errorf("drawing a signage qr code: %w", err)
		}
		return b.Bytes(), nil
	}
	sheet := signage.Sheet{Kind: kind, Size: size, Lang: lang, Event: e.Name, URL: join, AccessCode: e.AccessCode, Date: a.now()}
	if c, err := qr.ParseColor(e.AccentColor); err == nil {
		sheet.Accent = c
	}
	var err error
	if sheet.QR, err = code(join, style); err != nil {
		return sheet, err
	}
	if e.LogoVersion != 0 {
		if b, err := a.readMedia(e.LogoName()); err != nil {
			a.log.WarnContext(ctx, "signage made without the logo", "event", e.ID, "error", err)
		} else {
			sheet.Logo = b
		}
	}
	if ssid != "" {
		png, err := code(signage.QRText(ssid, password), qr.DefaultStyle())
		if err != nil {
			return sheet, err
		}
		sheet.WiFi = &signage.WiFi{SSID: ssid, Password: password, QR: png}
	}
	if kind == signage.Place {
		spots, err := a.store.Spots().List(ctx, e.ID)
		if err != nil {
			return sheet, err
		}
		for _, sp := range spots {
			url := join + "?at=" + sp.ID
			png, err := code(url, style)
			if err != nil {
				return sheet, err
			}
			sheet.Spots = append(sheet.Spots, signage.Spot{Label: sp.Label, URL: url, QR: png})
		}
	}
	return sheet, nil
}

// readMedia reads a small media file (a logo) whole.
func (a *API) readMedia(name string) ([]byte, error) {
	f, err := a.store.Media().Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// signageRenderer opens the signage fonts the first time they are needed
// and keeps them.
func (a *API) signageRenderer() (*signage.Renderer, error) {
	a.signageOnce.Do(func() {
		a.signage, a.signageErr = signage.NewRenderer(assets.Fonts(), assets.CaptionFonts()...)
	})
	if a.signageErr != nil {
		return nil, fmt.Errorf("loading signage fonts: %w", a.signageErr)
	}
	return a.signage, nil
}
