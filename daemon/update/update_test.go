package update_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"eventbox/daemon/update"
)

// release is an httptest release host: a signed manifest at /manifest.json
// and the binaries it lists.
type release struct {
	srv   *httptest.Server
	key   ed25519.PrivateKey
	files map[string][]byte
	// manifest is served as is when not nil.
	manifest []byte
}

func newRelease(t *testing.T) *release {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	r := &release{key: key, files: map[string][]byte{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		name := strings.TrimPrefix(req.URL.Path, "/")
		if name == "manifest.json" {
			w.Write(r.manifest)
			return
		}
		b, ok := r.files[name]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *release) public() ed25519.PublicKey { return r.key.Public().(ed25519.PublicKey) }

// script is a stand-in binary: a shell script that answers `version`.
func script(version string) []byte {
	return []byte("#!/bin/sh\necho eventbox " + version + "\n")
}

// publish serves version with body as the binary of arch, described
// honestly, and signs the manifest.
func (r *release) publish(t *testing.T, version, arch string, body []byte) update.Manifest {
	t.Helper()
	name := "eventbox-" + arch + "-" + version
	r.files[name] = body
	sum := sha256.Sum256(body)
	m := update.Manifest{Version: version, Binaries: map[string]update.Binary{
		arch: {URL: name, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])},
	}}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if r.manifest, err = update.Sign(r.key, raw); err != nil {
		t.Fatal(err)
	}
	return m
}

func newUpdater(t *testing.T, r *release, dir, version string) *update.Updater {
	t.Helper()
	u, err := update.New(update.Config{Dir: dir, URL: r.srv.URL + "/manifest.json", Key: r.public(),
		Version: version, Arch: "amd64", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestVerifyRefusesAnythingNotSignedByTheKey(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	pub := key.Public().(ed25519.PublicKey)
	raw := []byte(`{"version":"1.1.0","binaries":{"amd64":{"url":"x","size":3,"sha256":"` + strings.Repeat("ab", 32) + `"}}}`)
	good, err := update.Sign(key, raw)
	if err != nil {
		t.Fatal(err)
	}
	wrong, _ := update.Sign(other, raw)
	tampered := []byte(strings.Replace(string(good), `"size":3`, `"size":4`, 1))
	unsigned := []byte(`{"manifest":` + string(raw) + `}`)
	for _, tc := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"a manifest signed by the key is accepted", good, true},
		{"an unsigned manifest is refused", unsigned, false},
		{"a manifest signed by another key is refused", wrong, false},
		{"a manifest changed after signing is refused", tampered, false},
		{"a bare manifest is refused", raw, false},
		{"garbage is refused", []byte("<html>"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := update.Verify(pub, tc.data)
			if tc.ok != (err == nil) {
				t.Fatalf("Verify: %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, update.ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if tc.ok && m.Version != "1.1.0" {
				t.Errorf("version %q", m.Version)
			}
		})
	}
}

func TestNewer(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"1.1.0", "1.0.0", true}, {"1.0.0", "1.1.0", false}, {"1.0.0", "1.0.0", false},
		{"1.10.0", "1.9.9", true}, {"1.0.0", "1.0.0-rc1", true}, {"1.0.0-rc1", "1.0.0", false},
		{"1.0.0", "dev", true}, {"dev", "1.0.0", false}, {"v2.0.0", "1.0.0", true},
	} {
		if got := update.Newer(tc.a, tc.b); got != tc.want {
			t.Errorf("Newer(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

// listing is the update directory's files and the link's target, to
// prove that a refused update changed nothing.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		if d.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			rel += " -> " + target
		} else if !d.IsDir() {
			b, _ := os.ReadFile(path)
			sum := sha256.Sum256(b)
			rel += " " + hex.EncodeToString(sum[:4])
		}
		names = append(names, rel)
		return nil
	})
	return strings.Join(names, "\n")
}

func TestInstallRefusesABadDownloadAndChangesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		arch   string
		body   []byte
		serve  []byte // what the host actually sends, when not body
		refuse string // in the error
	}{
		{name: "a binary changed on the host fails its hash", body: script("1.1.0"),
			serve: []byte(strings.Replace(string(script("1.1.0")), "eventbox", "evilbox!", 1)), refuse: "SHA-256"},
		{name: "a longer binary fails its size", body: script("1.1.0"), serve: append(script("1.1.0"), "#x\n"...), refuse: "longer"},
		{name: "a shorter binary fails its size", body: script("1.1.0"), serve: script("1.1.0")[:10], refuse: "bytes"},
		{name: "a binary for another machine does not run here", body: []byte("\x7fELF\x02\x01\x01garbage-of-another-arch"), refuse: "does not run"},
		{name: "a binary that names another version is refused", body: script("1.0.9"), refuse: "does not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRelease(t)
			dir := t.TempDir()
			u := newUpdater(t, r, dir, "1.0.0")
			r.publish(t, "1.1.0", "amd64", tc.body)
			if tc.serve != nil {
				r.files["eventbox-amd64-1.1.0"] = tc.serve
			}
			m, err := u.Fetch(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			before := listing(t, filepath.Join(dir, "bin"))
			b, ok := u.Available(m)
			if !ok {
				t.Fatal("1.1.0 not available")
			}
			err = u.Install(t.Context(), m.Version, b, m.Signed, 7, nil)
			if err == nil || !strings.Contains(err.Error(), tc.refuse) {
				t.Fatalf("Install: %v, want an error about %q", err, tc.refuse)
			}
			if after := listing(t, filepath.Join(dir, "bin")); after != before {
				t.Errorf("bin/ changed:\n%s\nwas\n%s", after, before)
			}
			for _, f := range []string{"current", "pending.json"} {
				if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s exists after a refused update", f)
				}
			}
		})
	}
}

func TestCheckRefusesAManifestWithoutThisArchitecture(t *testing.T) {
	r := newRelease(t)
	u := newUpdater(t, r, t.TempDir(), "1.0.0")
	r.publish(t, "1.1.0", "arm64", script("1.1.0"))
	m, err := u.Fetch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.Available(m); ok {
		t.Error("a release without an amd64 binary is available to an amd64 box")
	}
}

func TestFetchRefusesAnUnsignedManifest(t *testing.T) {
	r := newRelease(t)
	dir := t.TempDir()
	u := newUpdater(t, r, dir, "1.0.0")
	r.publish(t, "1.1.0", "amd64", script("1.1.0"))
	var env map[string]json.RawMessage
	json.Unmarshal(r.manifest, &env)
	r.manifest = []byte(`{"manifest":` + string(env["manifest"]) + `}`)
	if _, err := u.Fetch(t.Context()); !errors.Is(err, update.ErrInvalid) {
		t.Fatalf("Fetch: %v, want ErrInvalid", err)
	}
	st, err := u.State()
	if err != nil || st.Latest != "" {
		t.Errorf("state after a refused manifest: %+v, %v", st, err)
	}
}

