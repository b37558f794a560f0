// Package variants makes the thumb and display of stored photos: the
// `variants` kind of the job runner, and the variants a request needs now.
package variants

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"eventbox/daemon/jobs"
	"eventbox/imaging"
	"eventbox/store"
)

// Maker makes the thumb and display of stored photos, as the
// "variants" kind of the job runner (daemon/jobs): uploads enqueue a job
// keyed by the photo id in the transaction that stores the photo and
// nudge the runner; a request for a variant that is not ready runs the
// photo's job at once (Runner.RunKey), or waits for the attempt already
// making it. Each photo's variants are made once, however many ask at the
// same time, and all image work goes through one pool bounded in workers
// and memory.
//
// The runner records every attempt before it runs, so one the process
// dies in (out of memory in a decoder) counts too; a failed attempt waits
// variantRetry's backoff before the next; after store.VariantAttempts
// failures, or as many deaths, the job is set aside and the store marks
// the photo, which keeps its original only (docs/decisions.md, "Variant
// jobs that keep failing").
type Maker struct {
	store   *store.Store
	pool    *imaging.Pool
	log     *slog.Logger
	workers int
	// runner works the kind (Config.Jobs).
	runner *jobs.Runner
	// made is told of a photo whose variants were just made
	// (Config.Made); it must not block.
	made func(context.Context, store.Photo)
	// group joins the requests asking for one photo at the same time.
	group singleflight.Group
	// making holds, for each photo an attempt is making now, a channel
	// closed when the attempt ends.
	mu     sync.Mutex
	making map[string]chan struct{}
	// previews holds the photos' previews already extracted (guarded by
	// mu); previewTurns bounds the extractions running at once.
	previews     *previews
	previewTurns chan struct{}
	// receiving counts upload bodies being received right now.
	receiving atomic.Int64
	// turns holds a slot per worker: an attempt takes one before it
	// yields to uploads and makes the variants, so that attempts asked
	// for by requests queue here too rather than in the pool, and each
	// yields just before its image work.
	turns chan struct{}
	// beforeOpen, when not nil, is called as an attempt starts, before the
	// original is opened: tests hold an attempt in flight with it.
	beforeOpen func(ctx context.Context, id string)
	// processed, when not nil, is told how long each photo's variants
	// took (Config.Processed).
	processed func(time.Duration)
	// cpuWanted reports whether goroutines are waiting for a CPU now
	// (imaging.GoroutinesWaitForCPU; tests set their own).
	cpuWanted func() bool
	// fresh counts the variant attempts running now, and freshAt is when
	// one last started or ended (Unix ns): a sharpen attempt waits for
	// both to be quiet (yieldToFresh).
	fresh   atomic.Int64
	freshAt atomic.Int64
	// previewOf extracts a preview: the pool's Preview, or with wait its
	// PreviewWaiting (tests set their own).
	previewOf func(ctx context.Context, r io.ReaderAt, size int64, wait bool) ([]byte, error)
}

// Config is what a Maker needs.
type Config struct {
	// Store holds the photos and their files.
	Store *store.Store
	// Workers is the size of the image worker pool; 0 picks
	// DefaultWorkers.
	Workers int
	// OutOfProcess makes the photos over the pool's memory budget in a
	// process of their own (imaging.PoolConfig.OutOfProcess); nil
	// leaves them to fail, and be set aside.
	OutOfProcess imaging.OutOfProcessMaker
	// Logger logs the attempts.
	Logger *slog.Logger
	// Made, when not nil, is told of a photo whose variants were just
	// made, rough or sharp (p is the record before: with no variants, or
	// with rough ones); it must not block.
	Made func(ctx context.Context, p store.Photo)
	// Processed, when not nil, is told how long each photo's variants
	// took (the media processing metric).
	Processed func(time.Duration)
	// Jobs is the runner that works the variant kind (register Kind with
	// it); it must not be nil before the maker is used.
	Jobs *jobs.Runner
}

