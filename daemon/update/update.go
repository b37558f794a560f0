package update

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Attempt statuses, in the order an attempt goes through them.
const (
	// StatusRunning: the apply job is downloading and checking.
	StatusRunning = "running"
	// StatusFailed: refused or failed before the swap; nothing changed.
	StatusFailed = "failed"
	// StatusInstalled: swapped in, waiting for the restart and its
	// health confirmation.
	StatusInstalled = "installed"
	// StatusOK: the new binary confirmed itself healthy.
	StatusOK = "ok"
	// StatusRolledBack: it did not; the previous binary is back.
	StatusRolledBack = "rolled_back"
)

// historyKept bounds the history.
const historyKept = 50

// ConfirmWithin is how long a new binary has to find itself healthy.
const ConfirmWithin = time.Minute

// maxManifest caps the manifest's size.
const maxManifest = 1 << 20

// Attempt is one update attempt in the history.
type Attempt struct {
	// Version is the version being installed; From the one running then.
	Version string `json:"version"`
	From    string `json:"from"`
	// At is when the attempt started, epoch ms.
	At int64 `json:"at"`
	// Status is one of the Status constants.
	Status string `json:"status"`
	// Error says why it failed or was rolled back.
	Error string `json:"error,omitempty"`
	// Job is the apply job's id.
	Job uint64 `json:"job,omitempty"`
}

// State is what the updater keeps in state.json.
type State struct {
	// Latest is the newest release seen by the last check; CheckedAt is
	// when, epoch ms.
	Latest    string `json:"latest,omitempty"`
	CheckedAt int64  `json:"checkedAt,omitempty"`
	// Available is Latest when that check found it newer than the
	// version running then and listing a binary for this architecture.
	Available string `json:"available,omitempty"`
	// Installed is the version update/current points at; empty: none.
	Installed string `json:"installed,omitempty"`
	// History lists attempts, oldest first.
	History []Attempt `json:"history"`
}

// pending is the update on trial (pending.json).
type pending struct {
	Version string `json:"version"`
	From    string `json:"from"`
	At      int64  `json:"at"`
	Job     uint64 `json:"job,omitempty"`
	// Path is the new binary (relative to bin/); Previous the link's
	// target before (relative, empty: none) and PreviousVersion its
	// version.
	Path            string `json:"path"`
	Previous        string `json:"previous,omitempty"`
	PreviousVersion string `json:"previousVersion,omitempty"`
	// Booted is set by the first start of the new binary (or by the
	// launcher just before it execs it). A start that finds it set and
	// was not launched for this trial rolls back.
	Booted bool `json:"booted"`
}

// Config holds the updater's settings.
type Config struct {
	// Dir is DATA_DIR/update; created when missing.
	Dir string
	// URL is the release manifest; empty: checks fail with ErrNoURL.
	URL string
	// Key verifies the manifest's signature: the key built into the
	// binary.
	Key ed25519.PublicKey
	// Keys are further trusted keys (LoadKeys): a manifest signed by
	// Key or any of them is accepted.
	Keys []ed25519.PublicKey
	// Version is the running binary's version.
	Version string
	// Arch is the binary's architecture in the manifest; empty: Arch().
	Arch string
	// Client fetches the manifest and binaries; nil: a client whose
	// answers must start within 30 s.
	Client *http.Client
	// Probe runs a downloaded binary to read its version ("eventbox
	// 1.2.0"); nil runs `path version`.
	Probe func(ctx context.Context, path string) (string, error)
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Logger must not be nil.
	Logger *slog.Logger
}

// ErrNoURL is returned by Fetch when no UPDATE_URL is set.
var ErrNoURL = errors.New("no UPDATE_URL set")

// ErrRefused is wrapped when the release host refuses a request with an
// answer that trying again would only repeat: 4xx other than 408, 425
// and 429.
var ErrRefused = errors.New("the release host refused the request")

// Refusal reports whether err is a refusal that trying again cannot
// mend: a refused request (ErrRefused), or a manifest or binary that does
// not check (ErrInvalid: signature, hash, size, the version it names).
// Only other failures (the network, 5xx, the disk) are worth a retry.
func Refusal(err error) bool {
	return errors.Is(err, ErrInvalid) || errors.Is(err, ErrRefused)
}

