// Package service composes the daemon's long-running parts. Each part is
// a Service (Run(ctx) error, returning when ctx is cancelled); a Group
// runs a list of them side by side and returns once ctx is cancelled and
// every member has returned, which is what Server.Run needs for its
// workers (image variants, the booth relay, session sweeping, the job
// runner, backups) before the store is closed.
//
// Failure policy: a member that fails is logged and restarted after a
// wait that doubles from GroupConfig.MinRestart (1 s) to MaxRestart
// (1 min), so one broken part (a booth relay whose GPIO vanished) cannot
// take the web server down and cannot spin the CPU either. A panic is a
// failure like any other. A member marked Critical instead stops the
// whole group, and Group.Run returns its error: use it for a part the box
// is useless without. A member returning nil before the group stops has
// finished its work and is not restarted.
//
// The package reads the time only through timers and time.Now, so tests
// run it inside testing/synctest.
package service
