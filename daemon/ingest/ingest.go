package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"eventbox/imaging"
	"eventbox/store"
)

// Records is what ingest needs of the store's records: the retry lookup
// and the one transaction that adds a photo with its jobs. *store.Store
// implements it.
type Records interface {
	ByHash(ctx context.Context, eventID, guestID, fingerprint string) (store.Photo, error)
	Add(ctx context.Context, p store.Photo, quota int, jobs ...store.JobSpec) (store.AddPhotoResult, error)
}

// Config is what an Ingester needs.
type Config struct {
	// Records stores photo records; must not be nil.
	Records Records
	// Media is the media area the temp files and originals live in;
	// must not be nil.
	Media *store.Media
	// Logger must not be nil.
	Logger *slog.Logger
	// Jobs returns the jobs queued in the same transaction as a new
	// photo (its variant job); nil queues none.
	Jobs func(store.Photo) []store.JobSpec
	// Stored is called with each new photo once it is committed (it
	// wakes the variant runner and tells the open consoles); it may be
	// nil and must not block.
	Stored func(ctx context.Context, p store.Photo)
	// Zone is where a capture time that names no zone was taken (the
	// party's, which is the box's); nil means time.Local.
	Zone *time.Location
}

// Ingester receives uploads into the store. It is safe for concurrent
// use.
type Ingester struct {
	records Records
	media   *store.Media
	log     *slog.Logger
	jobs    func(store.Photo) []store.JobSpec
	stored  func(context.Context, store.Photo)
	zone    *time.Location
	// bufs holds the *formBuffers of forms read and done with.
	bufs sync.Pool
}

// New returns an Ingester.
func New(cfg Config) *Ingester {
	in := &Ingester{records: cfg.Records, media: cfg.Media, log: cfg.Logger, jobs: cfg.Jobs, stored: cfg.Stored}
	if in.jobs == nil {
		in.jobs = func(store.Photo) []store.JobSpec { return nil }
	}
	if in.stored == nil {
		in.stored = func(context.Context, store.Photo) {}
	}
	in.zone = cfg.Zone
	if in.zone == nil {
		in.zone = time.Local
	}
	return in
}

// Result is a stored upload.
type Result struct {
	// Photo is the photo record.
	Photo store.Photo
	// Existing reports a retry: Photo is the one stored the first time,
	// and nothing new was stored.
	Existing bool
}

// Photo checks the received file f of a photo form (field "photo") is a
// whole image, cuts off what follows it, and stores it as p: p carries
// the event, guest and status; Photo fills in the size, format and
// fingerprint. It takes f's temp file in every case. quota > 0 limits
// the guest's photos (store.ErrQuota).
func (in *Ingester) Photo(ctx context.Context, f File, p store.Photo, quota int) (Result, error) {
	defer f.Tmp.Abort()
	// Photos over the in-process memory budget are accepted: the pool
	// decodes them in a process of their own (imaging.CheckUpload).
	info, err := imaging.CheckUpload(f.Tmp.File, f.Size, f.end)
	if err != nil {
		return Result{}, imageError("photo", err)
	}
	if f.shared && info.End > 0 && info.End < f.Size {
		// An adopted upload stays whole until its answer is kept (a retry
		// after a crash must find the same bytes): the image is copied out
		// of it rather than cut in place.
		own, err := in.unshare(f.Tmp, info.End)
		if err != nil {
			return Result{}, err
		}
		f.Tmp.Abort()
		f.Tmp = own
		defer own.Abort()
	}
	size, err := in.cutTrailing(ctx, f.Tmp, info, f.Size)
	if err != nil {
		return Result{}, err
	}
	p.Width, p.Height, p.Format = info.Width, info.Height, string(info.Format)
	p.Size, p.Fingerprint = size, f.Fingerprint
	meta, err := imaging.ReadMetadata(f.Tmp.File, size, info.Format, in.zone)
	if err != nil {
		return Result{}, fmt.Errorf("reading the photo's metadata: %w", err)
	}
	p.TakenAt = meta.TakenAt
	return in.store(ctx, p, quota, []pending{{f.Tmp, store.Photo.OriginalName}})
}

// cutTrailing cuts off what follows the image in a received JPEG (the
// video of a motion photo, the second image of an MPO) and returns the
// size kept. The original is the image as sent, not what rides after it:
// no page shows that data, it would cost the card megabytes per photo,
// and nothing strips the position a video appended there may carry
// (docs/decisions.md, "Full card and server faults"). The fingerprint
// stays that of the bytes sent, so a retry still finds the photo.
func (in *Ingester) cutTrailing(ctx context.Context, tmp *store.TempFile, info imaging.Info, size int64) (int64, error) {
	if info.End <= 0 || info.End >= size {
		return size, nil
	}
	if err := tmp.Truncate(info.End); err != nil {
		return 0, fmt.Errorf("cutting data after the image: %w", err)
	}
	in.log.InfoContext(ctx, "data after the image cut off", "bytes", size-info.End)
	return info.End, nil
}

// imageError makes a refused image an InvalidImageError with a reason.
func imageError(field string, err error) error {
	switch {
	case errors.Is(err, imaging.ErrTooLarge):
		return &InvalidImageError{Field: field, Reason: "the image has too many pixels", Err: err}
	case errors.Is(err, imaging.ErrUnsupported), errors.Is(err, imaging.ErrCorrupt):
		return &InvalidImageError{Field: field, Reason: "must be a whole JPEG, PNG, WebP, HEIC or GIF image", Err: err}
	}
	return fmt.Errorf("checking image: %w", err)
}

// pending is a received file and the media name it takes once the photo
// has its id.
type pending struct {
	tmp  *store.TempFile
	name func(store.Photo) string
}

// store moves the received files into place and commits the record with
// its jobs. A retry of the same bytes by the same guest returns the photo
// stored the first time. Files committed for a record that is not stored
// (the commit failed, or a concurrent retry won) are removed.
func (in *Ingester) store(ctx context.Context, p store.Photo, quota int, files []pending) (Result, error) {
	if p.GuestID != "" {
		old, err := in.records.ByHash(ctx, p.EventID, p.GuestID, p.Fingerprint)
		if err == nil {
			return Result{Photo: old, Existing: true}, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return Result{}, fmt.Errorf("looking up a retried upload: %w", err)
		}
	}
	p.ID = store.NewID()
	var names []string
	removeFiles := func() {
		// No record points at these files: remove them.
		if err := in.media.Remove(names...); err != nil {
			in.log.WarnContext(ctx, "removing an unused upload", "error", err)
		}
	}
	for _, f := range files {
		name := f.name(p)
		if err := f.tmp.Commit(name); err != nil {
			removeFiles()
			return Result{}, err
		}
		names = append(names, name)
	}
	res, err := in.records.Add(ctx, p, quota, in.jobs(p)...)
	if err != nil || res.Existing {
		removeFiles()
	}
	if err != nil {
		return Result{}, fmt.Errorf("storing the photo record: %w", err)
	}
	if res.Existing {
		return Result{Photo: res.Photo, Existing: true}, nil
	}
	in.stored(ctx, res.Photo)
	in.log.InfoContext(ctx, "photo received", "event", p.EventID, "photo", res.Photo.ID, "bytes", p.Size)
	return Result{Photo: res.Photo}, nil
}
