package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"eventbox/daemon/imaging"
	"eventbox/store"
)

// variantMaker makes the thumb and display of stored photos, off the
// request path: uploads queue a job in the store (in the transaction that
// stores the photo) and nudge the maker; a request for a variant that is
// not ready makes it at once. Each photo's variants are made once, however
// many ask at the same time (singleflight), and all image work goes
// through one pool bounded in workers and memory.
//
// Every attempt is counted in the store before it runs, so one the
// process dies in (out of memory in a decoder) counts too. A failed
// attempt waits retryDelay before the next; after store.VariantAttempts
// the photo is set aside and keeps its original only (docs/decisions.md,
// "Variant jobs that keep failing").
type variantMaker struct {
	store   *store.Store
	pool    *imaging.Pool
	log     *slog.Logger
	now     func() time.Time
	workers int
	group   singleflight.Group
	wake    chan struct{}
	// receiving counts upload bodies being received right now.
	receiving atomic.Int64
}

// maxYield bounds how long one background job waits for uploads to
// finish before it runs anyway, so thumbnails still come during a long
// burst.
const maxYield = 2 * time.Second

// receive marks an upload body as being received until the returned
// function is called. While any is, background variant jobs wait (up to
// maxYield each): the CPU goes first to guests waiting for an answer.
// Variants asked for by a request are made at once regardless.
func (v *variantMaker) receive() func() {
	v.receiving.Add(1)
	return func() { v.receiving.Add(-1) }
}