// Updater checks for, installs and rolls back updates. It is safe for
// concurrent use within one process.
type Updater struct {
	cfg Config
	mu  sync.Mutex // guards the files in Dir and lockFile
	// lockFile holds the flock Boot takes; nil before Boot.
	lockFile *os.File
}

// New returns an Updater over cfg.Dir.
func New(cfg Config) (*Updater, error) {
	if cfg.Arch == "" {
		cfg.Arch = Arch()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: 30 * time.Second,
			TLSHandshakeTimeout: 15 * time.Second,
		}}
	}
	if cfg.Probe == nil {
		cfg.Probe = probe
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "bin"), 0o750); err != nil {
		return nil, fmt.Errorf("creating the update directory: %w", err)
	}
	return &Updater{cfg: cfg}, nil
}

// Version is the running binary's version.
func (u *Updater) Version() string { return u.cfg.Version }

// Arch is the architecture the updater downloads for.
func (u *Updater) Arch() string { return u.cfg.Arch }

// Enabled reports whether an UPDATE_URL is set.
func (u *Updater) Enabled() bool { return u.cfg.URL != "" }

// State reads state.json.
func (u *Updater) State() (State, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.readState()
}

// Fetch downloads and verifies the manifest, records its version as the
// latest, and returns it. A manifest that does not verify wraps
// ErrInvalid and is not recorded.
func (u *Updater) Fetch(ctx context.Context) (Manifest, error) {
	if u.cfg.URL == "" {
		return Manifest{}, ErrNoURL
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	body, err := u.get(ctx, u.cfg.URL)
	if err != nil {
		return Manifest{}, fmt.Errorf("fetching the release manifest: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(body, maxManifest))
	body.Close()
	if err != nil {
		return Manifest{}, fmt.Errorf("reading the release manifest: %w", err)
	}
	m, err := VerifyAny(u.keys(), data)
	if err != nil {
		return Manifest{}, err
	}
	for arch, b := range m.Binaries {
		ref, _ := url.Parse(b.URL)
		base, _ := url.Parse(u.cfg.URL)
		b.URL = base.ResolveReference(ref).String()
		m.Binaries[arch] = b
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	st, err := u.readState()
	if err != nil {
		return m, err
	}
	st.Latest, st.CheckedAt, st.Available = m.Version, u.cfg.Now().UnixMilli(), ""
	if _, ok := u.Available(m); ok {
		st.Available = m.Version
	}
	return m, u.writeState(st)
}

// keys are the trusted release keys.
func (u *Updater) keys() []ed25519.PublicKey {
	return append([]ed25519.PublicKey{u.cfg.Key}, u.cfg.Keys...)
}

// Available returns the binary of m for this box when m is newer than the
// running version; false when it is not newer or lists no binary for this
// architecture.
func (u *Updater) Available(m Manifest) (Binary, bool) {
	b, ok := m.Binaries[u.cfg.Arch]
	return b, ok && Newer(m.Version, u.cfg.Version)
}

func (u *Updater) get(ctx context.Context, rawURL string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "eventbox/"+u.cfg.Version)
	resp, err := u.cfg.Client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		err := fmt.Errorf("%s answered %s", req.URL.Redacted(), resp.Status)
		if permanentStatus(resp.StatusCode) {
			err = fmt.Errorf("%w: %w", ErrRefused, err)
		}
		return nil, err
	}
	return resp.Body, nil
}

// permanentStatus reports whether an HTTP status answers the same when
// asked again: the 4xx, except timeouts and rate limits.
func permanentStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return false
	}
	return code >= 400 && code < 500
}

// Waiting answers the version installed and waiting for its restart (or
// on trial), "" when none.
func (u *Updater) Waiting() (string, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	p, err := u.readPending()
	if err != nil || p == nil {
		return "", err
	}
	return p.Version, nil
}

// Begin records an attempt to install version by job as running. A job
// tried again keeps its one attempt.
func (u *Updater) Begin(version string, job uint64) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.setAttempt(job, func(a *Attempt) {
		a.Version, a.Status, a.Error = version, StatusRunning, ""
	})
}

// Fail records job's attempt as failed with err.
func (u *Updater) Fail(job uint64, err error) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.setAttempt(job, func(a *Attempt) { a.Status, a.Error = StatusFailed, err.Error() })
}

