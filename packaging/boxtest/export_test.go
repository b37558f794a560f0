package boxtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/webdav"

	"eventbox/daemon/cloudexport"
	davclient "eventbox/webdav"
)

// exportCuts is how many times powerCutsDuringAnExport pulls the plug
// while the box sends an event to the cloud (BOXTEST_EXPORT_CUTS, default
// 2).
func exportCuts(t *testing.T) int {
	return envCount(t, "BOXTEST_EXPORT_CUTS", 2)
}

// davAddr is where the machine reaches the test's WebDAV server.
const davAddr = "10.0.2.100:80"

// serveDAV runs a WebDAV server on the host for the test's time, reachable
// by the card's machine at davAddr, and answers the directory it serves.
func serveDAV(t *testing.T, c *card) string {
	t.Helper()
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dav := &http.Server{Handler: &webdav.Handler{FileSystem: webdav.Dir(dir), LockSystem: webdav.NewMemLS()}}
	go func() { _ = dav.Serve(l) }()
	t.Cleanup(func() { dav.Close() })
	c.reachHost(t, davAddr, l.Addr().String())
	return dir
}

// davTarget is the test's WebDAV server on the host (serveDAV), as the
// power cuts during an export see it: its files are those under dir.
type davTarget struct{ dir string }

// settings points the box at the server, its folder Parties.
func (d davTarget) settings() map[string]any {
	return map[string]any{"url": "http://" + davAddr + "/", "user": "anna", "password": "cloud-password", "folder": "Parties"}
}

// box is the box's name a WebDAV export's manifest carries: none.
func (d davTarget) box() string { return "" }

// clear empties the server's folder.
func (d davTarget) clear(t *testing.T) { clearDir(t, d.dir) }

// files answers the server's files under a final name, by their path
// under dir, and how many uploads lie under a temporary name.
func (d davTarget) files(t *testing.T) (map[string][]byte, int) {
	t.Helper()
	all := davFiles(t, d.dir)
	temps := 0
	for path := range all {
		if strings.HasPrefix(filepath.Base(path), davclient.TempPrefix) {
			delete(all, path)
			temps++
		}
	}
	return all, temps
}

// waitToCut waits until the server holds some of the files under their
// own names, a random number of them, and a little after. The server is
// looked at, not the export's count: the box notes what it sent every 50
// files or 5 s, and sends four at a time.
func (d davTarget) waitToCut(t *testing.T, h *host, eventID, exportID string, files int, rng *rand.Rand) exportState {
	t.Helper()
	after := rng.IntN(files)
	deadline := time.Now().Add(10 * time.Minute)
	var doing exportState
	for {
		doing = h.export(eventID, exportID)
		if there, _ := d.files(t); doing.Status == "running" && len(there) >= after || doing.Status == "done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the export did not send %d files in 10 minutes: %+v", after, doing)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
	return doing
}

// checkDone has nothing to add for a WebDAV server.
func (d davTarget) checkDone(*testing.T, exportState) string { return "" }

// exportTarget is where a part of the power cuts has the box send an
// event: a WebDAV server (davTarget) or an S3-compatible bucket
// (s3Target), each run by the test on the host.
type exportTarget interface {
	// settings is the body of PUT /api/admin/cloud that points the box
	// at the target.
	settings() map[string]any
	// box is the box's name the export's manifest must carry.
	box() string
	// clear empties the target, so that the next export sends every file.
	clear(t *testing.T)
	// files answers what the target holds under a final name, by its
	// path (the export's folder is one), and how many uploads it holds
	// unfinished (under a temporary name, or a multipart upload under way).
	files(t *testing.T) (map[string][]byte, int)
	// waitToCut waits for a random moment of the export to cut the
	// power at (files is how many it sends) and answers the export as the
	// console last listed it.
	waitToCut(t *testing.T, h *host, eventID, exportID string, files int, rng *rand.Rand) exportState
	// checkDone checks what is the target's own once the export x is
	// done, and answers what it found, for the log.
	checkDone(t *testing.T, x exportState) string
}

// powerCutsDuringAnExport sends an event's photos to a WebDAV server
// the test runs on the host (serveDAV, in davDir) and cuts the box's power
// while it does (powerCutsDuringExports).
func powerCutsDuringAnExport(t *testing.T, b *lossyBox, davDir string) {
	m := b.m.in(t)
	h, slug, eventID := b.newEvent(m, "Léa & Tom")
	acked := uploadPhotos(t, m.guest(slug), slug, 16, 7000)
	powerCutsDuringExports(t, b, davTarget{davDir}, h, eventID, acked)
}

