package scenarios_test

import (
	"crypto/rand"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventbox/daemon"
)

// uploadFolders lists the resumable uploads' folders under dataDir.
func uploadFolders(t *testing.T, dataDir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dataDir, "uploads"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// tusCreateN announces an upload of size bytes given as a string, so
// that any Upload-Length, however large, can be sent.
func (c *client) tusCreateN(slug, size string, meta map[string]string) response {
	c.h.t.Helper()
	return c.do("POST", "/api/e/"+slug+"/uploads", nil, "Tus-Resumable", "1.0.0",
		"Upload-Length", size, "Upload-Metadata", tusMeta(meta))
}

// finishedPoster sends a small poster whole and answers its upload id.
func finishedPoster(t *testing.T, g *client, slug string, seed int) string {
	t.Helper()
	poster := photoJPEG(t, 64, 36, 0, false, seed)
	url, _ := g.tusSend(slug, poster, map[string]string{"kind": "poster", "filetype": "image/jpeg"}, 1<<20)
	return url[strings.LastIndex(url, "/")+1:]
}

// TestResumableLengthsAreCappedBeforeAnySum is the audit's first
// finding: an Upload-Length near the largest int64 overflowed the dry
// run's form length, a video's poster-plus-video length and the sum of
// the reservations, and was created. Each kind's length is now held to
// the kind's own limit before any arithmetic: 413, nothing created, and
// the other guests' uploads go on.
func TestResumableLengthsAreCappedBeforeAnySum(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) { c.MaxUploadMB = 1; c.MaxVideoMB = 2; c.MaxVideoSeconds = 60 })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Overflow", "guestbookEnabled": true, "guestbookVoice": true})
	slug := ev["slug"].(string)
	g := h.guest(slug)
	// A small unfinished upload of the same guest, as in the audit.
	small := g.tusCreate(slug, 1000, map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location")
	g.tusPatch(small, 0, make([]byte, 100)).expect(t, 204, "")
	poster := finishedPoster(t, g, slug, 11)
	before := uploadFolders(t, h.cfg.DataDir)

	huge := []string{
		strconv.FormatInt(math.MaxInt64, 10),
		strconv.FormatInt(math.MaxInt64-100, 10),
		strconv.FormatInt(math.MaxInt64-1023, 10),
		strconv.FormatInt(1<<62, 10),
		strconv.FormatInt(1<<40, 10),
	}
	kinds := []struct {
		name string
		meta map[string]string
		max  int
	}{
		{"photo", map[string]string{"filetype": "image/jpeg"}, 1 << 20},
		{"video", map[string]string{"filetype": "video/mp4", "poster": poster}, 2 << 20},
		{"voice note", map[string]string{"filetype": "audio/ogg", "seconds": "3"}, 20 << 20},
		{"poster", map[string]string{"kind": "poster", "filetype": "image/jpeg"}, 10 << 20},
	}
	for _, k := range kinds {
		for _, n := range append(huge, strconv.Itoa(k.max+1)) {
			t.Run(k.name+" of "+n+" bytes", func(t *testing.T) {
				g.tusCreateN(slug, n, k.meta).expect(t, 413, "too_large")
			})
		}
	}
	if after := uploadFolders(t, h.cfg.DataDir); len(after) != len(before) {
		t.Fatalf("uploads after the refusals: %v; before: %v", after, before)
	}
	// Another guest's photo is neither refused for room nor for anything
	// the refused announcements left.
	other := h.guest(slug)
	photo := photoJPEG(t, 320, 240, 0, false, 12)
	_, res := other.tusSend(slug, photo, map[string]string{"filetype": "image/jpeg"}, 4096)
	res.expect(t, 201, "")
}

// TestResumablePatchStopsAtTheMargin is the audit's first finding on a
// real small file system: the PATCH route was not behind the storage
// guard and wrote a whole announced upload into a card that had room
// for it at creation but not any more. A PATCH now writes only while the
// card is above the margin: 507, and the offset it answers is what the
// box holds, so the upload resumes once there is room again.
func TestResumablePatchStopsAtTheMargin(t *testing.T) {
	dir := smallDisk(t, 96<<20)
	const margin = 24 << 20
	h := newHarness(t, func(c *daemon.Config) { c.DataDir = dir; c.StorageMargin = margin; c.MaxUploadMB = 48 })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Small card"})
	slug := ev["slug"].(string)
	g := h.guest(slug)
	const size = 40 << 20
	url := g.tusCreate(slug, size, map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location")

	// The card fills after the creation: 8 MiB above the margin remain.
	filler := fillDisk(t, dir)
	st, err := os.Stat(filler)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filler, st.Size()-(margin+8<<20)); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, size)
	if _, err := rand.Read(body); err != nil {
		t.Fatal(err)
	}
	res := g.tusPatch(url, 0, body).expect(t, 507, "insufficient_storage")
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	free := int64(fs.Bavail) * int64(fs.Bsize)
	if free < margin-(2<<20) {
		t.Errorf("free space after the PATCH: %d MiB; the margin is %d MiB", free>>20, margin>>20)
	}
	offset, err := strconv.Atoi(res.Header.Get("Upload-Offset"))
	if err != nil {
		t.Fatalf("the 507 names no offset: %q", res.Header.Get("Upload-Offset"))
	}
	head := g.do("HEAD", url, nil, "Tus-Resumable", "1.0.0")
	if head.Header.Get("Upload-Offset") != strconv.Itoa(offset) {
		t.Fatalf("HEAD says %q, the 507 said %d", head.Header.Get("Upload-Offset"), offset)
	}
	if offset <= 0 || offset >= size {
		t.Fatalf("offset %d after a PATCH cut at the margin", offset)
	}
	t.Logf("a PATCH of %d MiB with %d MiB of room stopped at offset %.1f MiB: %.1f MiB free, margin %d MiB",
		size>>20, 8, float64(offset)/(1<<20), float64(free)/(1<<20), margin>>20)
	// Room again: the upload resumes where the box said and takes the rest.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	// The bytes are not a photo: the route refuses them at the last
	// byte, which proves every byte was taken.
	g.tusPatch(url, offset, body[offset:]).expect(t, 415, "invalid_image")
}

