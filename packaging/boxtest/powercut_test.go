package boxtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// powerCuts is how many times TestPowerCuts pulls the plug
// (BOXTEST_CUTS, default 4).
func powerCuts(t *testing.T) int {
	return envCount(t, "BOXTEST_CUTS", 4)
}

// envCount is the positive number in the environment variable name, or
// def when it is not set.
func envCount(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// TestPowerCuts boots one box on a disk that loses the writes it was not
// told to flush (all of them, or a random part in a random order, as a
// card's controller may) and cuts its power while it takes a backup in
// (powerCutsDuringARestore), while it sends an event to a WebDAV server
// (powerCutsDuringAnExport), while it updates itself
// (powerCutsDuringAnUpdate), while guests upload (powerCutsDuringUploads)
// and while it sends an event with large videos to an S3-compatible store
// in the middle of a multipart upload (powerCutsDuringAnS3Export). The
// five share the box's first boot: in full emulation a boot is most of a
// part's time. The restore comes first (it replaces every event the box
// holds), the uploads next to last (they leave the most photos, which
// every later backup would hold), the S3 export last (its 52 MiB of videos
// would be in the update's backup and in every hash of the card's files
// after each cut of the uploads).
func TestPowerCuts(t *testing.T) {
	t.Parallel()
	var davDir string
	var s3 *s3Host
	b := newLossyBox(t, func(c *card) { davDir, s3 = serveDAV(t, c), serveS3(t, c) })
	b.part(t, "during a restore", powerCutsDuringARestore)
	b.part(t, "during an export", func(t *testing.T, b *lossyBox) { powerCutsDuringAnExport(t, b, davDir) })
	b.part(t, "during an update", powerCutsDuringAnUpdate)
	b.part(t, "during uploads", powerCutsDuringUploads)
	b.part(t, "during an S3 export", func(t *testing.T, b *lossyBox) { powerCutsDuringAnS3Export(t, b, s3) })
}

// lossyBox is a box whose card is served through a disk that loses what
// was not flushed when the power is cut. The power-cut scenarios share
// one, each a part of its test (a boot is most of a scenario's time in
// full emulation): each part makes its own event, and checks at its end
// every event the box holds.
type lossyBox struct {
	c     *card
	disk  *LossyDisk
	drive string
	rng   *rand.Rand
	m     *machine
	// events are the events the parts made, for the checks of files
	// that no record names.
	events []string
}

// newLossyBox makes the card (prepare, when not nil, adds what the card
// needs before its first boot, such as a server it may reach) and boots it.
func newLossyBox(t *testing.T, prepare func(c *card)) *lossyBox {
	t.Helper()
	c := newCard(t, cardImage(t), t.TempDir(), partySettings)
	if prepare != nil {
		prepare(c)
	}
	disk, drive := lossyDrive(t, c)
	b := &lossyBox{c: c, disk: disk, drive: drive, rng: seededRand(t)}
	// The machines of the parts' boots are powered off when the whole
	// test ends, not with the part that booted them.
	c.owner = t
	b.boot(t)
	return b
}

// boot powers the box on (again, after a cut) for the (sub)test t.
func (b *lossyBox) boot(t *testing.T) *machine {
	t.Helper()
	b.m = bootMachine(t, b.c, b.drive)
	return b.m
}

// newEvent signs the owner in and makes an event named name for a part,
// kept in the box's events.
func (b *lossyBox) newEvent(m *machine, name string) (h *host, slug, eventID string) {
	m.t.Helper()
	h = m.signIn("anna", "a-long-party-password")
	ev := h.json("POST", "/api/admin/events", map[string]any{"name": name}, http.StatusCreated)["event"].(map[string]any)
	slug, eventID = ev["slug"].(string), ev["id"].(string)
	b.events = append(b.events, eventID)
	return h, slug, eventID
}

// cut pulls the plug and makes the disk lose what was not flushed (see
// cutDisk).
func (b *lossyBox) cut(t *testing.T, round int) (int, string) {
	t.Helper()
	b.m.powerOff()
	return cutDisk(t, b.disk, round, b.rng)
}

// part runs one scenario on the box as a subtest, timed. A part may end
// with the daemon stopped (its checks of the disk stop it); the next one
// finds it started again. A failed part ends the test: the parts after it
// would find the box as it left it.
func (b *lossyBox) part(t *testing.T, name string, f func(t *testing.T, b *lossyBox)) {
	t.Helper()
	m := b.m.in(t)
	m.sh("", "systemctl", "start", "eventbox") // nothing when it runs
	m.waitHealth()
	start, cpu := time.Now(), cpuNow(b.m)
	ok := t.Run(name, func(t *testing.T) { f(t, b) })
	t.Logf("time: %s took %s (%s); the box's busiest processes since its last boot:\n%s", name, time.Since(start).Round(time.Second), cpu.since(b.m), b.m.busiest())
	if !ok {
		t.FailNow()
	}
}

// powerCutsDuringUploads cuts the box's power again and again while guests
// upload, and boots it again each time. After every cut the card mounts,
// the box boots and its daemon answers, and every upload it had
// acknowledged is listed and byte for byte what was sent. At the end no
// media file is left that no record names, no temp file remains, and
// bbolt's own check finds the database whole.
func powerCutsDuringUploads(t *testing.T, b *lossyBox) {
	m, disk := b.m.in(t), b.disk
	h, slug, eventID := b.newEvent(m, "Anna & Marc")
	guests := []*host{m.guest(slug), m.guest(slug)}

	var mu sync.Mutex
	acked := map[string]string{} // photo id -> sha256 of what was sent
	sent, unanswered := 0, 0
	cuts := powerCuts(t)
	for round := 1; round <= cuts; round++ {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for gi, g := range guests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ; n++ {
					select {
					case <-stop:
						return
					default:
					}
					photo := noisyJPEG(uint64(round*1000 + gi*100 + n))
					mu.Lock()
					sent++
					mu.Unlock()
					id, err := g.upload(slug, photo)
					mu.Lock()
					if err == nil && id != "" {
						sum := sha256.Sum256(photo)
						acked[id] = hex.EncodeToString(sum[:])
					} else {
						unanswered++
					}
					mu.Unlock()
					if err != nil {
						return // the power is out
					}
				}
			}()
		}
		wait := time.Duration(3+b.rng.IntN(18)) * time.Second
		time.Sleep(wait)
		m.powerOff()
		close(stop)
		wg.Wait()
		pending, name := b.cut(t, round)
		t.Logf("cut %d after %s of uploads: %d writes were not flushed (%s); %d uploads acknowledged so far", round, wait, pending, name, len(acked))
		m = b.boot(t)
		h.base = m.http
		for _, g := range guests {
			g.base = m.http
		}
		lost := m.checkAcked(h, eventID, acked)
		if lost > 0 {
			t.Fatalf("after cut %d, %d acknowledged uploads are lost", round, lost)
		}
	}

	// The start-up sweep removes files no record names once they are out
	// of its grace period (an upload in flight may own them): date them
	// back, start the daemon once more, and look at the disk.
	files, unnamed, tmp := m.leftovers(h, b.events...)
	if len(unnamed) > 0 {
		t.Errorf("%d media files are named by no record: %v", len(unnamed), unnamed)
	}
	if len(tmp) > 0 {
		t.Errorf("temp files remain: %v", tmp)
	}
	m.sh("", "systemctl", "start", "eventbox")
	if lost := m.checkAcked(h, eventID, acked) + m.checkServed(h, acked); lost > 0 {
		t.Fatalf("%d acknowledged uploads are lost", lost)
	}
	s := disk.Stats()
	t.Logf("%d power cuts: %d uploads sent, %d acknowledged, 0 of them lost, %d unanswered (cut on the wire); "+
		"%d photos listed, %d media files, %d named by no record; the disk saw %d writes and %d flushes, the cuts lost %d writes and kept %d",
		cuts, sent, len(acked), unanswered, len(h.photoIDs(eventID)), len(files), len(unnamed), s.Writes, s.Flushes, s.Lost, s.Kept)
}

