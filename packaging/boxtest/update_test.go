package boxtest

import (
	"archive/zip"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/daemon/backupzip"
	"eventbox/daemon/update"
)

// updateCuts is how many times powerCutsDuringAnUpdate pulls the plug
// while the box updates itself (BOXTEST_UPDATE_CUTS, default 2).
func updateCuts(t *testing.T) int {
	return envCount(t, "BOXTEST_UPDATE_CUTS", 2)
}

// releaseDir is where the test publishes its releases, on the card's data
// partition (flushed once written, so the cuts keep them); the agent
// serves it to the box's daemon as its release host.
const releaseDir = "/data/boxtest-release"

// updateURL is the box's UPDATE_URL: the agent in the machine, which
// serves its files by path, so the binary's URL is relative to it.
const updateURL = "http://127.0.0.1:7000/files" + releaseDir + "/release.json"

// The moments of an update a cut aims at: while the box backs itself up
// (before the apply answers), while it downloads and checks the release
// (after the answer), and at the swap or just after it (once the attempt
// says installed or the new version answers).
var updatePhases = []string{"the backup", "the download", "the swap"}

// powerCutsDuringAnUpdate updates the box to a release signed with a key
// it trusts, served in the machine, and cuts its power while it does:
// during the backup it makes first, the download and its checks, the swap
// of the binary, or just after. After every cut the box boots and runs
// either the version it had or the new one; every backup it keeps opens as
// a ZIP whose files are those its manifest lists, byte for byte, and the
// one the apply answered with, if it answered, is among them; the update
// resumes, or is applied again, and completes; and every photo is
// listed and byte for byte what was sent. At the end no media file is
// named by no record, no temp file remains and bbolt's own check finds
// the database whole.
func powerCutsDuringAnUpdate(t *testing.T, b *lossyBox) {
	m, rng := b.m.in(t), b.rng
	h, slug, eventID := b.newEvent(m, "Léa & Tom")
	g := m.guest(slug)
	acked := map[string]string{}
	for i := range 10 {
		photo := noisyJPEG(uint64(5000 + i))
		id, err := g.upload(slug, photo)
		if err != nil || id == "" {
			t.Fatalf("uploading photo %d: %v", i, err)
		}
		sum := sha256.Sum256(photo)
		acked[id] = hex.EncodeToString(sum[:])
	}

	// The box trusts the test's release key (the owner's keys file) and
	// asks the agent for releases; both are in /etc, kept on /data.
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	m.sh("", "sh", "-c", fmt.Sprintf("mkdir -p /etc/eventbox && printf '\\n%s\\n' >> /etc/eventbox/release-keys && printf '\\nUPDATE_URL=%s\\n' >> /etc/default/eventbox && sync",
		base64.StdEncoding.EncodeToString(pub), updateURL))
	m.sh("", "systemctl", "restart", "eventbox")
	m.waitHealth()
	first := h.updates()
	if first.Current == "" || !first.CheckEnabled {
		t.Fatalf("the box's updates after setting UPDATE_URL: %+v", first)
	}
	t.Logf("the box runs eventbox %s (updater %s) with %d photos; releases come from %s", first.Current, first.Updater, len(acked), updateURL)

	build := t.TempDir()
	states := map[string]int{}
	var ways []string
	cuts := updateCuts(t)
	offset := rng.IntN(len(updatePhases))
	for round := 1; round <= cuts; round++ {
		from := h.updates().Current
		to := nextVersion(from)
		m.publishRelease(priv, to, buildRelease(t, build, to))
		if got := h.json("POST", "/api/admin/updates/check", nil, http.StatusOK); got["available"] != to {
			t.Fatalf("the box's check found %v, want %s available", got, to)
		}

		phase := updatePhases[(round-1+offset)%len(updatePhases)]
		applied := make(chan string, 1)
		start := time.Now()
		go func() {
			st, b, err := h.try("POST", "/api/admin/updates/apply", map[string]any{"version": to})
			if err != nil {
				applied <- "no answer"
				return
			}
			applied <- fmt.Sprintf("%d %s", st, bytes.TrimSpace(b))
		}()
		answer := ""
		switch phase {
		case "the backup":
			// The apply fetches the release, backs up and answers: a
			// backup of these photos takes well under a second.
			time.Sleep(time.Duration(30+rng.IntN(600)) * time.Millisecond)
		case "the download":
			select {
			case answer = <-applied:
			case <-time.After(5 * time.Minute):
				t.Fatal("the apply did not answer in 5 minutes")
			}
			time.Sleep(time.Duration(rng.IntN(4000)) * time.Millisecond)
		case "the swap":
			deadline := time.Now().Add(10 * time.Minute)
			for {
				u, err := h.tryUpdates()
				if err == nil && (u.Current == to || u.attempt(to) == update.StatusInstalled || u.attempt(to) == update.StatusOK) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the update to %s was not installed in 10 minutes: %+v", to, u)
				}
				time.Sleep(300 * time.Millisecond)
			}
			time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
		}
		doing := "not answering"
		quick := &host{t: t, base: h.base, c: &http.Client{Jar: h.c.Jar, Timeout: 5 * time.Second}}
		if u, err := quick.tryUpdates(); err == nil {
			doing = u.doing(to)
		}
		wait := time.Since(start).Round(100 * time.Millisecond)
		m.powerOff()
		if answer == "" {
			answer = <-applied
		}
		pending, name := b.cut(t, round)

		m = b.boot(t)
		h.base, g.base = m.http, m.http
		u := m.waitUpdates(h)
		state := ""
		switch u.Current {
		case from:
			state = "the version it had"
		case to:
			state = "the new version"
		default:
			t.Fatalf("after cut %d the box runs %q, neither %s nor %s", round, u.Current, from, to)
		}
		states[state]++
		state += ", " + u.Current
		kept, partial := m.checkBackups()
		// A backup the apply answered with was acknowledged: it must be
		// there (and whole) whatever the cut did after.
		if named, ok := strings.CutPrefix(answer, "202 "); ok {
			var v struct {
				Backup string `json:"backup"`
			}
			if err := json.Unmarshal([]byte(named), &v); err != nil || v.Backup == "" {
				t.Fatalf("the apply answered %s: no backup named", named)
			}
			if !slices.Contains(kept, v.Backup) {
				t.Errorf("after cut %d the backup %s the apply answered with is not kept (kept: %v)", round, v.Backup, kept)
			}
		}
		t.Logf("cut %d during %s, %s after the apply (it had answered %s; the box was %s): %d writes were not flushed (%s); "+
			"the box came back with %s; %d backups kept and checked, %d partial backup files left",
			round, phase, wait, answer, doing, pending, name, state, len(kept), partial)

		way := m.finishUpdate(h, to)
		ways = append(ways, way)
		if lost := m.checkAcked(h, eventID, acked); lost > 0 {
			t.Fatalf("after cut %d, %d photos are not whole", round, lost)
		}
		kept, partial = m.checkBackups()
		t.Logf("cut %d: the update to %s %s; %d photos listed, each whole; %d backups kept and checked, %d partial", round, to, way, len(acked), len(kept), partial)
	}

	files, unnamed, tmp := m.leftovers(h, b.events...)
	if len(unnamed) > 0 {
		t.Errorf("%d media files are named by no record: %v", len(unnamed), unnamed)
	}
	if len(tmp) > 0 {
		t.Errorf("temp files remain: %v", tmp)
	}
	if left := strings.TrimSpace(m.sh("", "sh", "-c", "find /var/lib/eventbox/update/bin -name '.download-*' 2>/dev/null || true")); left != "" {
		t.Errorf("unfinished downloads are left after the update completed: %s", left)
	}
	kept, partial := m.checkBackups()
	if partial > 0 {
		t.Errorf("%d partial backup files are left after the last backup", partial)
	}
	t.Logf("%d power cuts during an update: the box came back with %v; the updates then %v; %d photos acknowledged, 0 lost; "+
		"%d backups kept and checked; %d media files, %d named by no record",
		cuts, states, ways, len(acked), len(kept), len(files), len(unnamed))
}

