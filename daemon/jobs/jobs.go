package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"eventbox/store"
)

// Handler runs one attempt of a job. It returns nil when the job is done,
// Permanent(err) when retrying cannot help, RetryAfter(d, err) to choose
// the wait before the next try, and any other error to be retried with the
// kind's backoff. It must return soon after ctx is cancelled.
type Handler func(ctx context.Context, j Job) error

// Kind registers a job kind with the runner.
type Kind struct {
	// Name is the kind's name in JobSpecs (store.ValidJobKind).
	Name string
	// Handler runs the jobs; must not be nil.
	Handler Handler
	// Concurrency is how many jobs of the kind run at once; 0 means 1.
	Concurrency int
	// Retry is the kind's retry policy; see Policy for the defaults.
	Retry Policy
	// DiedAlone runs a job whose previous attempt died with the process
	// on its own: the dispatcher lets the kind's other attempts end
	// before starting it and claims none until it ends. When a job takes
	// the process down, the jobs running beside it die too; run alone
	// they succeed, and only the culprit keeps dying and counting.
	DiedAlone bool
	// WakeOnSuccess makes a success of this kind a sign that the network
	// is back: it wakes the jobs waiting for a retry of every kind that
	// has WakeOnSuccess (Runner.Wake), so one delivery that goes through
	// brings the rest along instead of leaving them to a long backoff.
	WakeOnSuccess bool
}

// Policy says how a kind's failed jobs are retried and when they are set
// aside. A job is never retried for ever: when both MaxFailures and
// MaxAge are zero, MaxFailures is DefaultMaxFailures.
type Policy struct {
	// Base is the wait after the first failure; each failure doubles it
	// up to Cap. Zero means 10 s; zero Cap means 1 h.
	Base, Cap time.Duration
	// Jitter takes up to this fraction off each wait at random, so that
	// jobs failed together do not retry together. Zero means 0.2; a
	// negative value means none.
	Jitter float64
	// MaxFailures sets a job aside after this many failed attempts.
	MaxFailures int
	// MaxAge sets a job aside when its next try would fall later than
	// this after it was enqueued (a webhook's 48 h).
	MaxAge time.Duration
	// MaxDeaths sets a job aside after this many attempts were cut by
	// the process dying (power cut, out of memory). Zero means 3.
	MaxDeaths int
	// Timeout bounds one attempt; an attempt past it fails and is
	// retried. Zero means none.
	Timeout time.Duration
}

// Policy defaults.
const (
	DefaultBase        = 10 * time.Second
	DefaultCap         = time.Hour
	DefaultJitter      = 0.2
	DefaultMaxFailures = 10
	DefaultMaxDeaths   = 3
)

func (p Policy) withDefaults() Policy {
	if p.Base <= 0 {
		p.Base = DefaultBase
	}
	if p.Cap <= 0 {
		p.Cap = DefaultCap
	}
	if p.Cap < p.Base {
		p.Cap = p.Base
	}
	if p.Jitter == 0 {
		p.Jitter = DefaultJitter
	}
	p.Jitter = min(max(p.Jitter, 0), 1)
	if p.MaxFailures <= 0 && p.MaxAge <= 0 {
		p.MaxFailures = DefaultMaxFailures
	}
	if p.MaxDeaths <= 0 {
		p.MaxDeaths = DefaultMaxDeaths
	}
	return p
}

func (p Policy) limits() store.JobLimits {
	return store.JobLimits{MaxFailures: p.MaxFailures, MaxDeaths: p.MaxDeaths, MaxAge: p.MaxAge}
}

// Delay is the wait after the failures-th failure (from 1): Base doubled
// per earlier failure, at most Cap, less a random share of up to Jitter
// (r is uniform in [0, 1)). It applies the defaults of a zero Policy.
func (p Policy) Delay(failures int, r float64) time.Duration {
	p = p.withDefaults()
	d := p.Cap
	if shift := failures - 1; shift < 62 {
		if b := p.Base << max(shift, 0); b > 0 && b < p.Cap {
			d = b
		}
	}
	return d - time.Duration(p.Jitter*r*float64(d))
}

// Config holds the runner's dependencies.
type Config struct {
	// Store keeps the jobs; must not be nil. Its clock is the runner's:
	// due times, attempts and ages are all taken from it.
	Store *store.Store
	// Kinds are the kinds this runner works; names must be valid and
	// distinct. Jobs of other kinds stay queued.
	Kinds []Kind
	// Logger receives the runner's events; nil discards them.
	Logger *slog.Logger
	// Rand returns uniform numbers in [0, 1) for the jitter; nil means
	// math/rand/v2.Float64.
	Rand func() float64
	// Poll is how often each kind looks for due jobs without being told;
	// it bounds the delay of a job enqueued without Notify. Zero means
	// one minute.
	Poll time.Duration
	// KeepDone and KeepFailed are how long finished jobs stay listed;
	// zero means 7 and 30 days. The runner prunes once an hour.
	KeepDone, KeepFailed time.Duration
}