// lossyDrive serves the card through a disk that loses what was not
// flushed when the power is cut, and answers it with qemu's -drive for it.
// Both end with the test.
func lossyDrive(t *testing.T, c *card) (*LossyDisk, string) {
	t.Helper()
	disk, err := OpenLossyDisk(c.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disk.Close() })
	sock := filepath.Join(c.dir, "disk.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() { _ = disk.Serve(l) }()
	return disk, "file=nbd+unix:///?socket=" + sock + ",format=raw,cache=writeback"
}

// cutDisk makes the disk lose what it was not told to flush at the
// round-th cut: odd cuts lose it all, even ones keep a random part in a
// random order. It answers how many writes were pending and which it was.
func cutDisk(t *testing.T, disk *LossyDisk, round int, rng *rand.Rand) (int, string) {
	t.Helper()
	mode, name := LoseAll, "all lost"
	if round%2 == 0 {
		mode, name = KeepSome, "some kept, in any order"
	}
	pending, err := disk.Cut(mode, rng)
	if err != nil {
		t.Fatal(err)
	}
	return pending, name
}

// seededRand is the cuts' randomness, its seed logged (BOXTEST_SEED
// repeats a run).
func seededRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("BOXTEST_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (BOXTEST_SEED to repeat)", seed)
	return rand.New(rand.NewPCG(seed, 26))
}

