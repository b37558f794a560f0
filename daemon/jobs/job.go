package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"eventbox/store"
)

// Job is one attempt of a job, as a handler sees it: the stored record as
// it was when the attempt was claimed (Payload, Tries = this attempt's
// number, Progress as last reported, earlier Attempts) and the calls that
// write back to it.
type Job struct {
	store.Job
	runner *Runner
	result *string
}

// Decode unmarshals the job's payload into v.
func (j Job) Decode(v any) error {
	if err := json.Unmarshal(j.Payload, v); err != nil {
		return Permanent(fmt.Errorf("decoding the payload of %s job %d: %w", j.Kind, j.ID, err))
	}
	return nil
}

// Report records how far the attempt has come (an export's files sent of
// total, and the State to resume from). The next attempt, after a failure
// or a restart, finds it in Progress. Each call is a committed write: call
// it per file or every few seconds. It fails with store.ErrJobLost when the
// attempt no longer holds the job.
func (j Job) Report(ctx context.Context, p store.JobProgress) error {
	return j.runner.store.Jobs().SetProgress(ctx, j.ID, j.Tries, p)
}

// SetResult gives the attempt a short status to record with it, whatever
// its outcome (an SMTP reply, an HTTP status). The last call wins.
func (j Job) SetResult(result string) { *j.result = result }

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks err as one that retrying cannot fix (a malformed
// payload, a 4xx answer, a deleted record): the job is set aside at once.
// Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

// IsPermanent reports whether err was marked by Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// retryAfterError carries the wait a handler chose for the next try.
type retryAfterError struct {
	after time.Duration
	err   error
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// RetryAfter fails the attempt and asks for the next try after d instead
// of the kind's backoff (an HTTP 429 or 503 with Retry-After). The kind's
// limits still apply. RetryAfter(d, nil) is nil.
func RetryAfter(d time.Duration, err error) error {
	if err == nil {
		return nil
	}
	return &retryAfterError{after: d, err: err}
}