// installed sets up a box running "old" (a binary outside the update
// directory) that installed 1.1.0 and is about to restart.
func installed(t *testing.T) (r *release, dir, old string, u *update.Updater) {
	t.Helper()
	r = newRelease(t)
	dir = t.TempDir()
	old = filepath.Join(t.TempDir(), "eventbox")
	if err := os.WriteFile(old, script("1.0.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	u = newUpdater(t, r, dir, "1.0.0")
	r.publish(t, "1.1.0", "amd64", script("1.1.0"))
	m, err := u.Fetch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := u.Available(m)
	if err := u.Begin(m.Version, 3); err != nil {
		t.Fatal(err)
	}
	var last int64
	if err := u.Install(t.Context(), m.Version, b, m.Signed, 3, func(done, total int64) { last = done }); err != nil {
		t.Fatal(err)
	}
	if last != b.Size {
		t.Errorf("progress ended at %d of %d", last, b.Size)
	}
	return r, dir, old, u
}

func history(t *testing.T, u *update.Updater) []string {
	t.Helper()
	st, err := u.State()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range st.History {
		out = append(out, a.From+"->"+a.Version+" "+a.Status)
	}
	return out
}

func TestAHealthyUpdateIsKept(t *testing.T) {
	r, dir, old, u := installed(t)
	newBin := filepath.Join(dir, "bin", "eventbox-1.1.0")
	// The old binary starts again (the restart) and launches the new one.
	start, err := boot(u, old, false)
	if err != nil || start.Exec != newBin {
		t.Fatalf("Boot of the old binary = %+v, %v; want Exec %s", start, err, newBin)
	}
	nu := newUpdater(t, r, dir, "1.1.0")
	start, err = boot(nu, newBin, true)
	if err != nil || !start.Trial {
		t.Fatalf("Boot of the new binary = %+v, %v; want a trial", start, err)
	}
	if err := nu.Confirm(t.Context(), func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := history(t, nu); strings.Join(got, ",") != "1.0.0->1.1.0 ok" {
		t.Errorf("history %v", got)
	}
	// Every later start of the packaged binary runs the update.
	start, err = boot(u, old, false)
	if err != nil || start.Exec != newBin {
		t.Fatalf("a later Boot = %+v, %v", start, err)
	}
	start, err = boot(nu, newBin, true)
	if err != nil || start.Trial {
		t.Fatalf("a later launched Boot = %+v, %v; want no trial", start, err)
	}
}

func TestAnUpdateThatIsNotHealthyIsRolledBackAtTheNextStart(t *testing.T) {
	r, dir, old, u := installed(t)
	newBin := filepath.Join(dir, "bin", "eventbox-1.1.0")
	if start, err := boot(u, old, false); err != nil || start.Exec != newBin {
		t.Fatalf("Boot = %+v, %v", start, err)
	}
	nu := newUpdater(t, r, dir, "1.1.0")
	if start, err := boot(nu, newBin, true); err != nil || !start.Trial {
		t.Fatalf("Boot = %+v, %v", start, err)
	}
	synctest.Test(t, func(t *testing.T) {
		err := nu.Confirm(t.Context(), func(context.Context) error { return errors.New("503") })
		if err == nil {
			t.Fatal("Confirm succeeded with a failing health check")
		}
	})
	// The daemon exits; the service manager starts the packaged binary.
	start, err := boot(u, old, false)
	if err != nil || start.Exec != "" || start.RolledBack != "1.1.0" {
		t.Fatalf("Boot after the failed trial = %+v, %v; want a rollback and no exec", start, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "current")); err == nil {
		t.Error("current still set after the rollback")
	}
	if got := history(t, u); strings.Join(got, ",") != "1.0.0->1.1.0 rolled_back" {
		t.Errorf("history %v", got)
	}
}

func TestAnUpdateThatDiesBeforeServingIsRolledBack(t *testing.T) {
	_, dir, old, u := installed(t)
	if start, err := boot(u, old, false); err != nil || start.Exec == "" {
		t.Fatalf("Boot = %+v, %v", start, err)
	}
	// The exec'd binary died at once; systemd starts the packaged one.
	start, err := boot(u, old, false)
	if err != nil || start.RolledBack != "1.1.0" || start.Exec != "" {
		t.Fatalf("Boot = %+v, %v", start, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pending.json")); err == nil {
		t.Error("marker left after the rollback")
	}
}

func TestANewerPackageWinsOverAnOlderDownload(t *testing.T) {
	r, dir, old, _ := installed(t)
	// dpkg installed 1.2.0 at the packaged path.
	pkg := newUpdater(t, r, dir, "1.2.0")
	start, err := boot(pkg, old, false)
	if err != nil || start.Exec != "" {
		t.Fatalf("Boot = %+v, %v; want the package to run", start, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "current")); err == nil {
		t.Error("current still set")
	}
}

func TestInstallingTheSameVersionAgainDoesNothing(t *testing.T) {
	r, _, _, u := installed(t)
	delete(r.files, "eventbox-amd64-1.1.0")
	m, err := u.Fetch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := u.Available(m)
	if err := u.Install(t.Context(), "1.1.0", b, m.Signed, 3, nil); err != nil {
		t.Fatalf("a second Install of the waiting version: %v", err)
	}
	if got := history(t, u); strings.Join(got, ",") != "1.0.0->1.1.0 installed" {
		t.Errorf("history %v", got)
	}
}

// boot is one start of a process: Boot, and the lock let go as the
// process ends.
func boot(u *update.Updater, self string, launched bool) (update.Start, error) {
	start, err := u.Boot(self, launched)
	return start, errors.Join(err, u.Close())
}

func TestASecondDaemonDecidesNothing(t *testing.T) {
	r, dir, old, u := installed(t)
	first, err := u.Boot(old, false)
	if err != nil || first.Exec == "" {
		t.Fatalf("Boot = %+v, %v", first, err)
	}
	defer u.Close()
	// The first one runs (the trial); a second is started by hand.
	second := newUpdater(t, r, dir, "1.0.0")
	if _, err := second.Boot(old, false); !errors.Is(err, update.ErrRunning) {
		t.Fatalf("a second Boot: %v, want ErrRunning", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pending.json")); err != nil {
		t.Error("the second daemon touched the trial")
	}
}

func TestAnInstalledBinaryThatCannotRunIsLeftBehind(t *testing.T) {
	r, dir, old, u := installed(t)
	if _, err := boot(u, old, false); err != nil {
		t.Fatal(err)
	}
	nu := newUpdater(t, r, dir, "1.1.0")
	if _, err := boot(nu, filepath.Join(dir, "bin", "eventbox-1.1.0"), true); err != nil {
		t.Fatal(err)
	}
	if err := nu.Confirm(t.Context(), func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// Later the file cannot run (a card error took its execute bit; a
	// lost file is refused by Boot's check before any exec); the exec
	// fails.
	os.Chmod(filepath.Join(dir, "bin", "eventbox-1.1.0"), 0o644)
	start, err := boot(u, old, false)
	if err != nil || start.Exec == "" {
		t.Fatalf("Boot = %+v, %v", start, err)
	}
	if err := u.Rollback("exec: no such file"); err != nil {
		t.Fatal(err)
	}
	if start, err := boot(u, old, false); err != nil || start.Exec != "" {
		t.Fatalf("the next Boot = %+v, %v; want the packaged binary", start, err)
	}
}
