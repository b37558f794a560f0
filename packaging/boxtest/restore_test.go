package boxtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"
)

// restoreCuts is how many times powerCutsDuringARestore pulls the
// plug while the box takes a backup in (BOXTEST_RESTORE_CUTS, default 2).
func restoreCuts(t *testing.T) int {
	return envCount(t, "BOXTEST_RESTORE_CUTS", 2)
}

// powerCutsDuringARestore restores a backup on the box and cuts its power
// while it does (receiving the ZIP, staging it, writing the journal,
// swapping it in). After every cut the box boots and holds either its data
// as it was before the restore or the backup's, each whole: every photo of
// the state it is in is listed and byte for byte what was sent, and
// nothing of the other state is half there. At the end no media file is
// named by no record, no temp file remains and bbolt's own check finds the
// database whole.
func powerCutsDuringARestore(t *testing.T, b *lossyBox) {
	m, rng := b.m.in(t), b.rng
	h, slug, eventID := b.newEvent(m, "Anna & Marc")
	g := m.guest(slug)
	send := func(n int, seed uint64) map[string]string {
		sent := map[string]string{}
		for i := range n {
			photo := noisyJPEG(seed + uint64(i))
			id, err := g.upload(slug, photo)
			if err != nil || id == "" {
				t.Fatalf("uploading photo %d: %v", i, err)
			}
			sum := sha256.Sum256(photo)
			sent[id] = hex.EncodeToString(sum[:])
		}
		return sent
	}
	// The backup holds the first photos; those sent after it are the
	// box's own until a restore is in.
	inBackup := send(12, 1000)
	st, zip := h.do("GET", "/api/admin/backup?download=1", nil, "")
	if st != http.StatusOK || len(zip) < 1000 {
		t.Fatalf("downloading a backup answered %d with %d bytes", st, len(zip))
	}
	afterBackup := send(6, 2000)
	t.Logf("a backup of %d photos (%d bytes) downloaded; %d photos sent after it", len(inBackup), len(zip), len(afterBackup))

	whole := maps.Clone(inBackup)
	maps.Copy(whole, afterBackup)
	states := map[string]int{}
	cuts := restoreCuts(t)
	for round := 1; round <= cuts; round++ {
		answered := make(chan string, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodPost, h.base+"/api/admin/backup/restore", bytes.NewReader(zip))
			req.Header.Set("Origin", h.base)
			req.Header.Set("Content-Type", "application/zip")
			resp, err := h.c.Do(req)
			if err != nil {
				answered <- "no answer: " + err.Error()
				return
			}
			resp.Body.Close()
			answered <- resp.Status
		}()
		wait := time.Duration(300+rng.IntN(5000)) * time.Millisecond
		time.Sleep(wait)
		m.powerOff()
		answer := <-answered
		pending, name := b.cut(t, round)
		m = b.boot(t)
		// The restored data has its own sessions: sign in again.
		h = m.signIn("anna", "a-long-party-password")
		g.base = m.http
		listed := h.photoIDs(eventID)
		var state string
		switch {
		case slices.Equal(listed, slices.Sorted(maps.Keys(whole))):
			state = "the data as it was"
		case slices.Equal(listed, slices.Sorted(maps.Keys(inBackup))):
			state = "the backup's"
		default:
			t.Fatalf("after cut %d the box lists %d photos, neither its own %d nor the backup's %d: %v",
				round, len(listed), len(whole), len(inBackup), listed)
		}
		states[state]++
		want := inBackup
		if state == "the data as it was" {
			want = whole
		}
		if lost := m.checkAcked(h, eventID, want); lost > 0 {
			t.Fatalf("after cut %d (%s), %d photos are not whole", round, state, lost)
		}
		t.Logf("cut %d, %s into the restore (it had answered: %s): %d writes were not flushed (%s); the box came back with %s, %d photos, each whole",
			round, wait, answer, pending, name, state, len(listed))
		if state == "the backup's" {
			// The box's own photos sent after the backup are gone with
			// the restore, as they should be: send new ones, so the next
			// cut can tell the two states apart again.
			afterBackup = send(6, uint64(3000+100*round))
			whole = maps.Clone(inBackup)
			maps.Copy(whole, afterBackup)
		}
	}
	files, unnamed, tmp := m.leftovers(h, b.events...)
	if len(unnamed) > 0 {
		t.Errorf("%d media files are named by no record: %v", len(unnamed), unnamed)
	}
	if len(tmp) > 0 {
		t.Errorf("temp files remain: %v", tmp)
	}
	if left := m.sh("", "sh", "-c", "find /var/lib/eventbox/restore -type f 2>/dev/null || true"); left != "" {
		t.Errorf("files of the restore's staging are left: %s", left)
	}
	t.Logf("%d power cuts during a restore: the box came back %s; %d media files, %d named by no record",
		cuts, fmt.Sprint(states), len(files), len(unnamed))
}
