package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
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
type variantMaker struct {
	store   *store.Store
	pool    *imaging.Pool
	log     *slog.Logger
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

func newVariantMaker(st *store.Store, workers int, log *slog.Logger) *variantMaker {
	if workers <= 0 {
		workers = defaultImageWorkers()
	}
	pool := imaging.NewPool(imaging.PoolConfig{Workers: workers, Logger: log})
	return &variantMaker{store: st, pool: pool, log: log, workers: workers,
		wake: make(chan struct{}, 1)}
}

// nudge tells the maker new jobs are queued. It never blocks.
func (v *variantMaker) nudge() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// run works the queue until ctx is cancelled: at start (jobs left by a
// restart or power cut), on every nudge, and each minute.
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
	for {
		ids, err := v.store.VariantJobs(ctx)
		if err != nil {
			v.log.WarnContext(ctx, "reading variant jobs", "error", err)
		}
		var round sync.WaitGroup
		for _, id := range ids {
			round.Add(1)
			select {
			case jobs <- job{id, &round}:
			case <-ctx.Done():
				round.Done()
				return
			}
		}
		round.Wait()
		select {
		case <-ctx.Done():
			return
		case <-v.wake:
		case <-t.C:
		}
	}
}

// errNoVariants: the photo's image could not be decoded, so it has no
// thumb or display; the original is kept.
var errNoVariants = errors.New("photo has no variants")

// ensure makes the variants of a photo unless they exist.
func (v *variantMaker) ensure(ctx context.Context, id string) error {
	_, err, _ := v.group.Do(id, func() (any, error) {
		p, err := v.store.Photo(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			// Deleted: drop its job.
			if err := v.store.FinishVariantJob(ctx, id, true); !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if p.Variants {
			return nil, nil
		}
		if p.VariantsFailed {
			return nil, errNoVariants
		}
		return nil, v.make(ctx, p)
	})
	return err
}

func (v *variantMaker) make(ctx context.Context, p store.Photo) error {
	f, err := v.store.Media().Open(p.OriginalName())
	if err != nil {
		return fmt.Errorf("opening original of %s: %w", p.ID, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	start := time.Now()
	out, err := v.pool.Make(ctx, f, st.Size())
	if errors.Is(err, imaging.ErrCorrupt) || errors.Is(err, imaging.ErrUnsupported) || errors.Is(err, imaging.ErrTooLarge) {
		v.log.WarnContext(ctx, "photo cannot be decoded; keeping the original only", "photo", p.ID, "error", err)
		if err := v.store.FinishVariantJob(ctx, p.ID, false); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return errNoVariants
	}
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