// leftovers restarts the daemon with every media file dated back past the
// start-up sweep's grace period (an upload in flight may own a new file),
// waits for that sweep (it runs beside the started daemon and logs "media
// swept" with at_start=true), and reports the media files that no listed
// photo of the events names and the temp files left, after checking
// bbolt's own check of the database. It leaves the daemon stopped.
func (m *machine) leftovers(h *host, eventIDs ...string) (files, unnamed, tmp []string) {
	m.t.Helper()
	m.sh("", "systemctl", "stop", "eventbox")
	m.sh("", "sh", "-c", "find /var/lib/eventbox/media -type f -exec touch -d '-1 hour' {} +")
	cursor := strings.TrimSpace(m.sh("", "sh", "-c", "journalctl -u eventbox -n 0 --show-cursor | sed -n 's/^-- cursor: //p'"))
	m.sh("", "systemctl", "start", "eventbox")
	var swept string
	m.waitFor("the start's media sweep", 2*time.Minute, func() bool {
		r, _ := m.try([]string{"sh", "-c", "journalctl -u eventbox -o cat --after-cursor=\"$1\" | grep -m1 'media swept.*at_start=true'", "sh", cursor}, "")
		swept = strings.TrimSpace(r.Stdout)
		return swept != ""
	})
	m.t.Logf("the start's sweep: %s", swept)
	ids := map[string]bool{}
	for _, eventID := range eventIDs {
		ids[eventID] = true
		for _, id := range h.photoIDs(eventID) {
			ids[id] = true
		}
	}
	files = strings.Fields(m.sh("", "find", "/var/lib/eventbox/media", "-type", "f", "-printf", "%f\n"))
	for _, f := range files {
		id, _, _ := strings.Cut(f, ".")
		if !ids[id] {
			unnamed = append(unnamed, f)
		}
	}
	tmp = strings.Fields(m.sh("", "bash", "-c", tempLeftovers))
	m.sh("", "systemctl", "stop", "eventbox")
	m.t.Log(strings.TrimSpace(m.sh("", "/usr/local/lib/boxtest/boxagent", "dbcheck", "/var/lib/eventbox/eventbox.db")))
	return files, unnamed, tmp
}

// tempLeftovers prints the files of the running daemon's temp area that
// no write of it holds: the start cleared the area, but the daemon goes on
// writing (the variants of the photos the cut left without them), each
// write in a temp file it holds open until it renames it into place. A
// file listed, not open, and still there two seconds later is a leftover.
const tempLeftovers = `listed=$(find /var/lib/eventbox/tmp -mindepth 1 -maxdepth 1)
pid=$(systemctl show -p MainPID --value eventbox)
open=$(for fd in /proc/"$pid"/fd/*; do readlink "$fd"; done 2>/dev/null)
sleep 2
for f in $listed; do
	printf '%s\n' "$open" | grep -qxF "$f" && continue
	[ -e "$f" ] && echo "$f"
done
exit 0`

