package scenarios_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/daemon/daemontest"
	"eventbox/store"
)

// undecodablePNG is a PNG whose structure passes the upload check (IHDR,
// IDAT, IEND, right lengths and CRCs) but whose pixel data is not zlib:
// every decode of it fails.
func undecodablePNG() []byte {
	chunk := func(typ string, data []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		out = append(out, typ...)
		out = append(out, data...)
		return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, 64)
	ihdr = binary.BigEndian.AppendUint32(ihdr, 48)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", bytes.Repeat([]byte("not zlib "), 20))...)
	return append(out, chunk("IEND", nil)...)
}

// variantJobs returns the unfinished (queued or running) variant jobs.
func variantJobs(t *testing.T, st *store.Store) []store.Job {
	t.Helper()
	return daemontest.VariantJobs(t, st)
}

// variantJob returns the photo's unfinished variant job, ok false when it
// has none.
func variantJob(t *testing.T, h *harness, id string) (store.Job, bool) {
	t.Helper()
	for _, j := range variantJobs(t, h.st) {
		if j.Key == id {
			return j, true
		}
	}
	return store.Job{}, false
}

// waitFailedAttempts waits until the photo's job has n failed attempts,
// the last one ended, or until it is set aside when n is
// store.VariantAttempts.
func waitFailedAttempts(t *testing.T, h *harness, id string, n int) store.Job {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		job, ok := variantJob(t, h, id)
		if ok && job.Failures == n && job.Status == store.JobQueued && job.LastError != "" {
			return job
		}
		if !ok && n == store.VariantAttempts {
			if p, err := h.st.Photos().Get(context.Background(), id); err == nil && p.VariantsFailed {
				return job
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %d failed attempts of %s; job %+v (queued %v)", n, id, job, ok)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// expectPlaceholder checks a placeholder answer: a JPEG that decodes,
// cached briefly, not as an immutable variant.
func expectPlaceholder(t *testing.T, r response) {
	t.Helper()
	r.expect(t, 200, "")
	if ct := r.Header.Get("Content-Type"); ct != "image/jpeg" {
		t.Fatalf("placeholder content type %q", ct)
	}
	if _, _, err := image.Decode(bytes.NewReader(r.Body)); err != nil {
		t.Fatalf("placeholder does not decode: %v", err)
	}
	if cc := r.Header.Get("Cache-Control"); strings.Contains(cc, "immutable") || !strings.Contains(cc, "max-age=60") {
		t.Fatalf("placeholder Cache-Control %q", cc)
	}
}

func adminPhoto(t *testing.T, owner *client, eventID, id string) map[string]any {
	t.Helper()
	list := owner.do("GET", "/api/admin/events/"+eventID+"/photos", nil).expect(t, 200, "")
	for _, p := range list.JSON["photos"].([]any) {
		if p := p.(map[string]any); p["id"] == id {
			return p
		}
	}
	t.Fatalf("photo %s not in the admin list: %s", id, list.Body)
	return nil
}

// TestVariantsThatKeepFailingAreSetAside runs in a testing/synctest bubble
// (the daemon over an in-memory network), so waiting for the background
// worker's attempts takes fake time. A bubble cannot run subtests: each
// step says its name in the log.
func TestVariantsThatKeepFailingAreSetAside(t *testing.T) {
	synctest.Test(t, testVariantsThatKeepFailingAreSetAside)
}

func testVariantsThatKeepFailingAreSetAside(t *testing.T) {
	step := func(name string, f func(t *testing.T)) {
		t.Logf("step: %s", name)
		f(t)
	}
	h := newBubbleHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	eventID, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	original := undecodablePNG()
	pid := g.upload(slug, original, nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)

	// The background worker makes the first attempt.
	job := waitFailedAttempts(t, h, pid, 1)
	var lastDelay time.Duration
	for n := 2; n <= store.VariantAttempts; n++ {
		delay := time.Duration(job.DueAt-job.Attempts[len(job.Attempts)-1].Start) * time.Millisecond
		if delay < 15*time.Second || delay > 15*time.Minute || delay < lastDelay {
			t.Fatalf("after attempt %d the retry waits %v (before: %v), want a growing wait of 15 s to 15 min", n-1, delay, lastDelay)
		}
		lastDelay = delay
		if got := adminPhoto(t, owner, eventID, pid)["variants"]; got != "pending" {
			t.Fatalf("admin list variants = %v while retries remain, want pending", got)
		}
		// Before the retry time a request is answered at once, with no
		// attempt: the failing decode is not run on every page view.
		for _, v := range []string{"thumb", "display", "thumb"} {
			expectPlaceholder(t, g.do("GET", "/api/media/"+pid+"?v="+v, nil))
		}
		if again, _ := variantJob(t, h, pid); again.Tries != n-1 {
			t.Fatalf("requests before the retry time made attempts: %+v", again)
		}
		// At the retry time, the next request makes the attempt (the
		// background worker may make it first: it counts once either way).
		h.clock.Advance(time.UnixMilli(job.DueAt).Sub(h.clock.Now()))
		expectPlaceholder(t, g.do("GET", "/api/media/"+pid+"?v=thumb", nil))
		job = waitFailedAttempts(t, h, pid, n)
	}

	p, err := h.st.Photos().Get(context.Background(), pid)
	if err != nil || !p.VariantsFailed || p.Variants {
		t.Fatalf("after %d failed attempts the photo is %+v, %v", store.VariantAttempts, p, err)
	}
	if _, queued := variantJob(t, h, pid); queued {
		t.Fatal("a set-aside photo is still queued")
	}
	step("its thumb and display answer the placeholder, and are not tried again", func(t *testing.T) {
		h.clock.Advance(time.Hour)
		for _, v := range []string{"thumb", "display"} {
			for _, c := range []*client{g, owner} {
				expectPlaceholder(t, c.do("GET", "/api/media/"+pid+"?v="+v, nil))
			}
		}
		if _, queued := variantJob(t, h, pid); queued {
			t.Fatal("a request queued the set-aside photo again")
		}
	})
	step("its original still downloads", func(t *testing.T) {
		r := g.do("GET", "/api/media/"+pid+"?v=original&download=1", nil).expect(t, 200, "")
		if !bytes.Equal(r.Body, original) || r.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("original: %d bytes of %q", len(r.Body), r.Header.Get("Content-Type"))
		}
	})
	step("the admin list shows it, and only to admins", func(t *testing.T) {
		if got := adminPhoto(t, owner, eventID, pid)["variants"]; got != "failed" {
			t.Fatalf("admin list variants = %v, want failed", got)
		}
		mine := g.do("GET", "/api/e/"+slug+"/photos", nil).expect(t, 200, "").JSON["photos"].([]any)[0].(map[string]any)
		if _, ok := mine["variants"]; ok {
			t.Fatalf("a guest sees the variants state: %v", mine)
		}
	})
	step("the hosts can retry it", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/events/"+eventID+"/photos", map[string]any{"action": "retry", "ids": []string{pid}})
		if r.expect(t, 200, "").JSON["changed"] != float64(1) {
			t.Fatalf("retry answer %s", r.Body)
		}
		if got := adminPhoto(t, owner, eventID, pid)["variants"]; got != "pending" {
			t.Fatalf("after a retry variants = %v, want pending", got)
		}
		waitFailedAttempts(t, h, pid, 1)
	})
}

func TestVariantsStateOfAGoodPhoto(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	g := h.guest(ev["slug"].(string))
	pid := g.upload(ev["slug"].(string), photoJPEG(t, 300, 200, 0, false, 1), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	waitVariants(t, h)
	if got := adminPhoto(t, owner, ev["id"].(string), pid)["variants"]; got != "ready" {
		t.Fatalf("variants = %v, want ready", got)
	}
	r := owner.do("POST", "/api/admin/events/"+ev["id"].(string)+"/photos", map[string]any{"action": "retry", "ids": []string{pid}})
	if r.expect(t, 200, "").JSON["changed"] != float64(0) {
		t.Fatalf("retrying a photo with variants changed it: %s", r.Body)
	}
}