// TestResumableReservationsCannotBeHoarded is the audit's second and
// third findings: guests of one address announced videos and sent
// nothing, and every other guest's resumable upload was refused for room
// for a day; finished posters were never checked and never counted; a
// finished photo refused for now was not counted either.
func TestResumableReservationsCannotBeHoarded(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) {
		c.Statfs = func(string) (int64, error) { return 2 << 30, nil }
		c.MaxVideoSeconds = 60
	})
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Hoard"})
	id, slug := ev["id"].(string), ev["slug"].(string)

	t.Run("one address reserves at most four of the largest files", func(t *testing.T) {
		var held []string
		refused := 0
		for i := 0; i < 10; i++ {
			g := from(h.client(), "127.0.0.3")
			g.do("POST", "/api/e/"+slug+"/join", nil).expect(t, 200, "")
			// Once the address holds its four, even a poster waits.
			pr := g.tusCreate(slug, 1000, map[string]string{"kind": "poster", "filetype": "image/jpeg"})
			if pr.Status == 429 {
				refused++
				continue
			}
			pr.expect(t, 201, "")
			g.do("DELETE", pr.Header.Get("Location"), nil, "Tus-Resumable", "1.0.0").expect(t, 204, "")
			poster := finishedPoster(t, g, slug, 20+i)
			r := g.tusCreate(slug, 200<<20, map[string]string{"filetype": "video/mp4", "poster": poster})
			switch r.Status {
			case 201:
				held = append(held, r.Header.Get("Location"))
			case 429:
				r.expect(t, 429, "rate_limited")
				refused++
			default:
				r.expect(t, 201, "")
			}
		}
		if len(held) != 4 || refused != 6 {
			t.Fatalf("one address announced %d videos of 200 MiB and was refused %d times; want 4 and 6", len(held), refused)
		}
		// A guest on another address still sends a photo.
		honest := from(h.client(), "127.0.0.4")
		honest.do("POST", "/api/e/"+slug+"/join", nil).expect(t, 200, "")
		_, res := honest.tusSend(slug, photoJPEG(t, 320, 240, 0, false, 40), map[string]string{"filetype": "image/jpeg"}, 8192)
		res.expect(t, 201, "")
	})

	t.Run("an unstarted upload and an unnamed poster expire in minutes", func(t *testing.T) {
		g := h.guest(slug)
		unstarted := g.tusCreate(slug, 5000, map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location")
		started := g.tusCreate(slug, 5000, map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location")
		g.tusPatch(started, 0, make([]byte, 100)).expect(t, 204, "")
		poster := finishedPoster(t, g, slug, 41)
		h.clock.Advance(11 * time.Minute)
		for _, u := range []string{unstarted, uploadURLOf(slug, poster)} {
			if r := g.do("HEAD", u, nil, "Tus-Resumable", "1.0.0"); r.Status != 404 {
				t.Errorf("HEAD %s 11 minutes later: %d, want 404", u, r.Status)
			}
		}
		// An upload with bytes in it is kept for a guest who comes back.
		if r := g.do("HEAD", started, nil, "Tus-Resumable", "1.0.0"); r.Status != 200 || r.Header.Get("Upload-Offset") != "100" {
			t.Errorf("HEAD of a started upload 11 minutes later: %d offset %q", r.Status, r.Header.Get("Upload-Offset"))
		}
		if n, err := h.d.SweepUploads(); err != nil || n < 2 {
			t.Fatalf("the sweep removed %d: %v", n, err)
		}
	})

	t.Run("posters are checked as JPEG at their last byte", func(t *testing.T) {
		g := h.guest(slug)
		junk := make([]byte, 64<<10)
		if _, err := rand.Read(junk); err != nil {
			t.Fatal(err)
		}
		url := g.tusCreate(slug, len(junk), map[string]string{"kind": "poster", "filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location")
		g.tusPatch(url, 0, junk).expect(t, 415, "invalid_image")
		if r := g.do("HEAD", url, nil, "Tus-Resumable", "1.0.0"); r.Status != 404 {
			t.Fatalf("HEAD of a refused poster: %d, want 404", r.Status)
		}
	})

	t.Run("finished posters and photos refused for now count among a guest's sixteen", func(t *testing.T) {
		g := h.guest(slug)
		for i := 0; i < 8; i++ {
			finishedPoster(t, g, slug, 50+i)
		}
		photo := photoJPEG(t, 160, 120, 0, false, 60)
		var urls []string
		for i := 0; i < 8; i++ {
			urls = append(urls, g.tusCreate(slug, len(photo), map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location"))
		}
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"uploadsOpen": false}).expect(t, 200, "")
		for _, u := range urls {
			g.tusPatch(u, 0, photo).expect(t, 403, "uploads_closed")
		}
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"uploadsOpen": true}).expect(t, 200, "")
		g.tusCreate(slug, len(photo), map[string]string{"filetype": "image/jpeg"}).expect(t, 429, "rate_limited")
		// Once one of them goes through, there is room for another.
		g.do("GET", urls[0], nil).expect(t, 201, "")
		g.tusCreate(slug, len(photo), map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "")
	})

	t.Run("creations count against the upload rate of their address", func(t *testing.T) {
		made, limited := 0, 0
		for i := 0; i < 20 && limited == 0; i++ {
			g := from(h.client(), "127.0.0.5")
			g.do("POST", "/api/e/"+slug+"/join", nil).expect(t, 200, "")
			for j := 0; j < 16 && limited == 0; j++ {
				switch r := g.tusCreate(slug, 1000, map[string]string{"filetype": "image/jpeg"}); r.Status {
				case 201:
					made++
					g.do("DELETE", r.Header.Get("Location"), nil, "Tus-Resumable", "1.0.0").expect(t, 204, "")
				default:
					r.expect(t, 429, "rate_limited")
					limited++
				}
			}
		}
		if limited == 0 || made > 240 {
			t.Fatalf("%d creations from one address in a minute, none limited", made)
		}
	})
}

