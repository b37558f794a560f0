// Package jobs runs eventbox's background work from one durable queue:
// image variants, mail, webhooks, the WebDAV export and backups. Jobs are
// records in the store (store/jobs.go, layout in store/doc.go), so they
// survive restarts and power cuts; this package registers what to do for
// each kind and runs the attempts.
//
// # Adding a kind
//
// Register a Kind with New, or with Runner.Register before Run (a service
// built over the runner registers its own kinds): a name, a Handler, a
// Concurrency and a retry Policy, and add the runner to the daemon's
// service group (it is a service.Service).
//
//	r, err := jobs.New(jobs.Config{Store: st, Logger: log, Kinds: []jobs.Kind{{
//		Name:        "webhook",
//		Concurrency: 2,
//		Retry:       jobs.Policy{Base: 30 * time.Second, Cap: time.Hour, MaxAge: 48 * time.Hour},
//		Handler:     deliverWebhook,
//	}}})
//
// A handler decodes its payload (Job.Decode), does the work, and answers:
//
//   - nil: done.
//   - Permanent(err): retrying cannot help (a 4xx answer, a bad address,
//     a record that is gone); the job is set aside at once.
//   - RetryAfter(d, err): failed; try again after d (a 429 or 503 with
//     Retry-After), still within the kind's limits.
//   - any other error: failed; try again after the kind's backoff.
//
// It must return soon after its ctx is cancelled (shutdown, or the
// Policy.Timeout of one attempt). A panic is a failure, not a crash.
// Job.SetResult attaches a short status (an SMTP reply, an HTTP status)
// to the attempt; Job.Report writes progress (done of total, a note, and
// a State to resume from) that the next attempt finds in Job.Progress, so
// an export interrupted at file 400 of 900 carries on from there. A
// handler must be idempotent: an attempt cut by a power cut after it sent
// its mail but before the runner recorded it is tried again.
//
// # Enqueuing
//
// A job caused by a change is enqueued in the transaction of that change:
// the store method making the change takes ...store.JobSpec and writes
// them with it (store/doc.go, "Jobs"), then the caller tells the runner
// with Notify(kind). A job that no change causes (a scheduled backup, a
// test) goes through Runner.Enqueue. A JobSpec's Key makes the job unique
// among the unfinished jobs of its kind (one variant job per photo, one
// export per event); RunAt schedules it for later.
//
// # How a job flows
//
// queued → running (claimed: one bbolt Update marks it running and adds
// an attempt, so two workers never run one job) → the handler runs
// outside any transaction → done, or queued again with a due time of
// Base·2^(failures−1), at most Cap, less up to Jitter of it at random, or
// failed (set aside) after MaxFailures failures, past MaxAge, on a
// permanent error, or after MaxDeaths attempts that died with the
// process. Every attempt is kept with its start, end, outcome, error and
// result (the latest store.AttemptsKept). A set-aside job is never tried
// again unless an admin calls store.RequeueJob.
//
// At a shutdown, running attempts are cancelled and recorded as
// interrupted: due again at the next start, not counted as failures. A job
// still marked running when the store opens was cut by a power cut or a
// crash: store.Open records that attempt as died and counts it, which is
// how a photo that makes the decoder run out of memory stops being
// retried.
//
// # Running one job now
//
// RunKey runs the job of a kind with a given Key in the caller's
// goroutine, if it is queued and due: for a request that needs that
// job's work (a photo's thumbnail asked for before the queue reached it).
// The attempt is claimed, limited and recorded like any other; RunKey
// answers KeyBusy when another attempt holds the job, KeyWaiting when it
// waits for a retry, KeyNone when no unfinished job has the key.
//
// # Jobs that kill the process
//
// A kind with DiedAlone runs a job whose last attempt died with the
// process on its own: the dispatcher lets the kind's other attempts end
// first and claims nothing until it ends, so jobs decoded beside a
// culprit are not charged again with its next crash.
//
// # Waking and waiting
//
// Each kind has one dispatcher goroutine that sleeps until the next due
// job, a Notify, the end of one of its attempts, or the Poll interval.
// Wake (all kinds or some) makes the jobs waiting for a retry due now,
// for when the network comes back; jobs scheduled with RunAt and not yet
// tried keep their time. A kind with WakeOnSuccess (the outbox's
// deliveries) calls Wake for every such kind after each of its successes:
// one delivery that goes through is the sign that the rest can too.
// WaitIdle returns when no job is running and none is due, for tests and for draining.
//
// # Time
//
// Every time stored (due, attempts, ages) is the store's clock
// (store.Options.Now); the dispatchers sleep on real timers. Tests run the
// store and the runner inside a testing/synctest bubble, where both are
// the bubble's fake time.
//
// # Listing
//
// Admin screens read the records directly: store.JobsPage lists newest
// first, by kind and by status, with each job's attempts and progress.
// Finished jobs are pruned after Config.KeepDone (7 days) and failed ones
// after KeepFailed (30 days).
package jobs
