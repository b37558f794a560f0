package update

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// LaunchedEnv is set in the environment of a binary exec'd by Boot's
// launcher, so that it knows it is the trial run and not a restart after
// a failed one.
const LaunchedEnv = "EVENTBOX_UPDATE_LAUNCHED"

// Start is what Boot decided.
type Start struct {
	// Exec, when not empty, is the binary to run instead of this one:
	// the caller execs it with the same arguments and LaunchedEnv=1.
	Exec string
	// Trial is true when this binary is an update on trial: the caller
	// calls Confirm once it serves.
	Trial bool
	// RolledBack names the version rolled back at this start, if any.
	RolledBack string
	// Refused says why the binary current named was not run (it does
	// not match the signed release kept beside it); empty: not refused.
	Refused string
}

// releaseSuffix ends the name of the signed release kept beside a
// downloaded binary: bin/eventbox-1.2.0.release.
const releaseSuffix = ".release"

// checkInstalled checks the binary current names (target, relative to
// Dir) against the signed release kept beside it: a file bin/eventbox-V
// (no link), a release signed by a trusted key, of version V, whose
// binary for this architecture has the file's size and SHA-256.
func (u *Updater) checkInstalled(target string) error {
	name := filepath.Base(target)
	version, ok := strings.CutPrefix(name, "eventbox-")
	if !ok || target != filepath.Join("bin", name) || strings.HasSuffix(name, releaseSuffix) {
		return fmt.Errorf("%q is not a downloaded binary", target)
	}
	abs := filepath.Join(u.cfg.Dir, target)
	data, err := readCapped(abs+releaseSuffix, maxManifest)
	if err != nil {
		return fmt.Errorf("reading its signed release: %w", err)
	}
	m, err := VerifyAny(u.keys(), data)
	if err != nil {
		return err
	}
	b, ok := m.Binaries[u.cfg.Arch]
	if m.Version != version || !ok {
		return fmt.Errorf("%w: the signed release is %s, with no binary of %s for %s", ErrInvalid, m.Version, version, u.cfg.Arch)
	}
	f, err := os.Open(abs)
	if err != nil {
		return fmt.Errorf("opening the binary: %w", err)
	}
	defer f.Close()
	if fi, err := os.Lstat(abs); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", target)
	}
	h := newHashWriter(io.Discard, b.Size, nil)
	if _, err := io.Copy(h, io.LimitReader(f, b.Size+1)); err != nil {
		return fmt.Errorf("reading the binary: %w", err)
	}
	return h.check(b)
}

// readCapped reads a file of at most limit bytes.
func readCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("longer than %d bytes", limit)
	}
	return data, err
}

// Boot runs first at every start of the daemon. self is this binary's
// path (os.Executable); launched says whether LaunchedEnv was set.
//
//   - An update that started once (its marker says booted) and did not
//     confirm itself healthy is rolled back, unless this is that start.
//   - A marker whose binary is not current (a power cut between the two)
//     is dropped: the update failed and nothing changed.
//   - When current names another binary, Boot answers Exec, unless this
//     binary is at least as new (a .deb upgrade past the download), in
//     which case the link is removed and this binary runs.
//
// Boot first takes DATA_DIR/update/lock for the life of the process (an
// exec lets it go, and the exec'd binary takes it again). When another
// eventbox holds it, Boot answers ErrRunning and decides nothing: a
// second daemon started by hand must not roll back the trial of the
// first.
func (u *Updater) Boot(self string, launched bool) (Start, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	var start Start
	if err := u.lock(); err != nil {
		return start, err
	}
	p, err := u.readPending()
	if err != nil {
		return start, err
	}
	if p != nil && p.Booted && !launched {
		if err := u.rollback(p, "it did not confirm itself healthy within a minute of its start"); err != nil {
			return start, err
		}
		start.RolledBack, p = p.Version, nil
	}
	target, _ := os.Readlink(u.link())
	if p != nil && filepath.Join("bin", p.Path) != target {
		if err := u.dropPending(p, StatusFailed, "interrupted before the swap"); err != nil {
			return start, err
		}
		p = nil
	}
	if target == "" {
		return start, nil
	}
	abs := filepath.Join(u.cfg.Dir, target)
	if sameFile(abs, self) {
		if p != nil && !p.Booted {
			p.Booted = true
			if err := u.writeJSON("pending.json", p); err != nil {
				return start, err
			}
		}
		start.Trial = p != nil
		return start, nil
	}
	if launched {
		// Launched, but not as current: never loop between binaries.
		return start, nil
	}
	st, err := u.readState()
	if err != nil {
		return start, err
	}
	if st.Installed == u.cfg.Version || Newer(u.cfg.Version, st.Installed) {
		if p != nil {
			if err := u.dropPending(p, StatusFailed, "superseded by the installed package"); err != nil {
				return start, err
			}
		}
		st.Installed = ""
		if err := u.writeState(st); err != nil {
			return start, err
		}
		return start, u.setLink("")
	}
	if err := u.checkInstalled(target); err != nil {
		// Whatever current names, it runs only if the signed release it
		// was installed from still vouches for it, byte for byte.
		u.cfg.Logger.Error("the installed update does not match its signed release: running the packaged binary instead",
			"binary", abs, "error", err)
		if p != nil {
			if err := u.dropPending(p, StatusFailed, "refused at start: "+err.Error()); err != nil {
				return start, err
			}
		}
		st.Installed = ""
		if err := u.writeState(st); err != nil {
			return start, err
		}
		start.Refused = err.Error()
		return start, u.setLink("")
	}
	if p != nil {
		// Marked before the exec: if the new binary dies before it
		// serves, the next start rolls it back.
		p.Booted = true
		if err := u.writeJSON("pending.json", p); err != nil {
			return start, err
		}
	}
	start.Exec = abs
	return start, nil
}

