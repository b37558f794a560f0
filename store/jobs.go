package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Job buckets. store/doc.go ("Jobs") describes their keys.
var (
	bJobs        = []byte("jobs")
	bJobDue      = []byte("idx_job_due")
	bJobByKind   = []byte("idx_job_kind")
	bJobByStatus = []byte("idx_job_status")
	bJobByKey    = []byte("jobs_by_key")
)

// ErrJobLost: the job is no longer held by the attempt that asks (it was
// finished, recovered after a restart, or removed).
var ErrJobLost = errors.New("job is not held by this attempt")

// ErrJobKind: a job kind is empty, too long or has characters other than
// a-z, 0-9, '.', '_' and '-'.
var ErrJobKind = errors.New("invalid job kind")

// JobStatus is where a job is in its life.
type JobStatus string

// Job statuses. A job goes queued → running → done, or back to queued for
// a retry, or to failed (set aside: never tried again unless Jobs.Requeue).
const (
	JobQueued  JobStatus = "queued"
	JobRunning JobStatus = "running"
	JobDone    JobStatus = "done"
	JobFailed  JobStatus = "failed"
)

// statusByte is the first byte of a status: its key in idx_job_status.
func (st JobStatus) statusByte() byte { return st[0] }

// Outcome is how one attempt of a job ended.
type Outcome string

// Attempt outcomes.
const (
	// OutcomeRunning: the attempt has not ended (yet).
	OutcomeRunning Outcome = "running"
	// OutcomeOK: the handler succeeded; the job is done.
	OutcomeOK Outcome = "ok"
	// OutcomeError: the handler failed; the job is retried unless a limit
	// is reached.
	OutcomeError Outcome = "error"
	// OutcomePermanent: the handler failed for good; the job is set aside.
	OutcomePermanent Outcome = "permanent"
	// OutcomeInterrupted: the runner stopped (shutdown) during the
	// attempt; the job is due again at once and the attempt is not charged.
	OutcomeInterrupted Outcome = "interrupted"
	// OutcomeDied: the process died (power cut, crash, kill) during the
	// attempt; found by Open. It counts towards JobLimits.MaxDeaths.
	OutcomeDied Outcome = "died"
)

// MaxJobKindLen is the longest job kind.
const MaxJobKindLen = 64

// AttemptsKept is how many attempts a job record keeps (the latest);
// Tries counts them all.
const AttemptsKept = 20

// JobSpec is a job to enqueue.
type JobSpec struct {
	// Kind names the handler that runs the job ("mail", "webhook"); see
	// ErrJobKind for its alphabet.
	Kind string
	// Key, when not empty, makes the job unique among the unfinished jobs
	// of its kind: enqueuing a second (Kind, Key) while one is queued or
	// running adds nothing and answers the existing job's id. Jobs.Cancel
	// removes a queued job by its key.
	Key string
	// Payload is the job's input as JSON; nil is stored as null.
	Payload []byte
	// RunAt is when the job is first due; zero means now. Jobs of a kind
	// run in due order, ties in enqueue order.
	RunAt time.Time
}

// Job is the record of one job.
type Job struct {
	// ID is unique and grows with each enqueue.
	ID      uint64          `json:"id"`
	Kind    string          `json:"kind"`
	Key     string          `json:"key,omitempty"`
	Payload json.RawMessage `json:"payload"`
	Status  JobStatus       `json:"status"`
	// CreatedAt, DueAt (when queued), UpdatedAt and FinishedAt (done or
	// failed) are epoch ms.
	CreatedAt  int64 `json:"createdAt"`
	DueAt      int64 `json:"dueAt,omitempty"`
	UpdatedAt  int64 `json:"updatedAt"`
	FinishedAt int64 `json:"finishedAt,omitempty"`
	// Tries counts every attempt started; Failures those that ended in
	// OutcomeError or OutcomePermanent; Deaths those cut by a dead process.
	Tries    int `json:"tries"`
	Failures int `json:"failures"`
	Deaths   int `json:"deaths"`
	// Attempts are the latest AttemptsKept attempts, oldest first.
	Attempts []JobAttempt `json:"attempts,omitempty"`
	// LastError is the error of the latest failed attempt, or why the job
	// was set aside.
	LastError string `json:"lastError,omitempty"`
	// Progress is what the handler last reported (Jobs.SetProgress); it
	// survives retries, so a long job resumes from its State.
	Progress *JobProgress `json:"progress,omitempty"`
}