// nextVersion is a release newer than v: its patch number plus one (a
// version that is not semantic, a "dev" build, is older than 0.0.1).
func nextVersion(v string) string {
	core, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), "+")
	core, _, _ = strings.Cut(core, "-")
	var n [3]int
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return "0.0.1"
	}
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil {
			return "0.0.1"
		}
		n[i] = x
	}
	return fmt.Sprintf("%d.%d.%d", n[0], n[1], n[2]+1)
}

// buildRelease builds the daemon for the box as version.
func buildRelease(t *testing.T, dir, version string) string {
	t.Helper()
	bin := filepath.Join(dir, "eventbox-"+version)
	started := time.Now()
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "-ldflags", "-X main.version="+version, "eventbox/cmd/eventbox")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building eventbox %s for arm64: %v\n%s", version, err, out)
	}
	t.Logf("built eventbox %s for arm64 in %s", version, time.Since(started).Round(time.Second))
	return bin
}

// publishRelease signs version's manifest as `eventbox release-sign` does,
// with bin for arm64 beside it, and writes both into the machine's
// release folder, flushed.
func (m *machine) publishRelease(key ed25519.PrivateKey, version, bin string) {
	m.t.Helper()
	raw, err := os.ReadFile(bin)
	if err != nil {
		m.t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	name := filepath.Base(bin)
	man := update.Manifest{Version: version, PublishedAt: time.Now().UnixMilli(),
		Binaries: map[string]update.Binary{"arm64": {URL: name, Size: int64(len(raw)), SHA256: hex.EncodeToString(sum[:])}}}
	body, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		m.t.Fatal(err)
	}
	signed, err := update.Sign(key, body)
	if err != nil {
		m.t.Fatal(err)
	}
	local := filepath.Join(filepath.Dir(bin), "release.json")
	if err := os.WriteFile(local, signed, 0o644); err != nil {
		m.t.Fatal(err)
	}
	m.put(bin, releaseDir+"/"+name)
	m.put(local, releaseDir+"/release.json")
	m.sh("", "sync")
}