// variantRetry is the variant kind's retry policy: waits doubling from
// 30 s to 15 min, each drawn between half and all of that so that photos
// failing together (a full disk) do not retry together, and set aside
// after store.VariantAttempts failures or deaths.
var variantRetry = jobs.Policy{
	Base:        30 * time.Second,
	Cap:         15 * time.Minute,
	Jitter:      0.5,
	MaxFailures: store.VariantAttempts,
	MaxDeaths:   store.VariantAttempts,
}

// maxYield bounds how long a photo's variants wait for uploads that keep
// the CPU busy, counted from when its job was queued, so that photos still
// reach the walls during a long burst (within 3 s of their upload's
// answer); the album's tile shows the camera's preview meanwhile
// (Preview). It was 10 s: after a restart in the middle of a party, the
// phones' resent uploads kept the CPU busy, each attempt waited its 10 s,
// and the walls were 18 s behind. It was counted from the attempt's
// start: at a party's peaks every attempt of a backlog waited its second
// again, the worker made a photo's variants a second and a fifth, and the
// walls fell 26 s behind (docs/decisions/images.md, "Image work gives way
// to uploads").
const maxYield = time.Second

// yieldTick is how often a waiting attempt looks again.
const yieldTick = 25 * time.Millisecond

// Receive marks an upload body as being received until the returned
// function is called. While any is and the uploads keep the CPU busy,
// each variant attempt, whether a background job or asked for by a
// request (a guest's album asking for the thumb of the photo just sent),
// waits up to maxYield once its turn among the workers comes: the CPU
// goes first to guests waiting for an answer. Uploads that only wait for
// the network (phones on the hotspot) leave the CPU free, and the
// variants are made at once (docs/decisions/images.md, "Image work gives
// way to uploads").
func (v *Maker) Receive() func() {
	v.receiving.Add(1)
	return func() { v.receiving.Add(-1) }
}

// yieldToUploads waits while uploads are being received and goroutines
// wait for a CPU, until the job queued at queued is maxYield old: a photo
// that waited that long in the queue already (a backlog at a party's
// peak) is made at once, so the yields delay a photo by at most maxYield
// and never slow the queue. A queued time in the future (the clock set
// back since) counts as now. The CPU counts as free once two looks in a
// row, yieldTick apart, find no goroutine waiting for it.
func (v *Maker) yieldToUploads(ctx context.Context, queued time.Time) {
	if now := time.Now(); queued.After(now) {
		queued = now
	}
	deadline := queued.Add(maxYield)
	idle := 0
	for v.receiving.Load() > 0 && idle < 2 && time.Now().Before(deadline) {
		if v.cpuWanted() {
			idle = 0
		} else {
			idle++
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(yieldTick):
		}
	}
}

// DefaultWorkers leaves a core for HTTP, the hotspot and the booth:
// min(CPUs-1, 3), at least 1 (docs/decisions.md, "Memory").
func DefaultWorkers() int {
	return max(1, min(runtime.NumCPU()-1, 3))
}