// JobAttempt is one try of a job.
type JobAttempt struct {
	// N is the attempt's number, from 1; it is the claim token the runner
	// passes back to Jobs.Finish and Jobs.SetProgress.
	N int `json:"n"`
	// Start and End are epoch ms; End is 0 while running and, for
	// OutcomeDied, the time the death was found.
	Start   int64   `json:"start"`
	End     int64   `json:"end,omitempty"`
	Outcome Outcome `json:"outcome"`
	Error   string  `json:"error,omitempty"`
	// Result is a short status the handler gave (an SMTP reply, an HTTP
	// status), whatever the outcome.
	Result string `json:"result,omitempty"`
}

// JobProgress is how far a long job has come.
type JobProgress struct {
	Done  int64  `json:"done"`
	Total int64  `json:"total,omitempty"`
	Note  string `json:"note,omitempty"`
	// State is the handler's own resume point (JSON), read back by the
	// next attempt.
	State json.RawMessage `json:"state,omitempty"`
	// At is when it was reported, epoch ms (set by the store).
	At int64 `json:"at"`
}

// JobLimits bound the tries of a job kind; the store applies them when it
// claims and finishes jobs. Zero fields are no limit, but the runner
// never passes all three as zero.
type JobLimits struct {
	// MaxFailures sets a job aside when this many attempts have failed.
	MaxFailures int
	// MaxDeaths sets a job aside when this many attempts died with the
	// process: a job that takes the process down is not tried for ever.
	MaxDeaths int
	// MaxAge sets a job aside when a retry would be due later than
	// CreatedAt + MaxAge (a webhook's 48 h window).
	MaxAge time.Duration
}

// JobEnd is how the runner ends an attempt.
type JobEnd struct {
	Outcome Outcome
	Error   string
	Result  string
	// RetryIn is the wait before the next try after OutcomeError.
	RetryIn time.Duration
}

// JobClaim is the answer of Jobs.Claim.
type JobClaim struct {
	// Claimed reports that Job is now running for this caller.
	Claimed bool
	Job     Job
	// Waiting reports, when nothing was claimed, that a job of the kind is
	// queued for later: Next is the wait until it is due.
	Waiting bool
	Next    time.Duration
	// SetAside are jobs the claim found past their limits and set aside.
	SetAside []Job
	// Busy reports, for Jobs.ClaimByKey, that the job is running for
	// another caller.
	Busy bool
}

// JobFilter selects jobs for Jobs.List. Zero fields select everything.
type JobFilter struct {
	Kind   string
	Status JobStatus
	// Before lists jobs with smaller ids only (the previous page's Next).
	Before uint64
	// Limit is the page size; 0 means 50.
	Limit int
}

// JobPage is one page of jobs, newest first.
type JobPage struct {
	Jobs []Job
	// Next is the Before of the following page; 0 when this is the last.
	Next uint64
}