// ErrRunning is Boot's answer when another eventbox holds the lock.
var ErrRunning = errors.New("another eventbox is running with this DATA_DIR")

// lock takes the update lock, once; u.mu held.
func (u *Updater) lock() error {
	if u.lockFile != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(u.cfg.Dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening the update lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return ErrRunning
		}
		return fmt.Errorf("taking the update lock: %w", err)
	}
	u.lockFile = f
	return nil
}

// Close lets the update lock go.
func (u *Updater) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.lockFile == nil {
		return nil
	}
	err := u.lockFile.Close()
	u.lockFile = nil
	return err
}

// Rollback is called when the exec of the binary Boot chose failed: it
// puts the previous binary back when that one was on trial (reason goes
// into the history), else it removes the link to the binary that cannot
// run, so the packaged binary runs from now on.
func (u *Updater) Rollback(reason string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	p, err := u.readPending()
	if err != nil {
		return err
	}
	if p != nil {
		return u.rollback(p, reason)
	}
	st, err := u.readState()
	if err != nil {
		return err
	}
	u.cfg.Logger.Warn("the installed update cannot run: back to the packaged binary", "version", st.Installed, "reason", reason)
	st.Installed = ""
	return errors.Join(u.writeState(st), u.setLink(""))
}

// rollback points current back at p's previous target; u.mu held.
func (u *Updater) rollback(p *pending, reason string) error {
	if err := u.setLink(p.Previous); err != nil {
		return err
	}
	st, err := u.readState()
	if err != nil {
		return err
	}
	st.Installed = p.PreviousVersion
	if err := u.writeState(st); err != nil {
		return err
	}
	u.cfg.Logger.Warn("update rolled back", "version", p.Version, "to", p.From, "reason", reason)
	return u.dropPending(p, StatusRolledBack, reason)
}

// dropPending records p's attempt with status and removes the marker.
func (u *Updater) dropPending(p *pending, status, reason string) error {
	err := u.setAttempt(p.Job, func(a *Attempt) {
		if a.Version == "" {
			a.Version, a.From, a.At = p.Version, p.From, p.At
		}
		a.Status, a.Error = status, reason
	})
	return errors.Join(err, u.removePending())
}

// Confirm ends a trial: it calls healthy until it answers nil, then
// records the attempt as ok and removes the marker. It gives up after
// ConfirmWithin with an error; the caller then exits, and the next start
// rolls back.
func (u *Updater) Confirm(ctx context.Context, healthy func(context.Context) error) error {
	deadline := time.NewTimer(ConfirmWithin)
	defer deadline.Stop()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		err := healthy(ctx)
		if err == nil {
			return u.confirmed()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("update %s not healthy within %s: %w", u.cfg.Version, ConfirmWithin, err)
		case <-tick.C:
		}
	}
}

func (u *Updater) confirmed() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	p, err := u.readPending()
	if err != nil || p == nil {
		return err
	}
	u.cfg.Logger.Info("update confirmed healthy", "version", p.Version, "from", p.From)
	return u.dropPending(p, StatusOK, "")
}

// sameFile reports whether a and b are the same file.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