// uploadPhotos sends n photos (noisyJPEG, from seed on) as the guest g and
// answers them by id, each the SHA-256 of what was sent.
func uploadPhotos(t *testing.T, g *host, slug string, n int, seed uint64) map[string]string {
	t.Helper()
	acked := map[string]string{}
	for i := range n {
		photo := noisyJPEG(seed + uint64(i))
		id, err := g.upload(slug, photo)
		if err != nil || id == "" {
			t.Fatalf("uploading photo %d: %v", i, err)
		}
		acked[id] = sha256Hex(photo)
	}
	return acked
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// powerCutsDuringExports sends the event's files (acked: by id, the
// SHA-256 of each as it was uploaded) to the target and cuts the box's
// power while it does, as many times as exportCuts says, each time in a
// new export of the event into the emptied target. After every cut the
// box boots, the export is still stored and resumes by itself, and once
// it is done the target holds every file byte for byte, and the export's
// manifest.json lists what its folder holds, each file of its size and
// SHA-256; right after the cut and at the end nothing under a final name
// is a half photo or video; on the box every file is listed and whole,
// and at the end no media file is named by no record, no temp file is
// left and bbolt's own check finds the database whole.
func powerCutsDuringExports(t *testing.T, b *lossyBox, to exportTarget, h *host, eventID string, acked map[string]string) {
	m, rng := b.m.in(t), b.rng
	h.json("PUT", "/api/admin/cloud", to.settings(), http.StatusOK)
	cuts := exportCuts(t)
	var ways []string
	for round := 1; round <= cuts; round++ {
		// A new export each round: the one before is done (and its files
		// on the target are left as they are), so this one sends again
		// only what is missing. Clear the target, so it sends them all.
		to.clear(t)
		x := h.json("POST", "/api/admin/events/"+eventID+"/cloud", map[string]any{"scope": "visible"}, http.StatusAccepted)["export"].(map[string]any)
		exportID := x["id"].(string)
		start := time.Now()
		doing := to.waitToCut(t, h, eventID, exportID, len(acked), rng)
		wait := time.Since(start).Round(100 * time.Millisecond)
		pending, name := b.cut(t, round)
		// Right after the cut, before any resume: a file under its final
		// name is whole, whatever upload the cut broke.
		atCut, unfinished := to.files(t)
		checkHalfFiles(t, atCut, acked)

		m = b.boot(t)
		h.base = m.http
		back := h.export(eventID, exportID)
		if back.Status == "" {
			t.Fatalf("after cut %d the export %s is not stored", round, exportID)
		}
		t.Logf("cut %d, %s after the export was queued (it was %s, %d of %d sent; the target held %d files, none half, and %d unfinished uploads): %d writes were not flushed (%s); the box came back with the export %s, %d sent",
			round, wait, doing.Status, doing.Sent, doing.Total, len(atCut), unfinished, pending, name, back.Status, back.Sent)
		deadline := time.Now().Add(15 * time.Minute)
		for back.Status != "done" {
			if back.Status == "failed" {
				t.Fatalf("after cut %d the export failed: %+v", round, back)
			}
			if time.Now().After(deadline) {
				m.fail("after cut %d the export was not done in 15 minutes: %+v", round, back)
			}
			time.Sleep(2 * time.Second)
			back = h.export(eventID, exportID)
		}
		way := "had finished"
		if doing.Status != "done" {
			way = "resumed and finished"
		}
		ways = append(ways, way)
		if lost := m.checkAcked(h, eventID, acked); lost > 0 {
			t.Fatalf("after cut %d, %d files are not whole on the box", round, lost)
		}
		files, unfinished := to.files(t)
		checkExported(t, files, acked)
		checkManifest(t, files, back, eventID, to.box())
		t.Logf("cut %d: the export %s; the target holds every one of the %d files byte for byte (%d files in all, in %q, manifest.json listing them), %d unfinished uploads%s",
			round, way, len(acked), len(files), back.Folder, unfinished, to.checkDone(t, back))
	}

	files, unnamed, tmp := m.leftovers(h, b.events...)
	if len(unnamed) > 0 {
		t.Errorf("%d media files are named by no record: %v", len(unnamed), unnamed)
	}
	if len(tmp) > 0 {
		t.Errorf("temp files remain: %v", tmp)
	}
	t.Logf("%d power cuts during an export: the exports then %v; %d files acknowledged, 0 lost; %d media files, %d named by no record",
		cuts, ways, len(acked), len(files), len(unnamed))
}

// exportState is an export as the console lists it, in part.
type exportState struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Total  int    `json:"total"`
	Sent   int    `json:"sent"`
	Folder string `json:"folder"`
}