// ValidJobKind reports whether kind can name a job kind.
func ValidJobKind(kind string) bool {
	if kind == "" || len(kind) > MaxJobKindLen {
		return false
	}
	for i := 0; i < len(kind); i++ {
		c := kind[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// kindPrefix is a kind as a key prefix: its length in one byte, then the
// kind, so that no kind's prefix is another's.
func kindPrefix(kind string) []byte {
	return append([]byte{byte(len(kind))}, kind...)
}

func dueKey(j *Job) []byte    { return join(kindPrefix(j.Kind), timeKey(j.DueAt), u64(j.ID)) }
func kindKey(j *Job) []byte   { return join(kindPrefix(j.Kind), u64(j.ID)) }
func statusKey(j *Job) []byte { return join([]byte{j.Status.statusByte()}, u64(j.ID)) }
func uniqueKey(kind, key string) []byte {
	return join(kindPrefix(kind), []byte(key))
}

// Jobs holds the durable job queue: enqueue, claim, finish, retry, wake,
// prune and the fan-out of notices. It is a view of the Store it came from,
// as cheap to copy as a pointer; its methods are safe for concurrent use.
type Jobs struct{ s *Store }

// Jobs returns the durable job queue.
func (s *Store) Jobs() Jobs { return Jobs{s} }

// Enqueue adds jobs, each due at its RunAt, and answers their ids in
// order (an existing job's id for a duplicate Key). Store methods whose
// change causes a job take JobSpecs and call Jobs.enqueue in their own
// transaction instead, so the change and its jobs commit together.
func (js Jobs) Enqueue(ctx context.Context, specs ...JobSpec) ([]uint64, error) {
	var ids []uint64
	err := js.s.db.Update(func(tx *bolt.Tx) error {
		var err error
		ids, err = js.enqueue(tx, specs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("enqueuing jobs: %w", err)
	}
	return ids, nil
}

// enqueue writes specs as queued jobs in tx. Every store method that
// enqueues alongside its own writes goes through it.
func (js Jobs) enqueue(tx *bolt.Tx, specs []JobSpec) ([]uint64, error) {
	now := js.s.nowMs()
	ids := make([]uint64, 0, len(specs))
	jobs := tx.Bucket(bJobs)
	for _, sp := range specs {
		if !ValidJobKind(sp.Kind) {
			return nil, fmt.Errorf("kind %q: %w", sp.Kind, ErrJobKind)
		}
		payload := sp.Payload
		if payload == nil {
			payload = []byte("null")
		}
		if !json.Valid(payload) {
			return nil, fmt.Errorf("job %s: payload is not JSON", sp.Kind)
		}
		if sp.Key != "" {
			if id := tx.Bucket(bJobByKey).Get(uniqueKey(sp.Kind, sp.Key)); id != nil {
				ids = append(ids, binary.BigEndian.Uint64(id))
				continue
			}
		}
		seq, err := jobs.NextSequence()
		if err != nil {
			return nil, err
		}
		due := now
		if !sp.RunAt.IsZero() {
			due = sp.RunAt.UnixMilli()
		}
		j := Job{ID: seq, Kind: sp.Kind, Key: sp.Key, Payload: append(json.RawMessage(nil), payload...),
			Status: JobQueued, CreatedAt: now, DueAt: due, UpdatedAt: now}
		if err := putJob(tx, &j, nil); err != nil {
			return nil, err
		}
		ids = append(ids, seq)
	}
	return ids, nil
}

// putJob writes j and moves its index entries from what old had (nil for
// a new job) to what j has.
func putJob(tx *bolt.Tx, j, old *Job) error {
	due, byStatus, byKey := tx.Bucket(bJobDue), tx.Bucket(bJobByStatus), tx.Bucket(bJobByKey)
	if old == nil {
		if err := tx.Bucket(bJobByKind).Put(kindKey(j), nil); err != nil {
			return err
		}
	} else {
		if old.Status == JobQueued {
			if err := due.Delete(dueKey(old)); err != nil {
				return err
			}
		}
		if err := byStatus.Delete(statusKey(old)); err != nil {
			return err
		}
	}
	if j.Status == JobQueued {
		if err := due.Put(dueKey(j), nil); err != nil {
			return err
		}
	}
	if err := byStatus.Put(statusKey(j), nil); err != nil {
		return err
	}
	if j.Key != "" {
		k := uniqueKey(j.Kind, j.Key)
		switch j.Status {
		case JobQueued, JobRunning:
			if err := byKey.Put(k, u64(j.ID)); err != nil {
				return err
			}
		default:
			// Only an unfinished job holds its key.
			if id := byKey.Get(k); id != nil && binary.BigEndian.Uint64(id) == j.ID {
				if err := byKey.Delete(k); err != nil {
					return err
				}
			}
		}
	}
	if old != nil && old.Status != JobFailed && j.Status == JobFailed {
		if err := jobSetAside(tx, j); err != nil {
			return fmt.Errorf("setting job %d aside: %w", j.ID, err)
		}
	}
	if old != nil && old.Status == JobFailed && j.Status != JobFailed {
		if err := jobRequeued(tx, j); err != nil {
			return fmt.Errorf("requeuing job %d: %w", j.ID, err)
		}
	}
	return putJSON(tx.Bucket(bJobs), u64(j.ID), j)
}

// jobSetAside runs in the transaction that sets j aside (status failed,
// for any reason), so that the records a kind works on can say so in the
// same commit: a "variants" job marks its photo VariantsFailed.
func jobSetAside(tx *bolt.Tx, j *Job) error {
	if j.Kind == VariantJobKind {
		return variantsSetAside(tx, j)
	}
	return nil
}

// jobRequeued runs in the transaction that puts a set-aside job j back
// in the queue (Jobs.Requeue), undoing what jobSetAside said.
func jobRequeued(tx *bolt.Tx, j *Job) error {
	if j.Kind == VariantJobKind {
		return variantsRequeued(tx, j)
	}
	return nil
}

// deleteJob removes j and its index entries.
func deleteJob(tx *bolt.Tx, j *Job) error {
	if j.Status == JobQueued {
		if err := tx.Bucket(bJobDue).Delete(dueKey(j)); err != nil {
			return err
		}
	}
	if j.Key != "" {
		k := uniqueKey(j.Kind, j.Key)
		if id := tx.Bucket(bJobByKey).Get(k); id != nil && binary.BigEndian.Uint64(id) == j.ID {
			if err := tx.Bucket(bJobByKey).Delete(k); err != nil {
				return err
			}
		}
	}
	for _, del := range []struct {
		b []byte
		k []byte
	}{{bJobByStatus, statusKey(j)}, {bJobByKind, kindKey(j)}, {bJobs, u64(j.ID)}} {
		if err := tx.Bucket(del.b).Delete(del.k); err != nil {
			return err
		}
	}
	return nil
}

func getJob(tx *bolt.Tx, id uint64) (Job, error) {
	var j Job
	err := getJSON(tx.Bucket(bJobs), u64(id), &j)
	return j, err
}

// Get returns the job with id, or ErrNotFound.
func (js Jobs) Get(ctx context.Context, id uint64) (Job, error) {
	var j Job
	err := js.s.db.View(func(tx *bolt.Tx) error {
		var err error
		j, err = getJob(tx, id)
		return err
	})
	if err != nil {
		return Job{}, fmt.Errorf("reading job %d: %w", id, err)
	}
	return j, nil
}

// Claim takes the first due job of kind, in due order, and marks it
// running with a new attempt, in one transaction: two callers never get
// the same job. Jobs it finds past lim are set aside on the way (returned
// in SetAside). When none is due, it tells whether one is queued for later
// and how long until it is due.
func (js Jobs) Claim(ctx context.Context, kind string, lim JobLimits) (JobClaim, error) {
	var c JobClaim
	// Look in a read transaction first: most looks find nothing due, and
	// a write transaction costs an fsync (SD card wear on the Pi).
	due := false
	err := js.s.db.View(func(tx *bolt.Tx) error {
		prefix := kindPrefix(kind)
		k, _ := tx.Bucket(bJobDue).Cursor().Seek(prefix)
		if k == nil || !bytes.HasPrefix(k, prefix) {
			return nil
		}
		if wait := keyTime(k, len(prefix)) - js.s.nowMs(); wait > 0 {
			c.Waiting, c.Next = true, time.Duration(wait)*time.Millisecond
			return nil
		}
		due = true
		return nil
	})
	if err != nil || !due {
		if err != nil {
			err = fmt.Errorf("looking for a due %s job: %w", kind, err)
		}
		return c, err
	}
	err = js.s.db.Update(func(tx *bolt.Tx) error {
		c = JobClaim{}
		now := js.s.nowMs()
		prefix := kindPrefix(kind)
		cur := tx.Bucket(bJobDue).Cursor()
		for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Seek(prefix) {
			if due := keyTime(k, len(prefix)); due > now {
				c.Waiting, c.Next = true, time.Duration(due-now)*time.Millisecond
				return nil
			}
			j, err := getJob(tx, binary.BigEndian.Uint64(k[len(prefix)+8:]))
			if err != nil {
				return fmt.Errorf("reading due job: %w", err)
			}
			if err := claimJob(tx, j, lim, now, &c); err != nil || c.Claimed {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return JobClaim{}, fmt.Errorf("claiming a %s job: %w", kind, err)
	}
	return c, nil
}

// claimJob marks the queued job j running with a new attempt (c.Claimed,
// c.Job), or sets it aside when it is past lim (added to c.SetAside).
func claimJob(tx *bolt.Tx, j Job, lim JobLimits, now int64, c *JobClaim) error {
	old := j
	j.UpdatedAt = now
	if why := lim.exceeded(j, now); why != "" {
		j.Status, j.FinishedAt, j.LastError = JobFailed, now, why
		if err := putJob(tx, &j, &old); err != nil {
			return err
		}
		c.SetAside = append(c.SetAside, j)
		return nil
	}
	j.Status = JobRunning
	j.Tries++
	j.addAttempt(JobAttempt{N: j.Tries, Start: now, Outcome: OutcomeRunning})
	if err := putJob(tx, &j, &old); err != nil {
		return err
	}
	c.Claimed, c.Job = true, j
	return nil
}

// ClaimByKey claims the job of kind with key, as Jobs.Claim would, if it
// is queued and due: for a caller that needs one particular job done now
// (a photo's thumbnail asked for before the queue reached it). When it
// claims nothing, Busy reports that the job is running for another
// caller and Waiting that it is queued for later (Next); neither means no
// unfinished job has the key (done, set aside, never queued), or that
// the claim set it aside (SetAside).
func (js Jobs) ClaimByKey(ctx context.Context, kind, key string, lim JobLimits) (JobClaim, error) {
	var c JobClaim
	look := func(tx *bolt.Tx) (Job, bool, error) {
		c = JobClaim{}
		id := tx.Bucket(bJobByKey).Get(uniqueKey(kind, key))
		if id == nil {
			return Job{}, false, nil
		}
		j, err := getJob(tx, binary.BigEndian.Uint64(id))
		if err != nil {
			return Job{}, false, err
		}
		switch {
		case j.Status == JobRunning:
			c.Busy = true
		case j.Status != JobQueued:
		case j.DueAt > js.s.nowMs():
			c.Waiting, c.Next = true, time.Duration(j.DueAt-js.s.nowMs())*time.Millisecond
		default:
			return j, true, nil
		}
		return Job{}, false, nil
	}
	// A read first, as in Jobs.Claim: a page asking again and again for a
	// photo that waits for its retry costs no disk write.
	due := false
	err := js.s.db.View(func(tx *bolt.Tx) error {
		_, ok, err := look(tx)
		due = ok
		return err
	})
	if err == nil && due {
		err = js.s.db.Update(func(tx *bolt.Tx) error {
			j, ok, err := look(tx)
			if err != nil || !ok {
				return err
			}
			return claimJob(tx, j, lim, js.s.nowMs(), &c)
		})
	}
	if err != nil {
		return JobClaim{}, fmt.Errorf("claiming the %s job %s: %w", kind, key, err)
	}
	return c, nil
}

// exceeded says why j, about to be tried at now, is past the limits, or "".
func (lim JobLimits) exceeded(j Job, now int64) string {
	switch {
	case lim.MaxFailures > 0 && j.Failures >= lim.MaxFailures:
		return fmt.Sprintf("set aside after %d failed attempts", j.Failures)
	case lim.MaxDeaths > 0 && j.Deaths >= lim.MaxDeaths:
		return fmt.Sprintf("set aside after %d attempts died with the process", j.Deaths)
	case lim.MaxAge > 0 && now > j.CreatedAt+lim.MaxAge.Milliseconds():
		return fmt.Sprintf("set aside: older than %s", lim.MaxAge)
	}
	return ""
}

func (j *Job) addAttempt(a JobAttempt) {
	j.Attempts = append(j.Attempts, a)
	if n := len(j.Attempts) - AttemptsKept; n > 0 {
		j.Attempts = append([]JobAttempt(nil), j.Attempts[n:]...)
	}
}

// current returns the running attempt try of j, or nil.
func (j *Job) current(try int) *JobAttempt {
	if j.Status != JobRunning || j.Tries != try || len(j.Attempts) == 0 {
		return nil
	}
	a := &j.Attempts[len(j.Attempts)-1]
	if a.N != try {
		return nil
	}
	return a
}

// Finish ends attempt try of job id as end says: done, queued again
// after end.RetryIn, due again now (OutcomeInterrupted, not charged), or
// set aside (OutcomePermanent, or a failure that reaches lim). It answers
// the job as stored, or ErrJobLost when the attempt no longer holds it.
func (js Jobs) Finish(ctx context.Context, id uint64, try int, end JobEnd, lim JobLimits) (Job, error) {
	var j Job
	err := js.s.db.Update(func(tx *bolt.Tx) error {
		var err error
		if j, err = getJob(tx, id); errors.Is(err, ErrNotFound) {
			return ErrJobLost
		} else if err != nil {
			return err
		}
		old := j
		a := j.current(try)
		if a == nil {
			return ErrJobLost
		}
		now := js.s.nowMs()
		a.End, a.Outcome, a.Error, a.Result = now, end.Outcome, end.Error, end.Result
		j.UpdatedAt = now
		switch end.Outcome {
		case OutcomeOK:
			j.Status, j.FinishedAt, j.DueAt = JobDone, now, 0
		case OutcomeInterrupted:
			j.Status, j.DueAt = JobQueued, now
		case OutcomePermanent:
			j.Failures++
			j.Status, j.FinishedAt, j.DueAt, j.LastError = JobFailed, now, 0, end.Error
		case OutcomeError:
			j.Failures++
			j.LastError = end.Error
			j.Status, j.DueAt = JobQueued, now+end.RetryIn.Milliseconds()
			if why := lim.exceeded(j, j.DueAt); why != "" {
				j.Status, j.FinishedAt, j.DueAt = JobFailed, now, 0
				j.LastError = end.Error + " (" + why + ")"
			}
		default:
			return fmt.Errorf("outcome %q cannot end an attempt", end.Outcome)
		}
		return putJob(tx, &j, &old)
	})
	if err != nil {
		return Job{}, fmt.Errorf("finishing job %d: %w", id, err)
	}
	return j, nil
}

// SetProgress records how far attempt try of job id has come. Each
// call is a committed write (an fsync): report per file or every few
// seconds, not per byte.
func (js Jobs) SetProgress(ctx context.Context, id uint64, try int, p JobProgress) error {
	err := js.s.db.Update(func(tx *bolt.Tx) error {
		j, err := getJob(tx, id)
		if errors.Is(err, ErrNotFound) {
			return ErrJobLost
		} else if err != nil {
			return err
		}
		if j.current(try) == nil {
			return ErrJobLost
		}
		if p.State != nil && !json.Valid(p.State) {
			return errors.New("progress state is not JSON")
		}
		p.At = js.s.nowMs()
		p.State = append(json.RawMessage(nil), p.State...)
		j.Progress, j.UpdatedAt = &p, p.At
		return putJSON(tx.Bucket(bJobs), u64(j.ID), j)
	})
	if err != nil {
		return fmt.Errorf("recording progress of job %d: %w", id, err)
	}
	return nil
}

// Wake makes every queued job of the kinds (all kinds when none are
// given) that waits for a retry due now, and answers how many it moved.
// A job that has not been tried yet keeps its RunAt: a backup scheduled
// for the night does not start when the network comes back. It looks in
// a read transaction first and writes only when a job waits: a success
// wakes its kind's waiting jobs (jobs.Kind.WakeOnSuccess), and most
// successes find none.
func (js Jobs) Wake(ctx context.Context, kinds ...string) (int, error) {
	found := false
	err := js.s.db.View(func(tx *bolt.Tx) error {
		jobs, err := wakeable(tx, js.s.nowMs(), kinds)
		found = len(jobs) > 0
		return err
	})
	if err != nil || !found {
		if err != nil {
			err = fmt.Errorf("looking for jobs to wake: %w", err)
		}
		return 0, err
	}
	n := 0
	err = js.s.db.Update(func(tx *bolt.Tx) error {
		now := js.s.nowMs()
		jobs, err := wakeable(tx, now, kinds)
		if err != nil {
			return err
		}
		n = len(jobs)
		for _, j := range jobs {
			old := j
			j.DueAt, j.UpdatedAt = now, now
			if err := putJob(tx, &j, &old); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("waking jobs: %w", err)
	}
	return n, nil
}

// wakeable returns the queued jobs of kinds (all when none) that were
// tried and wait for a retry due after now.
func wakeable(tx *bolt.Tx, now int64, kinds []string) ([]Job, error) {
	prefixes := [][]byte{nil}
	if len(kinds) > 0 {
		prefixes = prefixes[:0]
		for _, k := range kinds {
			prefixes = append(prefixes, kindPrefix(k))
		}
	}
	var ids []uint64
	for _, prefix := range prefixes {
		cur := tx.Bucket(bJobDue).Cursor()
		for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
			kl := 1 + int(k[0])
			if keyTime(k, kl) > now {
				ids = append(ids, binary.BigEndian.Uint64(k[kl+8:]))
			}
		}
	}
	var out []Job
	for _, id := range ids {
		j, err := getJob(tx, id)
		if err != nil {
			return nil, err
		}
		if j.Tries > 0 {
			out = append(out, j)
		}
	}
	return out, nil
}

// Cancel removes the queued job of kind with key, if any, and reports
// whether there was one. A running job is left to finish.
func (js Jobs) Cancel(ctx context.Context, kind, key string) (bool, error) {
	var found bool
	err := js.s.db.Update(func(tx *bolt.Tx) error {
		var err error
		found, err = cancelJob(tx, kind, key)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("cancelling job %s/%s: %w", kind, key, err)
	}
	return found, nil
}

// cancelJob is Jobs.Cancel inside tx, for store methods whose change makes
// a queued job pointless (a deleted photo's variants).
func cancelJob(tx *bolt.Tx, kind, key string) (bool, error) {
	id := tx.Bucket(bJobByKey).Get(uniqueKey(kind, key))
	if id == nil {
		return false, nil
	}
	j, err := getJob(tx, binary.BigEndian.Uint64(id))
	if err != nil {
		return false, err
	}
	if j.Status != JobQueued {
		return false, nil
	}
	return true, deleteJob(tx, &j)
}

// Requeue puts a failed job back in the queue, due now, with its
// failure and death counts cleared (its attempts stay listed): an admin's
// "try again".
func (js Jobs) Requeue(ctx context.Context, id uint64) error {
	err := js.s.db.Update(func(tx *bolt.Tx) error {
		j, err := getJob(tx, id)
		if err != nil {
			return err
		}
		return js.requeue(tx, j)
	})
	if err != nil {
		return fmt.Errorf("requeuing job %d: %w", id, err)
	}
	return nil
}

// requeue is Jobs.Requeue inside tx.
func (js Jobs) requeue(tx *bolt.Tx, j Job) error {
	if j.Status != JobFailed {
		return ErrConflict
	}
	if j.Key != "" && tx.Bucket(bJobByKey).Get(uniqueKey(j.Kind, j.Key)) != nil {
		return ErrConflict // a newer job holds the key
	}
	old := j
	now := js.s.nowMs()
	j.Status, j.DueAt, j.UpdatedAt, j.FinishedAt = JobQueued, now, now, 0
	j.Failures, j.Deaths = 0, 0
	return putJob(tx, &j, &old)
}

// recoverRunning runs at Open: a job still marked running was in flight when
// the process died. Its attempt is recorded as OutcomeDied, counted in
// Deaths, and the job is due again now; Jobs.Claim sets it aside once
// MaxDeaths is reached.
func (js Jobs) recoverRunning(ctx context.Context) (int, error) {
	n := 0
	err := js.s.db.Update(func(tx *bolt.Tx) error {
		n = 0
		prefix := []byte{JobRunning.statusByte()}
		var ids []uint64
		cur := tx.Bucket(bJobByStatus).Cursor()
		for k, _ := cur.Seek(prefix); k != nil && k[0] == prefix[0]; k, _ = cur.Next() {
			ids = append(ids, binary.BigEndian.Uint64(k[1:]))
		}
		now := js.s.nowMs()
		for _, id := range ids {
			j, err := getJob(tx, id)
			if err != nil {
				return err
			}
			old := j
			if a := j.current(j.Tries); a != nil {
				a.End, a.Outcome = now, OutcomeDied
				a.Error = "the process stopped during the attempt"
			}
			j.Deaths++
			j.Status, j.DueAt, j.UpdatedAt = JobQueued, now, now
			if err := putJob(tx, &j, &old); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("recovering jobs: %w", err)
	}
	return n, nil
}

// Prune removes done jobs that finished more than keepDone ago and
// failed ones that finished more than keepFailed ago, and answers how
// many it removed. A zero duration keeps that status for ever.
func (js Jobs) Prune(ctx context.Context, keepDone, keepFailed time.Duration) (int, error) {
	n := 0
	err := js.s.db.Update(func(tx *bolt.Tx) error {
		n = 0
		now := js.s.nowMs()
		for _, rule := range []struct {
			st   JobStatus
			keep time.Duration
		}{{JobDone, keepDone}, {JobFailed, keepFailed}} {
			if rule.keep <= 0 {
				continue
			}
			cutoff := now - rule.keep.Milliseconds()
			var old []Job
			prefix := []byte{rule.st.statusByte()}
			cur := tx.Bucket(bJobByStatus).Cursor()
			for k, _ := cur.Seek(prefix); k != nil && k[0] == prefix[0]; k, _ = cur.Next() {
				j, err := getJob(tx, binary.BigEndian.Uint64(k[1:]))
				if err != nil {
					return err
				}
				if j.FinishedAt < cutoff {
					old = append(old, j)
				}
			}
			for i := range old {
				if err := deleteJob(tx, &old[i]); err != nil {
					return err
				}
			}
			n += len(old)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("pruning jobs: %w", err)
	}
	return n, nil
}

// Unfinished returns the jobs of kind still queued or running, newest
// first: what is left to do, for a screen or a test. It reads at most
// limit jobs of the kind (0 means 1000).
func (js Jobs) Unfinished(ctx context.Context, kind string, limit int) ([]Job, error) {
	if limit <= 0 {
		limit = 1000
	}
	page, err := js.List(ctx, JobFilter{Kind: kind, Limit: limit})
	if err != nil {
		return nil, err
	}
	var out []Job
	for _, j := range page.Jobs {
		if j.Status == JobQueued || j.Status == JobRunning {
			out = append(out, j)
		}
	}
	return out, nil
}

// List lists jobs newest first (by id), filtered by kind and status.
func (js Jobs) List(ctx context.Context, f JobFilter) (JobPage, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	var page JobPage
	err := js.s.db.View(func(tx *bolt.Tx) error {
		page = JobPage{}
		var bucket, prefix []byte
		switch {
		case f.Status != "":
			bucket, prefix = bJobByStatus, []byte{f.Status.statusByte()}
		case f.Kind != "":
			bucket, prefix = bJobByKind, kindPrefix(f.Kind)
		default:
			return js.listAll(tx, f, &page)
		}
		cur := tx.Bucket(bucket).Cursor()
		before := f.Before
		if before == 0 {
			before = ^uint64(0)
		}
		k, _ := cur.Seek(join(prefix, u64(before)))
		if k == nil || !bytes.HasPrefix(k, prefix) || binary.BigEndian.Uint64(k[len(prefix):]) >= before {
			k, _ = cur.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Prev() {
			j, err := getJob(tx, binary.BigEndian.Uint64(k[len(prefix):]))
			if err != nil {
				return err
			}
			if f.Kind != "" && j.Kind != f.Kind || f.Status != "" && j.Status != f.Status {
				continue
			}
			if !page.add(j, f.Limit) {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return JobPage{}, fmt.Errorf("listing jobs: %w", err)
	}
	return page, nil
}

func (js Jobs) listAll(tx *bolt.Tx, f JobFilter, page *JobPage) error {
	cur := tx.Bucket(bJobs).Cursor()
	var k, v []byte
	if f.Before == 0 {
		k, v = cur.Last()
	} else {
		k, v = cur.Seek(u64(f.Before))
		if k == nil || binary.BigEndian.Uint64(k) >= f.Before {
			k, v = cur.Prev()
		}
	}
	for ; k != nil; k, v = cur.Prev() {
		var j Job
		if err := json.Unmarshal(v, &j); err != nil {
			return fmt.Errorf("decoding job %x: %w", k, err)
		}
		if !page.add(j, f.Limit) {
			return nil
		}
	}
	return nil
}

// add appends j unless the page is full; a full page records Next and
// answers false.
func (p *JobPage) add(j Job, limit int) bool {
	if len(p.Jobs) == limit {
		p.Next = p.Jobs[limit-1].ID
		return false
	}
	p.Jobs = append(p.Jobs, j)
	return true
}