// updatesState is what GET /api/admin/updates answers, in part.
type updatesState struct {
	Current      string `json:"current"`
	CheckEnabled bool   `json:"checkEnabled"`
	Updater      string `json:"updater"`
	History      []struct {
		Version string `json:"version"`
		Status  string `json:"status"`
		Error   string `json:"error"`
	} `json:"history"`
	Applying *struct {
		Version string `json:"version"`
		Status  string `json:"status"`
		Done    int64  `json:"done"`
		Total   int64  `json:"total"`
		Note    string `json:"note"`
		Error   string `json:"error"`
	} `json:"applying"`
}

// attempt is the status of the newest attempt at version, "" when none.
func (u updatesState) attempt(version string) string {
	for _, a := range u.History {
		if a.Version == version {
			return a.Status
		}
	}
	return ""
}

// doing says in words what the box said of the update.
func (u updatesState) doing(version string) string {
	s := "running " + u.Current
	if a := u.attempt(version); a != "" {
		s += ", the attempt at " + version + " " + a
	}
	if j := u.Applying; j != nil {
		s += fmt.Sprintf(", its job %s (%s %d/%d bytes)", j.Status, j.Note, j.Done, j.Total)
	}
	return s
}

// try is a request that tolerates a box going away (a restart, a cut).
func (h *host) try(method, path string, body any) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.base+path, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Origin", h.base)
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func (h *host) tryUpdates() (updatesState, error) {
	var u updatesState
	st, b, err := h.try("GET", "/api/admin/updates", nil)
	if err != nil {
		return u, err
	}
	if st != http.StatusOK {
		return u, fmt.Errorf("GET /api/admin/updates answered %d %s", st, b)
	}
	return u, json.Unmarshal(b, &u)
}

// updates reads the box's updates, failing the test when it cannot.
func (h *host) updates() updatesState {
	h.t.Helper()
	u, err := h.tryUpdates()
	if err != nil {
		h.t.Fatal(err)
	}
	return u
}

// waitUpdates reads the updates once the box answers them (it may be
// restarting into an update).
func (m *machine) waitUpdates(h *host) updatesState {
	m.t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		u, err := h.tryUpdates()
		if err == nil {
			return u
		}
		if time.Now().After(deadline) {
			m.fail("the box did not answer its updates in 5 minutes: %v", err)
		}
		time.Sleep(time.Second)
	}
}

// waitHealth waits until the daemon answers again after a restart.
func (m *machine) waitHealth() {
	m.t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if st, _ := m.get("/api/health"); st == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			m.fail("the daemon did not answer /api/health in 5 minutes after its restart")
		}
		time.Sleep(time.Second)
	}
}

