package printing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/url"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/imaging"
	"eventbox/qr"
	"eventbox/store"
	"eventbox/text"
)

// photoPage gathers what a photo's print shows: the photo decoded at the
// size it prints at, and the frame's name, date, logo and code.
func (a *API) photoPage(ctx context.Context, pj store.PrintJob, pp paper, layout store.PrintLayout,
	e store.Event, ph store.Photo) (page, error) {
	pg := page{paper: pp, layout: layout, title: e.Name, date: eventDate(e)}
	photo, err := a.decode(ctx, pg, ph)
	if err != nil {
		return page{}, err
	}
	pg.photo = photo
	if layout.Frame && e.LogoVersion > 0 {
		if f, err := a.store.Media().Open(e.LogoName()); err == nil {
			if m, err := png.Decode(f); err == nil {
				pg.logo = m
			}
			f.Close()
		}
	}
	if layout.QR && a.cfg.QR != nil {
		link, err := a.galleryLink(ctx, e, pj.Origin)
		if err != nil {
			return page{}, err
		}
		var b bytes.Buffer
		st := qr.DefaultStyle()
		if err := a.cfg.QR.PNG(&b, link, qr.MinSize, st, ""); err != nil {
			return page{}, fmt.Errorf("drawing the print's code: %w", err)
		}
		if pg.qr, err = png.Decode(&b); err != nil {
			return page{}, fmt.Errorf("reading the print's code: %w", err)
		}
	}
	return pg, nil
}

// decode decodes ph at the size pg prints it at, through the image pool;
// a photo too large for the pool's budget prints from its display
// variant.
func (a *API) decode(ctx context.Context, pg page, ph store.Photo) (image.Image, error) {
	long := photoLong(pg, max(ph.Width, 1), max(ph.Height, 1))
	f, err := a.store.Media().Open(ph.OriginalName())
	if err != nil {
		return nil, jobs.Permanent(fmt.Errorf("opening photo %s: %w", ph.ID, err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading photo %s: %w", ph.ID, err)
	}
	m, err := a.cfg.Pool.Fit(ctx, f, fi.Size(), long)
	if err == nil {
		return m, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if !errors.Is(err, imaging.ErrTooLarge) && !errors.Is(err, imaging.ErrUnsupported) {
		return nil, jobs.Permanent(fmt.Errorf("decoding photo %s: %w", ph.ID, err))
	}
	d, derr := a.store.Media().Open(ph.VariantName("display"))
	if derr != nil {
		return nil, jobs.Permanent(fmt.Errorf("decoding photo %s: %w (and its display: %w)", ph.ID, err, derr))
	}
	defer d.Close()
	di, derr := d.Stat()
	if derr != nil {
		return nil, fmt.Errorf("reading the display of photo %s: %w", ph.ID, derr)
	}
	m, derr = a.cfg.Pool.Fit(ctx, d, di.Size(), long)
	if derr != nil {
		return nil, jobs.Permanent(fmt.Errorf("decoding the display of photo %s: %w", ph.ID, derr))
	}
	return m, nil
}

// eventDate is the event's date in its language, for the frame.
func eventDate(e store.Event) string {
	t, err := time.Parse("2006-01-02", e.EventDate)
	if err != nil {
		return ""
	}
	return text.Date(t, e.DefaultLocale)
}

// galleryLink is the link the print's code opens: the gallery link made
// when the event ended, or the event's guest page (its shared album).
func (a *API) galleryLink(ctx context.Context, e store.Event, origin string) (string, error) {
	if origin == "" {
		origin = a.cfg.DefaultOrigin
	}
	if e.EndShareID != "" {
		sh, err := a.store.Shares().Get(ctx, e.ID, e.EndShareID)
		if err == nil && !sh.ExpiredAt(a.now().UnixMilli()) {
			return origin + "/g/" + sh.Token, nil
		}
	}
	return origin + "/e/" + e.Slug, nil
}

// signageDocument makes the signs print pj asks for.
func (a *API) signageDocument(ctx context.Context, pj store.PrintJob) (io.ReadCloser, error) {
	if a.cfg.Documents == nil {
		return nil, jobs.Permanent(errors.New("the signs cannot be printed on this box"))
	}
	e, err := a.store.Events().Get(ctx, pj.EventID)
	if err != nil {
		return nil, jobs.Permanent(fmt.Errorf("the signs' event: %w", err))
	}
	q, err := url.ParseQuery(pj.Signs)
	if err != nil {
		return nil, jobs.Permanent(fmt.Errorf("the signs' query: %w", err))
	}
	origin := pj.Origin
	if origin == "" {
		origin = a.cfg.DefaultOrigin
	}
	pdf, _, err := a.cfg.Documents.Signage(ctx, e, q, origin)
	if err != nil {
		return nil, jobs.Permanent(fmt.Errorf("making the signs of event %s: %w", e.ID, err))
	}
	return io.NopCloser(bytes.NewReader(pdf)), nil
}

// tempDoc is a PDF in the temp area, removed when closed.
type tempDoc struct{ *store.TempFile }

func (d tempDoc) Close() error {
	d.Abort()
	return nil
}

// albumDocument writes the event's album to a temp file.
func (a *API) albumDocument(ctx context.Context, pj store.PrintJob) (io.ReadCloser, error) {
	if a.cfg.Documents == nil {
		return nil, jobs.Permanent(errors.New("the album cannot be printed on this box"))
	}
	e, err := a.store.Events().Get(ctx, pj.EventID)
	if err != nil {
		return nil, jobs.Permanent(fmt.Errorf("the album's event: %w", err))
	}
	tmp, err := a.store.Media().CreateTemp()
	if err != nil {
		return nil, err
	}
	if err := a.cfg.Documents.Album(ctx, e, tmp.File); err != nil {
		tmp.Abort()
		return nil, fmt.Errorf("making the album of event %s: %w", e.ID, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		tmp.Abort()
		return nil, fmt.Errorf("reading the album of event %s: %w", e.ID, err)
	}
	return tempDoc{tmp}, nil
}