// New returns a maker with cfg; register its Kind with cfg.Jobs before
// the runner runs.
func New(cfg Config) *Maker {
	workers := cfg.Workers
	if workers <= 0 {
		workers = DefaultWorkers()
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	pc := imaging.PoolConfig{Workers: workers, Logger: log, OutOfProcess: cfg.OutOfProcess}
	if cfg.Store != nil {
		// The HEIC decoder's machine code, kept across restarts (not backed up).
		pc.HEICCacheDir = filepath.Join(cfg.Store.Dir(), "cache", "heic")
	}
	pool := imaging.NewPool(pc)
	return &Maker{store: cfg.Store, pool: pool, log: log, workers: workers, runner: cfg.Jobs,
		made: cfg.Made, processed: cfg.Processed, making: map[string]chan struct{}{},
		turns: make(chan struct{}, workers), previews: newPreviews(), previewTurns: make(chan struct{}, previewMakers),
		cpuWanted: imaging.GoroutinesWaitForCPU,
		previewOf: func(ctx context.Context, r io.ReaderAt, size int64, wait bool) ([]byte, error) {
			if wait {
				return pool.PreviewWaiting(ctx, r, size)
			}
			return pool.Preview(ctx, r, size)
		}}
}

// Pool is the image pool every image work of the daemon goes through
// (variants, and the JPEG copies of archives and exports).
func (v *Maker) Pool() *imaging.Pool { return v.pool }

// SharpenKind is the job kind that replaces a photo's rough variants with
// sharp ones (store.SharpenJobKind), one photo at a time, in the pool's
// slot beside the workers (imaging.Pool.MakeAside), and only when no
// photo waits for its first variants (yieldToFresh). Register it with the
// runner beside Kind.
func (v *Maker) SharpenKind() jobs.Kind {
	return jobs.Kind{Name: store.SharpenJobKind, Handler: v.sharpen, Concurrency: 1, Retry: variantRetry, DiedAlone: true}
}

// Kind is the job kind the maker works, as the runner registers it. A job
// whose attempt died with the process runs alone (jobs.Kind.DiedAlone):
// several photos are decoded at once, and if one of them crashed the
// process the others were counted with it.
func (v *Maker) Kind() jobs.Kind {
	return jobs.Kind{Name: store.VariantJobKind, Handler: v.handle, Concurrency: v.workers,
		Retry: variantRetry, DiedAlone: true}
}

// Jobs are the jobs to enqueue with a new photo: its variant job, unless
// it has its variants already.
func (v *Maker) Jobs(p store.Photo) []store.JobSpec {
	if p.Variants {
		return nil
	}
	return []store.JobSpec{store.VariantJobSpec(p.ID)}
}

// Nudge tells the runner new variant jobs are queued. It never blocks.
func (v *Maker) Nudge() { v.runner.Notify(store.VariantJobKind) }

// handle is one attempt at the variants of the photo j.Key.
func (v *Maker) handle(ctx context.Context, j jobs.Job) error {
	defer v.begin(j.Key)() // first: a request for the photo waits for this attempt
	p, err := v.store.Photos().Get(ctx, j.Key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil // deleted: nothing to make
	case err != nil:
		return err
	case p.Variants:
		return nil
	}
	v.fresh.Add(1)
	v.freshAt.Store(time.Now().UnixNano())
	defer func() {
		v.freshAt.Store(time.Now().UnixNano())
		v.fresh.Add(-1)
	}()
	if done, err := v.rough(ctx, p); done || err != nil {
		return err
	}
	select {
	case v.turns <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-v.turns }()
	v.yieldToUploads(ctx, time.UnixMilli(j.CreatedAt))
	if err := ctx.Err(); err != nil {
		return err
	}
	if j.Tries > 1 {
		v.log.InfoContext(ctx, "retrying variants", "photo", p.ID, "attempt", j.Tries, "last_error", j.LastError)
	}
	start := time.Now()
	err = v.make(ctx, p)
	if err == nil && v.processed != nil {
		v.processed(time.Since(start))
	}
	return err
}

// begin records that an attempt is making the photo id's variants, until
// the returned function is called.
func (v *Maker) begin(id string) func() {
	ch := make(chan struct{})
	v.mu.Lock()
	v.making[id] = ch
	v.mu.Unlock()
	return func() {
		v.mu.Lock()
		delete(v.making, id)
		v.mu.Unlock()
		close(ch)
	}
}

// ErrNoVariants: the photo has no thumb or display to serve now: it is
// set aside, waits for a retry, or its attempt just failed. The original
// is kept.
var ErrNoVariants = errors.New("photo has no variants")

// Ensure makes the variants of a photo unless they exist, for a request
// that needs them: it runs the photo's job now when it is due (an
// attempt counted like any other), or waits for the attempt running it.
// It answers ErrNoVariants, without any image work, for a photo set
// aside or waiting for its retry, and (wrapping the cause) when the
// attempt fails. Cancelling ctx takes the attempt back: a request that
// went away is not the photo's fault.
func (v *Maker) Ensure(ctx context.Context, id string) error {
	_, err, _ := v.group.Do(id, func() (any, error) {
		return nil, v.demand(ctx, id)
	})
	return err
}

// busyWait bounds how long a request waits for an attempt another
// caller has claimed to show up in making (it does at once).
const busyWait = 2 * time.Second

func (v *Maker) demand(ctx context.Context, id string) error {
	for deadline := time.Now().Add(busyWait); ; {
		ran, err := v.runner.RunKey(ctx, store.VariantJobKind, id)
		switch {
		case ran == jobs.KeyRan && err != nil:
			return fmt.Errorf("%w: %w", ErrNoVariants, err)
		case ran == jobs.KeyRan:
			return nil
		case err != nil:
			return err
		}
		if ran != jobs.KeyBusy || !v.waitMaking(ctx, id) || time.Now().After(deadline) {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := v.store.Photos().Get(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil // deleted
	case err != nil:
		return err
	case !p.Variants:
		return ErrNoVariants
	}
	return nil
}

// waitMaking waits for the attempt making the photo id's variants to
// end, and answers false then (or when ctx ends); when none is making
// them yet, it waits a moment and answers true: look again.
func (v *Maker) waitMaking(ctx context.Context, id string) bool {
	v.mu.Lock()
	ch := v.making[id]
	v.mu.Unlock()
	if ch == nil {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
			return true
		}
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
	return false
}

// rough gives a HEIC with a thumbnail item (every iPhone photo) rough
// variants at once: the item, decoded in milliseconds, as its thumb and
// display, and queues its sharpen job with them. Decoding the whole photo
// takes seconds of a core (about 3.5 s for 12 MP on one core of the
// machine the Pi 4 stand-in is made of), more than the photos of a busy
// party leave; the rough variants put it in the album and on the walls
// meanwhile. It answers false, and nothing done, for any other photo, and
// when the item cannot be had now.
func (v *Maker) rough(ctx context.Context, p store.Photo) (bool, error) {
	if p.Video != nil || p.Format != string(imaging.HEIC) {
		return false, nil
	}
	b, err := v.preview(ctx, p, true)
	if err != nil || b == nil {
		return false, nil // the whole photo, as for any other
	}
	media := v.store.Media()
	if _, err := media.Write(p.VariantName("thumb"), bytes.NewReader(b)); err != nil {
		return true, err
	}
	if _, err := media.Write(p.VariantName("display"), bytes.NewReader(b)); err != nil {
		return true, err
	}
	err = v.store.Photos().SetVariantsRough(ctx, p.ID)
	if errors.Is(err, store.ErrNotFound) {
		return true, media.Remove(p.VariantName("thumb"), p.VariantName("display"))
	} else if err != nil {
		return true, err
	}
	v.mu.Lock()
	v.previews.drop(p.ID)
	v.mu.Unlock()
	v.runner.Notify(store.SharpenJobKind)
	v.log.DebugContext(ctx, "rough variants made", "photo", p.ID)
	if v.made != nil {
		v.made(ctx, p)
	}
	return true, nil
}

// freshGap is how long after a variant attempt started or ended a
// sharpen attempt still waits: the runner claims the next due variant
// job within it.
const freshGap = 250 * time.Millisecond

// yieldToFresh waits while photos get their first variants: until no
// variant attempt has run for freshGap.
func (v *Maker) yieldToFresh(ctx context.Context) {
	for v.fresh.Load() > 0 || time.Since(time.Unix(0, v.freshAt.Load())) < freshGap {
		select {
		case <-ctx.Done():
			return
		case <-time.After(yieldTick):
		}
	}
}

// sharpen is one attempt at the sharp variants of the photo j.Key, which
// has rough ones: once no photo waits for its first variants, it makes
// them from the whole photo in the pool's slot beside the workers, and
// replaces the rough ones. A job set aside after its attempts leaves the
// photo rough.
func (v *Maker) sharpen(ctx context.Context, j jobs.Job) error {
	defer v.begin(j.Key)()
	p, err := v.store.Photos().Get(ctx, j.Key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return err
	case !p.VariantsRough:
		return nil
	}
	v.yieldToFresh(ctx)
	if err := ctx.Err(); err != nil {
		return err
	}
	start := time.Now()
	// Between its tiles it waits again while a new photo gets its
	// variants: a fresh attempt that yields to uploads would otherwise
	// find the CPU taken by this one.
	err = v.write(imaging.WithPause(ctx, v.yieldToFresh), p, v.pool.MakeAside)
	if err == nil && v.processed != nil {
		v.processed(time.Since(start))
	}
	return err
}

// Sharp makes the photo's sharp variants now unless it has them, for
// work that needs the whole photo's (the cloud export's JPEG copy of a
// HEIC, the printed album): Ensure, then the photo's sharpen job if its
// variants are rough. It answers ErrNoVariants as Ensure does, and when
// the sharpen job was set aside.
func (v *Maker) Sharp(ctx context.Context, id string) error {
	if err := v.Ensure(ctx, id); err != nil {
		return err
	}
	_, err, _ := v.group.Do("sharp "+id, func() (any, error) {
		for {
			p, err := v.store.Photos().Get(ctx, id)
			switch {
			case errors.Is(err, store.ErrNotFound):
				return nil, nil
			case err != nil:
				return nil, err
			case !p.VariantsRough:
				return nil, nil
			}
			ran, err := v.runner.RunKey(ctx, store.SharpenJobKind, id)
			switch {
			case ran == jobs.KeyRan && err != nil:
				return nil, fmt.Errorf("%w: %w", ErrNoVariants, err)
			case ran == jobs.KeyRan:
				return nil, nil
			case err != nil:
				return nil, err
			case ran == jobs.KeyBusy:
				v.waitMaking(ctx, id)
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				continue
			}
			// KeyWaiting or KeyNone: a failed attempt's retry is due
			// later, or the job was set aside.
			return nil, fmt.Errorf("%w: its sharpening failed and waits for a retry, or was set aside", ErrNoVariants)
		}
	})
	return err
}

func (v *Maker) make(ctx context.Context, p store.Photo) error {
	return v.write(ctx, p, v.pool.Make)
}

// write makes the photo's sharp variants with makeWith (the pool's Make
// or MakeAside), writes them over any rough ones and records them.
func (v *Maker) write(ctx context.Context, p store.Photo, makeWith func(context.Context, io.ReaderAt, int64) (imaging.Variants, error)) error {
	if v.beforeOpen != nil {
		v.beforeOpen(ctx, p.ID)
	}
	f, err := v.store.Media().Open(p.OriginalName())
	if err != nil {
		return fmt.Errorf("opening original of %s: %w", p.ID, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading original of %s: %w", p.ID, err)
	}
	start := time.Now()
	crashTestHook(f, st.Size())
	out, err := makeWith(ctx, f, st.Size())
	if err != nil {
		return fmt.Errorf("making variants of %s: %w", p.ID, err)
	}
	media := v.store.Media()
	if _, err := media.Write(p.VariantName("thumb"), bytes.NewReader(out.Thumb)); err != nil {
		return err
	}
	if _, err := media.Write(p.VariantName("display"), bytes.NewReader(out.Display)); err != nil {
		return err
	}
	err = v.store.Photos().SetVariantsMade(ctx, p.ID)
	if err == nil || errors.Is(err, store.ErrNotFound) {
		v.mu.Lock()
		v.previews.drop(p.ID) // the thumb replaces it
		v.mu.Unlock()
	}
	if errors.Is(err, store.ErrNotFound) {
		// The photo was deleted while its variants were made.
		return media.Remove(p.VariantName("thumb"), p.VariantName("display"))
	} else if err != nil {
		return err
	}
	v.log.DebugContext(ctx, "variants made", "photo", p.ID, "ms", time.Since(start).Milliseconds())
	if v.made != nil {
		v.made(ctx, p)
	}
	return nil
}