// finishUpdate waits until the box runs version and the update confirmed
// itself healthy: the stored job resumes, or, when none is left, the
// update is applied again. It says which.
func (m *machine) finishUpdate(h *host, version string) string {
	m.t.Helper()
	way := "had completed"
	deadline := time.Now().Add(15 * time.Minute)
	for {
		u, err := h.tryUpdates()
		switch {
		case err != nil:
			// Restarting into the update.
		case u.Current == version && u.attempt(version) == update.StatusOK:
			return way
		case u.Current == version:
			// On trial until it confirms itself healthy.
		case u.Applying != nil:
			if way == "had completed" {
				way = "resumed (its job was stored)"
			}
		case way == "had completed" || way == "resumed (its job was stored)":
			st, b, err := h.try("POST", "/api/admin/updates/apply", map[string]any{"version": version})
			switch {
			case err != nil:
			case st == http.StatusAccepted:
				way = "was applied again and completed"
			case st == http.StatusConflict:
				// Installed and restarting, or its job just stored.
			default:
				m.t.Fatalf("applying %s again answered %d %s", version, st, b)
			}
		case u.attempt(version) == update.StatusFailed || u.attempt(version) == update.StatusRolledBack:
			m.t.Fatalf("the update to %s ended %s: %+v", version, u.attempt(version), u)
		}
		if time.Now().After(deadline) {
			m.fail("the update to %s did not complete in 15 minutes: %+v", version, u)
		}
		time.Sleep(time.Second)
	}
}

// checkBackups opens every backup the box keeps on its card as a ZIP and
// checks its files against its manifest, byte for byte: none may be half
// written under a backup's name. It answers their names and how many temp
// files of cut backups are left beside them.
func (m *machine) checkBackups() (kept []string, partial int) {
	m.t.Helper()
	dir := "/var/lib/eventbox/backups"
	for _, name := range strings.Fields(m.sh("", "sh", "-c", "ls -A "+dir+" 2>/dev/null || true")) {
		if strings.HasPrefix(name, ".partial-") {
			partial++
			continue
		}
		if !strings.HasSuffix(name, ".zip") {
			continue
		}
		kept = append(kept, name)
		resp, err := http.Get(m.agent + "/file?path=" + dir + "/" + name)
		if err != nil {
			m.fail("reading backup %s: %v", name, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			m.fail("reading backup %s: %s %v", name, resp.Status, err)
		}
		if err := wholeBackup(b); err != nil {
			m.t.Errorf("backup %s (%d bytes) is not whole: %v", name, len(b), err)
		}
	}
	return kept, partial
}

// wholeBackup checks that a backup opens as a ZIP and holds exactly the
// files its manifest lists, each of its size and SHA-256.
func wholeBackup(b []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return fmt.Errorf("opening it as a ZIP: %w", err)
	}
	var man backupzip.Manifest
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	mf := files[backupzip.ManifestName]
	if mf == nil {
		return fmt.Errorf("no %s", backupzip.ManifestName)
	}
	if err := readJSONFile(mf, &man); err != nil {
		return err
	}
	if len(man.Files) != len(files)-1 {
		return fmt.Errorf("its manifest lists %d files, the ZIP holds %d besides it", len(man.Files), len(files)-1)
	}
	for _, want := range man.Files {
		f := files[want.Name]
		if f == nil {
			return fmt.Errorf("%s is listed but missing", want.Name)
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("opening %s: %w", want.Name, err)
		}
		h := sha256.New()
		n, err := io.Copy(h, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("reading %s: %w", want.Name, err)
		}
		if n != want.Bytes || hex.EncodeToString(h.Sum(nil)) != want.SHA256 {
			return fmt.Errorf("%s has %d bytes that are not the %d its manifest describes", want.Name, n, want.Bytes)
		}
	}
	return nil
}

func readJSONFile(f *zip.File, v any) error {
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("opening %s: %w", f.Name, err)
	}
	defer rc.Close()
	if err := json.NewDecoder(rc).Decode(v); err != nil {
		return fmt.Errorf("reading %s: %w", f.Name, err)
	}
	return nil
}