// guest is a phone joined to the event through the forwarded port.
func (m *machine) guest(slug string) *host {
	m.t.Helper()
	g := m.signInless()
	g.json("POST", "/api/e/"+slug+"/join", map[string]any{}, http.StatusOK)
	return g
}

// upload sends one photo: its id when the box answered 201.
func (h *host) upload(slug string, photo []byte) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("photo", "IMG.jpg")
	fw.Write(photo)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, h.base+"/api/e/"+slug+"/photos", &body)
	req.Header.Set("Origin", h.base)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := h.c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return "", nil
	}
	var v struct {
		Photo struct {
			ID string `json:"id"`
		} `json:"photo"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", err
	}
	return v.Photo.ID, nil
}

// photoIDs lists the event's photos in the console, every page.
func (h *host) photoIDs(eventID string) []string {
	h.t.Helper()
	var ids []string
	path := "/api/admin/events/" + eventID + "/photos"
	for {
		page := h.json("GET", path, nil, http.StatusOK)
		for _, p := range page["photos"].([]any) {
			ids = append(ids, p.(map[string]any)["id"].(string))
		}
		next, ok := page["nextCursor"].(float64)
		if !ok {
			sort.Strings(ids)
			return ids
		}
		path = "/api/admin/events/" + eventID + "/photos?before=" + strconv.FormatInt(int64(next), 10)
	}
}

// checkAcked counts the acknowledged uploads that are not listed or whose
// original on the card is not byte for byte what was sent (acked: photo
// id -> sha256 of what was sent). The card's files are hashed inside the
// box, in one command: downloading every original through the emulated
// network after every cut took most of a scenario's time. checkServed
// reads them back through the daemon.
func (m *machine) checkAcked(h *host, eventID string, acked map[string]string) int {
	m.t.Helper()
	listed := map[string]bool{}
	for _, id := range h.photoIDs(eventID) {
		listed[id] = true
	}
	stored := m.storedSums()
	lost := 0
	for id, want := range acked {
		switch {
		case !listed[id]:
			m.t.Errorf("photo %s was acknowledged but is not listed", id)
			lost++
		case !stored[id][want]:
			m.t.Errorf("photo %s: no file of it on the card is what was sent (%d files named after it)", id, len(stored[id]))
			lost++
		}
	}
	return lost
}

// storedSums is the sha256 of every file under the card's media
// directory, by the photo id its name starts with (the original and its
// variants: "<id>.jpg", "<id>.thumb.jpg", ...).
func (m *machine) storedSums() map[string]map[string]bool {
	m.t.Helper()
	out := m.sh("", "sh", "-c", "find /var/lib/eventbox/media -type f -exec sha256sum {} +")
	sums := map[string]map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		sum, file, ok := strings.Cut(line, "  ")
		if !ok {
			continue
		}
		id, _, _ := strings.Cut(filepath.Base(file), ".")
		if sums[id] == nil {
			sums[id] = map[string]bool{}
		}
		sums[id][sum] = true
	}
	return sums
}

// checkServed counts the acknowledged uploads whose original, as the
// daemon serves it, is not byte for byte what was sent.
func (m *machine) checkServed(h *host, acked map[string]string) int {
	m.t.Helper()
	lost := 0
	for id, want := range acked {
		st, b := h.do("GET", "/api/media/"+id+"?v=original", nil, "")
		sum := sha256.Sum256(b)
		if st != http.StatusOK || hex.EncodeToString(sum[:]) != want {
			m.t.Errorf("photo %s: the original answers %d with %d bytes that are not what was sent", id, st, len(b))
			lost++
		}
	}
	return lost
}

// noisyJPEG is a photo of noise, a few hundred KiB as a phone's are, so a
// cut can land while one is on the wire or on its way to the disk.
func noisyJPEG(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, 640, 480))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(256))
	}
	img.Set(0, 0, color.RGBA{uint8(seed), uint8(seed >> 8), uint8(seed >> 16), 255})
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		panic(fmt.Sprintf("encoding a test photo: %v", err))
	}
	return b.Bytes()
}