// Runner works the job queue: one dispatcher per kind claims due jobs up
// to the kind's concurrency and runs each attempt in its own goroutine,
// outside any transaction. It is safe for concurrent use; Run is called
// once.
type Runner struct {
	store *store.Store
	log   *slog.Logger
	rand  func() float64
	poll  time.Duration
	keep  [2]time.Duration
	kinds map[string]*kind
	order []string
	// onSuccess are the kinds with WakeOnSuccess, woken together.
	onSuccess []string
	inRun     atomic.Bool
	mu        sync.Mutex
	gen       uint64        // bumped by WaitIdle; guarded by mu
	change    chan struct{} // closed and replaced on every idle report; guarded by mu
}

// kind is a registered kind and its dispatcher's state.
type kind struct {
	Kind
	policy Policy
	nudge  chan struct{}
	// guarded by Runner.mu: the generation seen by the latest claim pass
	// and whether that pass found the kind idle.
	seen uint64
	idle bool
}

// New checks cfg and returns a runner; nothing runs before Run.
func New(cfg Config) (*Runner, error) {
	if cfg.Store == nil {
		return nil, errors.New("jobs: nil store")
	}
	r := &Runner{store: cfg.Store, log: cfg.Logger, rand: cfg.Rand, poll: cfg.Poll,
		keep: [2]time.Duration{cfg.KeepDone, cfg.KeepFailed}, kinds: map[string]*kind{},
		change: make(chan struct{})}
	if r.log == nil {
		r.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r.log = r.log.With("component", "jobs")
	if r.rand == nil {
		r.rand = rand.Float64
	}
	if r.poll <= 0 {
		r.poll = time.Minute
	}
	if r.keep[0] <= 0 {
		r.keep[0] = 7 * 24 * time.Hour
	}
	if r.keep[1] <= 0 {
		r.keep[1] = 30 * 24 * time.Hour
	}
	if err := r.Register(cfg.Kinds...); err != nil {
		return nil, err
	}
	return r, nil
}

// Register adds kinds to the runner, as Config.Kinds does: a service built
// after the runner (and given it) registers its kinds here. Names must be
// valid and distinct. Call it before Run, from the goroutine that builds
// the runner: the kinds are read without a lock once it runs.
func (r *Runner) Register(kinds ...Kind) error {
	if r.inRun.Load() {
		return errors.New("jobs: kinds registered after Run")
	}
	for _, k := range kinds {
		if !store.ValidJobKind(k.Name) {
			return fmt.Errorf("jobs: kind %q: %w", k.Name, store.ErrJobKind)
		}
		if k.Handler == nil {
			return fmt.Errorf("jobs: kind %s has no handler", k.Name)
		}
		if _, dup := r.kinds[k.Name]; dup {
			return fmt.Errorf("jobs: kind %s registered twice", k.Name)
		}
		k.Concurrency = max(k.Concurrency, 1)
		r.kinds[k.Name] = &kind{Kind: k, policy: k.Retry.withDefaults(), nudge: make(chan struct{}, 1)}
		r.order = append(r.order, k.Name)
		if k.WakeOnSuccess {
			r.onSuccess = append(r.onSuccess, k.Name)
		}
	}
	return nil
}

// Enqueue adds jobs on their own and tells their kinds. A job caused by a
// change in the store is enqueued by the store method making the change
// (in its transaction) and followed by Notify instead.
func (r *Runner) Enqueue(ctx context.Context, specs ...store.JobSpec) ([]uint64, error) {
	for _, sp := range specs {
		if _, ok := r.kinds[sp.Kind]; !ok {
			return nil, fmt.Errorf("enqueuing a %s job: kind not registered", sp.Kind)
		}
	}
	ids, err := r.store.Jobs().Enqueue(ctx, specs...)
	if err != nil {
		return nil, err
	}
	for _, sp := range specs {
		r.Notify(sp.Kind)
	}
	return ids, nil
}

// Notify tells the dispatchers of kinds (all when none are given) to look
// for due jobs now. It never blocks; unknown kinds are ignored.
func (r *Runner) Notify(kinds ...string) {
	if len(kinds) == 0 {
		kinds = r.order
	}
	for _, name := range kinds {
		if k, ok := r.kinds[name]; ok {
			// A nudged kind may have work that its latest report did not
			// see: WaitIdle waits for its next pass.
			r.mu.Lock()
			k.idle = false
			r.mu.Unlock()
			select {
			case k.nudge <- struct{}{}:
			default:
			}
		}
	}
}

// Wake makes the jobs of kinds (all registered kinds when none are given)
// that wait for a retry due now, and tells their dispatchers: call it when
// the network comes back. Jobs not yet tried keep their time. It answers
// how many jobs it moved.
func (r *Runner) Wake(ctx context.Context, kinds ...string) (int, error) {
	if len(kinds) == 0 {
		kinds = r.order
	}
	n, err := r.store.Jobs().Wake(ctx, kinds...)
	if err != nil {
		return 0, err
	}
	r.Notify(kinds...)
	return n, nil
}

// WaitIdle waits until, for every kind, no job is running and none is
// due, as seen by a look at the store that started after the call. Jobs
// queued for later do not count. It needs Run to be running and returns
// ctx's error if ctx ends first. Tests use it; so can a shutdown that
// wants to drain.
func (r *Runner) WaitIdle(ctx context.Context) error {
	r.mu.Lock()
	r.gen++
	g := r.gen
	r.mu.Unlock()
	r.Notify()
	for {
		r.mu.Lock()
		idle := true
		for _, k := range r.kinds {
			if k.seen < g || !k.idle {
				idle = false
				break
			}
		}
		ch := r.change
		r.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for idle jobs: %w", ctx.Err())
		}
	}
}