// export is the event's export id as the console lists it (Status "" when
// it is not listed, or the box does not answer).
func (h *host) export(eventID, id string) exportState {
	var v struct {
		Exports []exportState `json:"exports"`
	}
	st, b, err := h.try("GET", "/api/admin/events/"+eventID+"/cloud", nil)
	if err != nil || st != http.StatusOK {
		return exportState{}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return exportState{}
	}
	for _, x := range v.Exports {
		if x.ID == id {
			return x
		}
	}
	return exportState{}
}

// checkExported checks the target's files (by path, under a final name):
// every file sent (acked: by id, its SHA-256) is there byte for byte, and
// no photo or video is a half one (checkHalfFiles).
func checkExported(t *testing.T, files map[string][]byte, acked map[string]string) {
	t.Helper()
	found := checkHalfFiles(t, files, acked)
	for id, sum := range acked {
		if !found[sum] {
			t.Errorf("file %s is not on the target byte for byte", id)
		}
	}
}

// checkHalfFiles fails the test for a photo or a video on the target,
// under a final name, that is none of those sent (a half one); the other
// files are those the export makes whole (index.html and the like). It
// answers the files sent that are there whole, by their SHA-256.
func checkHalfFiles(t *testing.T, files map[string][]byte, acked map[string]string) map[string]bool {
	t.Helper()
	want := map[string]bool{}
	for _, sum := range acked {
		want[sum] = true
	}
	found := map[string]bool{}
	for path, b := range files {
		sum := sha256Hex(b)
		switch ext := strings.ToLower(filepath.Ext(path)); {
		case want[sum]:
			found[sum] = true
		case ext == ".jpg" || ext == ".jpeg" || ext == ".mp4":
			t.Errorf("%s on the target is no file that was sent: a half file under its final name", path)
		}
	}
	return found
}

// checkManifest checks the manifest.json of the export x among the
// target's files (by path): it names the event, the export and the box
// (box, "" for none), and lists every other file of the export's folder,
// each of its size and SHA-256, and nothing else; and no file is outside
// that folder (the target was emptied before the export).
func checkManifest(t *testing.T, files map[string][]byte, x exportState, eventID, box string) {
	t.Helper()
	raw, ok := files[path.Join(x.Folder, cloudexport.ManifestName)]
	if !ok {
		t.Errorf("no %s in the export's folder %q", cloudexport.ManifestName, x.Folder)
		return
	}
	var man cloudexport.Manifest
	if err := json.Unmarshal(raw, &man); err != nil {
		t.Errorf("%s: %v", cloudexport.ManifestName, err)
		return
	}
	if man.Event.ID != eventID || man.Export != x.ID || man.Box != box {
		t.Errorf("%s names the event %q, the export %q and the box %q; want %q, %q and %q",
			cloudexport.ManifestName, man.Event.ID, man.Export, man.Box, eventID, x.ID, box)
	}
	listed := map[string]bool{}
	for _, f := range man.Files {
		listed[f.Path] = true
		b, ok := files[path.Join(x.Folder, f.Path)]
		switch {
		case !ok:
			t.Errorf("%s lists %s, which is not on the target", cloudexport.ManifestName, f.Path)
		case int64(len(b)) != f.Size || f.SHA256 != "" && f.SHA256 != sha256Hex(b):
			t.Errorf("%s lists %s of %d bytes, SHA-256 %s; the target holds %d bytes, %s",
				cloudexport.ManifestName, f.Path, f.Size, f.SHA256, len(b), sha256Hex(b))
		}
	}
	for p := range files {
		rel, ok := strings.CutPrefix(p, x.Folder+"/")
		switch {
		case !ok:
			t.Errorf("%s is outside the export's folder %q", p, x.Folder)
		case rel != cloudexport.ManifestName && !listed[rel]:
			t.Errorf("%s is in the export's folder but not in its %s", p, cloudexport.ManifestName)
		}
	}
}

// davFiles is every file under dir, by its path.
func davFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// clearDir empties dir.
func clearDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(fmt.Errorf("clearing the WebDAV server: %w", err))
		}
	}
}
