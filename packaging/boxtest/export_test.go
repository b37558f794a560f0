package boxtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/webdav"

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

// powerCutsDuringAnExport sends an event's photos to a WebDAV server
// the test runs on the host (serveDAV, in davDir) and cuts the box's power
// while it does. After every cut the box boots, the export is still stored
// and resumes by itself, and once it is done the server holds every photo
// byte for byte; right after the cut and at the end nothing under a final
// name is a half photo; on the box every photo is listed and whole, and at
// the end bbolt's own check finds the database whole.
func powerCutsDuringAnExport(t *testing.T, b *lossyBox, davDir string) {
	m, rng := b.m.in(t), b.rng
	h, slug, eventID := b.newEvent(m, "Léa & Tom")
	h.json("PUT", "/api/admin/cloud", map[string]any{"url": "http://" + davAddr + "/", "user": "anna", "password": "cloud-password",
		"folder": "Parties"}, http.StatusOK)
	g := m.guest(slug)
	acked := map[string]string{}
	for i := range 16 {
		photo := noisyJPEG(uint64(7000 + i))
		id, err := g.upload(slug, photo)
		if err != nil || id == "" {
			t.Fatalf("uploading photo %d: %v", i, err)
		}
		sum := sha256.Sum256(photo)
		acked[id] = hex.EncodeToString(sum[:])
	}

	cuts := exportCuts(t)
	var ways []string
	for round := 1; round <= cuts; round++ {
		// A new export each round: the one before is done (and its files
		// on the server are left as they are), so this one sends again
		// only what is missing. Clear the server, so it sends them all.
		clearDir(t, davDir)
		x := h.json("POST", "/api/admin/events/"+eventID+"/cloud", map[string]any{"scope": "visible"}, http.StatusAccepted)["export"].(map[string]any)
		exportID := x["id"].(string)
		// Cut once the export has sent some of the photos, a random
		// number of them, and a little after.
		after := rng.IntN(len(acked))
		start := time.Now()
		deadline := start.Add(10 * time.Minute)
		var doing exportState
		for {
			doing = h.export(eventID, exportID)
			if doing.Status == "running" && doing.Sent >= after || doing.Status == "done" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the export did not send %d files in 10 minutes: %+v", after, doing)
			}
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
		wait := time.Since(start).Round(100 * time.Millisecond)
		pending, name := b.cut(t, round)
		// Right after the cut, before any resume: a photo under its final
		// name is whole, whatever upload the cut broke.
		onServer, tempsAtCut, _ := checkHalfFiles(t, davDir, acked)

		m = b.boot(t)
		h.base, g.base = m.http, m.http
		back := h.export(eventID, exportID)
		if back.Status == "" {
			t.Fatalf("after cut %d the export %s is not stored", round, exportID)
		}
		t.Logf("cut %d, %s after the export was queued (it was %s, %d of %d sent; the server held %d files, none half, and %d cut uploads under a temporary name): %d writes were not flushed (%s); the box came back with the export %s, %d sent",
			round, wait, doing.Status, doing.Sent, doing.Total, onServer, tempsAtCut, pending, name, back.Status, back.Sent)
		deadline = time.Now().Add(15 * time.Minute)
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
			t.Fatalf("after cut %d, %d photos are not whole on the box", round, lost)
		}
		got, temps := m.checkExported(t, davDir, acked)
		t.Logf("cut %d: the export %s; the server holds every one of the %d photos byte for byte (%d files in all), %d unfinished uploads under a temporary name",
			round, way, len(acked), got, temps)
	}

	files, unnamed, tmp := m.leftovers(h, b.events...)
	if len(unnamed) > 0 {
		t.Errorf("%d media files are named by no record: %v", len(unnamed), unnamed)
	}
	if len(tmp) > 0 {
		t.Errorf("temp files remain: %v", tmp)
	}
	t.Logf("%d power cuts during an export: the exports then %v; %d photos acknowledged, 0 lost; %d media files, %d named by no record",
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

// checkExported checks the server's files: every photo sent is there
// byte for byte, and every other file under a final name is one the
// export makes whole (index.html and the like, never a photo's half). It
// answers how many files are there and how many temporary uploads.
func (m *machine) checkExported(t *testing.T, dir string, acked map[string]string) (files, temps int) {
	t.Helper()
	files, temps, found := checkHalfFiles(t, dir, acked)
	for id, sum := range acked {
		if !found[sum] {
			t.Errorf("photo %s is not on the server byte for byte", id)
		}
	}
	return files, temps
}

// checkHalfFiles fails the test for a photo on the server, under a final
// name, that is none of those sent (a half one). It answers how many files
// are under a final name and how many under a temporary one, and the
// photos found whole, by their SHA-256.
func checkHalfFiles(t *testing.T, dir string, acked map[string]string) (files, temps int, found map[string]bool) {
	t.Helper()
	want := map[string]bool{}
	for _, sum := range acked {
		want[sum] = true
	}
	found = map[string]bool{}
	for path, sum := range davFiles(t, dir) {
		if strings.HasPrefix(filepath.Base(path), davclient.TempPrefix) {
			temps++
			continue
		}
		files++
		switch {
		case want[sum]:
			found[sum] = true
		case strings.HasSuffix(strings.ToLower(path), ".jpg") || strings.HasSuffix(strings.ToLower(path), ".jpeg"):
			t.Errorf("%s on the server is no photo that was sent: a half file under its final name", path)
		}
	}
	return files, temps, found
}

// davFiles is the SHA-256 of every file under dir, by its path.
func davFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = hex.EncodeToString(sum[:])
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