// yieldToUploads waits while uploads are being received, at most maxYield.
func (v *variantMaker) yieldToUploads(ctx context.Context) {
	deadline := time.Now().Add(maxYield)
	for v.receiving.Load() > 0 && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// defaultImageWorkers leaves a core for HTTP, the hotspot and the booth:
// min(CPUs-1, 3), at least 1 (docs/decisions.md, "Image pipeline").
func defaultImageWorkers() int {
	return max(1, min(runtime.NumCPU()-1, 3))
}

// newVariantMaker returns a maker over st; now is the clock of the retry
// times and must not be nil.
func newVariantMaker(st *store.Store, workers int, log *slog.Logger, now func() time.Time) *variantMaker {
	if workers <= 0 {
		workers = defaultImageWorkers()
	}
	pool := imaging.NewPool(imaging.PoolConfig{Workers: workers, Logger: log})
	return &variantMaker{store: st, pool: pool, log: log, now: now, workers: workers,
		wake: make(chan struct{}, 1)}
}

// Retry delays between failed attempts of a variant job: doubling from
// retryBase, capped at retryCap, each drawn between half and all of that
// so that photos failing together (a full disk) do not retry together.
const (
	retryBase = 30 * time.Second
	retryCap  = 15 * time.Minute
)

// retryDelay is the wait after the attempts-th failed attempt (1-based).
func retryDelay(attempts int) time.Duration {
	d := retryCap
	if attempts >= 1 && attempts <= 16 {
		d = min(retryBase<<(attempts-1), retryCap)
	}
	return d/2 + rand.N(d/2+1)
}

// nudge tells the maker new jobs are queued. It never blocks.
func (v *variantMaker) nudge() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// run works the queue until ctx is cancelled: at start (jobs left by a
// restart or power cut), on every nudge, when the earliest retry falls
// due, and each minute.
//
// At start, the jobs whose attempt the process died in run first, one at
// a time: several photos are decoded at once, and if one of them crashed
// the process the others were counted with it. Run alone, an innocent
// photo succeeds and only the culprit keeps crashing and counting.
func (v *variantMaker) run(ctx context.Context) {
	type job struct {
		id   string
		done *sync.WaitGroup
	}
	jobs := make(chan job)
	var workers sync.WaitGroup
	for range v.workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for j := range jobs {
				v.yieldToUploads(ctx)
				if err := v.ensure(ctx, j.id); err != nil && ctx.Err() == nil && !errors.Is(err, errNoVariants) {
					v.log.WarnContext(ctx, "making variants failed", "photo", j.id, "error", err)
				}
				j.done.Done()
			}
		}()
	}
	defer func() {
		close(jobs)
		workers.Wait()
	}()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for first := true; ; first = false {
		queued, err := v.store.VariantJobs(ctx)
		if err != nil {
			v.log.WarnContext(ctx, "reading variant jobs", "error", err)
		}
		if first {
			// Interrupted jobs first (stable: id order otherwise).
			slices.SortStableFunc(queued, func(a, b store.VariantJob) int {
				return b2i(b.InFlight) - b2i(a.InFlight)
			})
		}
		now := v.now().UnixMilli()
		var next int64 // the earliest retry time still to come, epoch ms
		var round sync.WaitGroup
		for _, q := range queued {
			if q.NextAt > now {
				if next == 0 || q.NextAt < next {
					next = q.NextAt
				}
				continue
			}
			round.Add(1)
			select {
			case jobs <- job{q.PhotoID, &round}:
			case <-ctx.Done():
				round.Done()
				return
			}
			if first && q.InFlight {
				round.Wait() // alone: see above
			}
		}
		round.Wait()
		var due <-chan time.Time
		var timer *time.Timer
		if next > 0 {
			timer = time.NewTimer(time.Duration(next-now) * time.Millisecond)
			due = timer.C
		}
		select {
		case <-ctx.Done():
		case <-v.wake:
		case <-t.C:
		case <-due:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// errNoVariants: the photo has no thumb or display to serve now: it is
// set aside, waits for a retry, or its attempt just failed. The original
// is kept.
var errNoVariants = errors.New("photo has no variants")

// ensure makes the variants of a photo unless they exist, in one attempt
// counted by the store (see variantMaker). It answers errNoVariants,
// without any image work, for a photo set aside or waiting for its
// retry, and (wrapping the cause) when the attempt fails. Cancelling ctx
// takes the attempt back: a shutdown is not the photo's fault.
func (v *variantMaker) ensure(ctx context.Context, id string) error {
	_, err, _ := v.group.Do(id, func() (any, error) {
		return nil, v.attempt(ctx, id)
	})
	return err
}

func (v *variantMaker) attempt(ctx context.Context, id string) error {
	p, job, err := v.store.StartVariantAttempt(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil // deleted: its job is dropped
	case errors.Is(err, store.ErrVariantsSetAside):
		if job.Attempts > 0 {
			v.log.WarnContext(ctx, "variants set aside; keeping the original only", "photo", id,
				"attempts", job.Attempts, "last_error", job.LastError)
		}
		return errNoVariants
	case errors.Is(err, store.ErrVariantJobNotDue):
		return errNoVariants
	case err != nil:
		return err
	case p.Variants:
		return nil
	}
	if job.Attempts > 1 {
		v.log.InfoContext(ctx, "retrying variants", "photo", id, "attempt", job.Attempts, "last_error", job.LastError)
	}
	err = v.make(ctx, p)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		if cerr := v.store.CancelVariantAttempt(context.WithoutCancel(ctx), id); cerr != nil {
			return errors.Join(err, cerr)
		}
		return err
	}
	delay := retryDelay(job.Attempts)
	aside, ferr := v.store.FailVariantAttempt(ctx, id, err.Error(), v.now().Add(delay).UnixMilli())
	if ferr != nil {
		return errors.Join(err, ferr)
	}
	if aside {
		v.log.WarnContext(ctx, "variants set aside; keeping the original only", "photo", id,
			"attempts", job.Attempts, "last_error", err)
	} else {
		v.log.WarnContext(ctx, "making variants failed; will retry", "photo", id,
			"attempt", job.Attempts, "retry_in", delay.Round(time.Second).String(), "error", err)
	}
	return fmt.Errorf("%w: %w", errNoVariants, err)
}

func (v *variantMaker) make(ctx context.Context, p store.Photo) error {
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
	out, err := v.pool.Make(ctx, f, st.Size())
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
	if err := v.store.FinishVariantJob(ctx, p.ID, true); errors.Is(err, store.ErrNotFound) {
		// The photo was deleted while its variants were made.
		return media.Remove(p.VariantName("thumb"), p.VariantName("display"))
	} else if err != nil {
		return err
	}
	v.log.DebugContext(ctx, "variants made", "photo", p.ID, "ms", time.Since(start).Milliseconds())
	return nil
}