// report records a claim pass of k that started at generation g.
func (r *Runner) report(k *kind, g uint64, idle bool) {
	r.mu.Lock()
	k.seen, k.idle = g, idle
	close(r.change)
	r.change = make(chan struct{})
	r.mu.Unlock()
}

func (r *Runner) generation() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gen
}

// Run works the queue until ctx is cancelled, then waits for the running
// attempts (their context is cancelled too; each is recorded as
// interrupted and is due again at the next start) and returns nil. Run
// may be called only once.
func (r *Runner) Run(ctx context.Context) error {
	if !r.inRun.CompareAndSwap(false, true) {
		return errors.New("jobs: runner already ran")
	}
	var wg sync.WaitGroup
	for _, name := range r.order {
		k := r.kinds[name]
		wg.Go(func() { r.dispatch(ctx, k) })
	}
	wg.Go(func() { r.pruneLoop(ctx) })
	wg.Wait()
	return nil
}

// errorWait is how long a dispatcher waits after the store failed.
const errorWait = 5 * time.Second

// dispatch claims due jobs of k up to its concurrency, and sleeps until a
// job ends, a nudge, the next due time or the poll interval.
func (r *Runner) dispatch(ctx context.Context, k *kind) {
	done := make(chan struct{}, k.Concurrency)
	running := 0
	timer := time.NewTimer(r.poll)
	defer timer.Stop()
	alone := false // a job runs alone (Kind.DiedAlone)
	for {
		g := r.generation()
		wait, idle := r.poll, false
		for running < k.Concurrency && !alone && ctx.Err() == nil {
			c, err := r.store.Jobs().Claim(ctx, k.Name, k.policy.limits())
			if err != nil {
				r.log.ErrorContext(ctx, "claiming a job", "kind", k.Name, "error", err)
				wait = errorWait
				break
			}
			for _, j := range c.SetAside {
				r.log.WarnContext(ctx, "job set aside", "kind", k.Name, "job", j.ID, "key", j.Key, "reason", j.LastError)
			}
			if !c.Claimed {
				if c.Waiting {
					wait = min(wait, c.Next)
				}
				idle = running == 0
				break
			}
			if k.DiedAlone && diedLast(c.Job) {
				for ; running > 0; running-- {
					<-done
				}
				alone = true
			}
			running++
			go func() {
				defer func() { done <- struct{}{} }()
				_ = r.attempt(ctx, k, c.Job)
			}()
		}
		if ctx.Err() != nil {
			for ; running > 0; running-- {
				<-done
			}
			return
		}
		r.report(k, g, idle)
		timer.Reset(wait)
		select {
		case <-ctx.Done():
		case <-done:
			running--
			alone = alone && running > 0
		case <-k.nudge:
		case <-timer.C:
		}
	}
}

// diedLast reports whether the attempt before the one just claimed died
// with the process.
func diedLast(j store.Job) bool {
	n := len(j.Attempts)
	return n >= 2 && j.Attempts[n-2].Outcome == store.OutcomeDied
}

// KeyRun says what RunKey did.
type KeyRun int

// RunKey's answers.
const (
	// KeyNone: no unfinished job of the kind has the key (done, set
	// aside before or by this very claim, or never queued).
	KeyNone KeyRun = iota
	// KeyWaiting: the job is queued for later (a retry's wait).
	KeyWaiting
	// KeyBusy: another attempt is running the job.
	KeyBusy
	// KeyRan: the attempt ran; the error is the handler's.
	KeyRan
)