// setAttempt changes job's attempt, adding it when missing; u.mu held.
func (u *Updater) setAttempt(job uint64, change func(*Attempt)) error {
	st, err := u.readState()
	if err != nil {
		return err
	}
	i := -1
	for k := range st.History {
		if job != 0 && st.History[k].Job == job {
			i = k
		}
	}
	if i < 0 {
		st.History = append(st.History, Attempt{From: u.cfg.Version, At: u.cfg.Now().UnixMilli(), Job: job})
		i = len(st.History) - 1
	}
	change(&st.History[i])
	return u.writeState(st)
}

// Install downloads version's binary b (its URL absolute), checks its
// size, hash and that it runs and names itself version, then swaps it in
// as update/current and writes the trial marker. signed is the signed
// release b comes from (Manifest.Signed): it must verify and list b for
// this architecture, and it is kept beside the binary (bin/<name>.release)
// for the check at every start. progress, if not nil, is told the bytes
// written so far. Nothing changes unless every check passes. Installing
// the running version, or the one already waiting for its restart, does
// nothing: the job may be tried again after the restart.
func (u *Updater) Install(ctx context.Context, version string, b Binary, signed []byte, job uint64, progress func(done, total int64)) error {
	if version == u.cfg.Version {
		return nil
	}
	if waiting, err := u.Waiting(); err != nil {
		return err
	} else if waiting == version {
		u.mu.Lock()
		defer u.mu.Unlock()
		return u.setAttempt(job, func(a *Attempt) { a.Version, a.Status, a.Error = version, StatusInstalled, "" })
	}
	name := "eventbox-" + version
	if filepath.Base(name) != name || strings.ContainsAny(version, `/\`) {
		return fmt.Errorf("%w: version %q", ErrInvalid, version)
	}
	m, err := VerifyAny(u.keys(), signed)
	if err != nil {
		return err
	}
	if sb, ok := m.Binaries[u.cfg.Arch]; m.Version != version || !ok || sb.SHA256 != b.SHA256 || sb.Size != b.Size {
		return fmt.Errorf("%w: the signed release does not list this binary of %s for %s", ErrInvalid, version, u.cfg.Arch)
	}
	if err := u.download(ctx, b, name, progress); err != nil {
		return err
	}
	final := filepath.Join(u.cfg.Dir, "bin", name)
	out, err := u.cfg.Probe(ctx, final)
	if answer := strings.TrimSpace(out); err != nil || answer != "eventbox "+version {
		// Running it again would answer the same: a refusal.
		why := fmt.Sprintf("it answered %q", answer)
		if err != nil {
			why = err.Error()
		}
		return errors.Join(fmt.Errorf("%w: the downloaded binary does not run here as eventbox %s: %s", ErrInvalid, version, why),
			os.Remove(final))
	}
	if err := writeFile(final+releaseSuffix, m.Signed); err != nil {
		return errors.Join(err, os.Remove(final))
	}
	return u.swap(version, name, job)
}

// download streams b into bin/<name>, hashing while it writes, and
// renames it into place only when size and hash match.
func (u *Updater) download(ctx context.Context, b Binary, name string, progress func(done, total int64)) (err error) {
	body, err := u.get(ctx, b.URL)
	if err != nil {
		return fmt.Errorf("downloading the binary: %w", err)
	}
	defer body.Close()
	// One update job runs at a time: a download file left over is from
	// an attempt cut by a power cut.
	if old, _ := filepath.Glob(filepath.Join(u.cfg.Dir, "bin", ".download-*")); len(old) > 0 {
		for _, o := range old {
			if err := os.Remove(o); err != nil {
				u.cfg.Logger.Warn("removing an unfinished download", "error", err)
			}
		}
	}
	f, err := os.CreateTemp(filepath.Join(u.cfg.Dir, "bin"), ".download-*")
	if err != nil {
		return fmt.Errorf("creating the download file: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, f.Close(), os.Remove(f.Name()))
		}
	}()
	h := newHashWriter(f, b.Size, progress)
	if _, err := io.Copy(h, io.LimitReader(body, b.Size+1)); err != nil {
		return fmt.Errorf("downloading the binary: %w", err)
	}
	if err := h.check(b); err != nil {
		return err
	}
	if err := f.Chmod(0o755); err != nil {
		return fmt.Errorf("making the binary executable: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing the binary: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing the binary: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(u.cfg.Dir, "bin", name)); err != nil {
		return errors.Join(fmt.Errorf("moving the binary into place: %w", err), os.Remove(f.Name()))
	}
	return syncDir(filepath.Join(u.cfg.Dir, "bin"))
}

// swap writes the trial marker, then points current at bin/name.
func (u *Updater) swap(version, name string, job uint64) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	st, err := u.readState()
	if err != nil {
		return err
	}
	prev, _ := os.Readlink(u.link())
	p := pending{Version: version, From: u.cfg.Version, At: u.cfg.Now().UnixMilli(), Job: job,
		Path: name, Previous: prev, PreviousVersion: st.Installed}
	// The marker goes first: a power cut before the link moves leaves a
	// marker whose binary is not current, which Boot drops.
	if err := u.writeJSON("pending.json", p); err != nil {
		return err
	}
	if err := u.setLink(filepath.Join("bin", name)); err != nil {
		return err
	}
	st.Installed = version
	if err := u.writeState(st); err != nil {
		return err
	}
	if err := u.setAttempt(job, func(a *Attempt) { a.Version, a.Status, a.Error = version, StatusInstalled, "" }); err != nil {
		return err
	}
	u.prune(name, prev)
	return nil
}

// prune removes downloaded binaries other than keep.
func (u *Updater) prune(keep ...string) {
	entries, err := os.ReadDir(filepath.Join(u.cfg.Dir, "bin"))
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".download-") {
			continue
		}
		kept := false
		for _, k := range keep {
			kept = kept || filepath.Base(k) == strings.TrimSuffix(n, releaseSuffix)
		}
		if !kept {
			if err := os.Remove(filepath.Join(u.cfg.Dir, "bin", n)); err != nil {
				u.cfg.Logger.Warn("removing an old update binary", "error", err)
			}
		}
	}
}

func (u *Updater) link() string { return filepath.Join(u.cfg.Dir, "current") }

// setLink points current at target (relative to Dir) in one rename;
// target "" removes it.
func (u *Updater) setLink(target string) error {
	if target == "" {
		if err := os.Remove(u.link()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the update link: %w", err)
		}
		return syncDir(u.cfg.Dir)
	}
	tmp := u.link() + ".new"
	_ = os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("making the update link: %w", err)
	}
	if err := os.Rename(tmp, u.link()); err != nil {
		return fmt.Errorf("swapping the update link: %w", err)
	}
	return syncDir(u.cfg.Dir)
}

func (u *Updater) readState() (State, error) {
	var st State
	err := u.readJSON("state.json", &st)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return st, err
}

func (u *Updater) writeState(st State) error {
	if n := len(st.History); n > historyKept {
		st.History = st.History[n-historyKept:]
	}
	if st.History == nil {
		st.History = []Attempt{}
	}
	return u.writeJSON("state.json", st)
}

// readPending answers nil when there is no update on trial.
func (u *Updater) readPending() (*pending, error) {
	var p pending
	err := u.readJSON("pending.json", &p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func (u *Updater) removePending() error {
	if err := os.Remove(filepath.Join(u.cfg.Dir, "pending.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the update marker: %w", err)
	}
	return syncDir(u.cfg.Dir)
}

func (u *Updater) readJSON(name string, v any) error {
	b, err := os.ReadFile(filepath.Join(u.cfg.Dir, name))
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decoding %s: %w", name, err)
	}
	return nil
}

// writeJSON replaces Dir/name with v's JSON: temp file, fsync, rename.
func (u *Updater) writeJSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", name, err)
	}
	return writeFile(filepath.Join(u.cfg.Dir, name), append(b, '\n'))
}

func writeFile(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("writing %s: %w", path, err), f.Close(), os.Remove(f.Name()))
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening %s to sync it: %w", dir, err)
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// probe runs `path version` and returns what it printed. A binary just
// written can be "text file busy" for a moment: a child another goroutine
// of this process forked while the file was open for writing holds it
// until that child execs. The run is tried again then, for up to a second.
func probe(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	for wait := 10 * time.Millisecond; ; wait *= 2 {
		out.Reset()
		cmd := exec.CommandContext(ctx, path, "version")
		cmd.Stdout = &out
		err := cmd.Run()
		if err == nil {
			return out.String(), nil
		}
		if !errors.Is(err, syscall.ETXTBSY) || wait > time.Second {
			return out.String(), fmt.Errorf("running %s version: %w", filepath.Base(path), err)
		}
		select {
		case <-ctx.Done():
			return out.String(), fmt.Errorf("running %s version: %w", filepath.Base(path), ctx.Err())
		case <-time.After(wait):
		}
	}
}