// uploadURLOf is the address of an upload of the event slug.
func uploadURLOf(slug, id string) string { return "/api/e/" + slug + "/uploads/" + id }

// TestOwnerSeesAndRemovesUnfinishedUploads: the audit found no console
// route that could see or remove an unfinished upload filling the card.
// The owner lists them (event, kind, size, progress, last activity, the
// bytes they reserve) and removes one; an organizer may not.
func TestOwnerSeesAndRemovesUnfinishedUploads(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Unfinished"})
	slug := ev["slug"].(string)
	g := h.guest(slug)
	url := g.tusCreate(slug, 5000, map[string]string{"filetype": "image/jpeg", "filename": "IMG_0001.jpg"}).expect(t, 201, "").Header.Get("Location")
	g.tusPatch(url, 0, make([]byte, 1200)).expect(t, 204, "")
	upID := url[strings.LastIndex(url, "/")+1:]
	_, done := g.tusSend(slug, photoJPEG(t, 160, 120, 0, false, 70), map[string]string{"filetype": "image/jpeg"}, 4096)
	done.expect(t, 201, "")

	list := owner.do("GET", "/api/admin/uploads", nil).expect(t, 200, "")
	ups, _ := list.JSON["uploads"].([]any)
	if len(ups) != 1 {
		t.Fatalf("the owner sees %d unfinished uploads, want 1: %s", len(ups), list.Body)
	}
	u := ups[0].(map[string]any)
	for k, want := range map[string]any{"id": upID, "eventSlug": slug, "eventId": ev["id"], "kind": "photo", "length": 5000.0,
		"offset": 1200.0, "filename": "IMG_0001.jpg", "reservedBytes": 3800.0} {
		if u[k] != want {
			t.Errorf("%s = %v, want %v", k, u[k], want)
		}
	}
	if u["updatedAt"] == nil || u["expiresAt"] == nil || u["guestName"] == nil {
		t.Errorf("the upload lacks its times or its guest: %v", u)
	}
	if list.JSON["reservedBytes"] != 3800.0 {
		t.Errorf("reservedBytes = %v, want 3800", list.JSON["reservedBytes"])
	}

	planner := h.organizer("planner")
	planner.do("GET", "/api/admin/uploads", nil).expect(t, 403, "forbidden")
	planner.do("DELETE", "/api/admin/uploads/"+upID, nil).expect(t, 403, "forbidden")
	owner.do("DELETE", "/api/admin/uploads/nope", nil).expect(t, 404, "not_found")
	owner.do("DELETE", "/api/admin/uploads/"+upID, nil).expect(t, 204, "")
	if r := g.do("HEAD", url, nil, "Tus-Resumable", "1.0.0"); r.Status != 404 {
		t.Fatalf("the guest's HEAD after the owner removed it: %d", r.Status)
	}
	for _, name := range uploadFolders(t, h.cfg.DataDir) {
		if name == upID {
			t.Fatal("the removed upload's folder is still there")
		}
	}
	if ups := owner.do("GET", "/api/admin/uploads", nil).expect(t, 200, "").JSON["uploads"].([]any); len(ups) != 0 {
		t.Fatalf("still listed: %v", ups)
	}
}