// RunKey runs the job of kind with key now, in the caller's goroutine,
// if it is queued and due: for a caller that needs that job's work done
// (a photo's thumbnail asked for before the queue reached it). The
// attempt is claimed, limited and recorded like one the dispatcher runs
// (the kind's Concurrency aside), and cancelling ctx interrupts it
// without charging it. It answers what it did and, when it ran the job,
// the handler's error; it works whether or not Run is running.
func (r *Runner) RunKey(ctx context.Context, kind, key string) (KeyRun, error) {
	k, ok := r.kinds[kind]
	if !ok {
		return KeyNone, fmt.Errorf("running a %s job: kind not registered", kind)
	}
	c, err := r.store.Jobs().ClaimByKey(ctx, kind, key, k.policy.limits())
	if err != nil {
		return KeyNone, err
	}
	for _, j := range c.SetAside {
		r.log.WarnContext(ctx, "job set aside", "kind", kind, "job", j.ID, "key", j.Key, "reason", j.LastError)
	}
	switch {
	case c.Busy:
		return KeyBusy, nil
	case c.Waiting:
		return KeyWaiting, nil
	case !c.Claimed:
		return KeyNone, nil
	}
	err = r.attempt(ctx, k, c.Job)
	r.Notify(kind) // its next due time may have changed
	return KeyRan, err
}

// attempt runs one claimed attempt of j, records how it ended and
// answers the handler's error.
func (r *Runner) attempt(ctx context.Context, k *kind, sj store.Job) error {
	actx := ctx
	if k.policy.Timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, k.policy.Timeout)
		defer cancel()
	}
	j := Job{Job: sj, runner: r, result: new(string)}
	log := r.log.With("kind", k.Name, "job", sj.ID, "key", sj.Key, "attempt", sj.Tries)
	log.DebugContext(ctx, "job started")
	err := call(actx, k.Handler, j)
	end := r.end(ctx, k, sj, err)
	end.Result = *j.result
	// The attempt is recorded even when the runner is stopping.
	fj, ferr := r.store.Jobs().Finish(context.WithoutCancel(ctx), sj.ID, sj.Tries, end, k.policy.limits())
	switch {
	case ferr != nil:
		log.ErrorContext(ctx, "recording a job's attempt", "error", ferr)
	case fj.Status == store.JobFailed:
		log.WarnContext(ctx, "job set aside", "error", fj.LastError)
	case end.Outcome == store.OutcomeError:
		log.InfoContext(ctx, "job failed; will retry", "error", end.Error, "in", end.RetryIn)
	default:
		log.DebugContext(ctx, "job ended", "outcome", end.Outcome)
	}
	if ferr == nil && end.Outcome == store.OutcomeOK && k.WakeOnSuccess {
		if n, err := r.Wake(ctx, r.onSuccess...); err != nil {
			log.WarnContext(ctx, "waking jobs after a success", "error", err)
		} else if n > 0 {
			log.InfoContext(ctx, "a success woke waiting jobs", "jobs", n)
		}
	}
	return err
}

// end turns a handler's answer into how the attempt ends.
func (r *Runner) end(ctx context.Context, k *kind, j store.Job, err error) store.JobEnd {
	if err == nil {
		return store.JobEnd{Outcome: store.OutcomeOK}
	}
	if ctx.Err() != nil {
		return store.JobEnd{Outcome: store.OutcomeInterrupted, Error: err.Error()}
	}
	var perm *permanentError
	if errors.As(err, &perm) {
		return store.JobEnd{Outcome: store.OutcomePermanent, Error: err.Error()}
	}
	wait := k.policy.Delay(j.Failures+1, r.rand())
	var ra *retryAfterError
	if errors.As(err, &ra) && ra.after > 0 {
		wait = ra.after
	}
	return store.JobEnd{Outcome: store.OutcomeError, Error: err.Error(), RetryIn: wait}
}

// call runs h, turning a panic into an error so one bad job cannot take
// the process (and every other job) down.
func call(ctx context.Context, h Handler, j Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return h(ctx, j)
}

// pruneInterval is how often finished jobs past their keep are removed.
const pruneInterval = time.Hour

func (r *Runner) pruneLoop(ctx context.Context) {
	t := time.NewTicker(pruneInterval)
	defer t.Stop()
	for {
		if n, err := r.store.Jobs().Prune(ctx, r.keep[0], r.keep[1]); err != nil {
			r.log.WarnContext(ctx, "pruning finished jobs", "error", err)
		} else if n > 0 {
			r.log.DebugContext(ctx, "finished jobs pruned", "jobs", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// WakeOnSuccessKinds returns the names of the kinds with WakeOnSuccess,
// the kinds that talk to the network: what to wake when it comes back.
func (r *Runner) WakeOnSuccessKinds() []string { return slices.Clone(r.onSuccess) }

// Kinds returns the names of the registered kinds, in registration order.
func (r *Runner) Kinds() []string { return slices.Clone(r.order) }
