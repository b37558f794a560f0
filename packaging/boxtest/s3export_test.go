package boxtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"eventbox/internal/fakemp4"
	"eventbox/internal/testtool"
	"eventbox/s3store"
	"eventbox/s3store/s3test"
)

// s3Addr is where the machine reaches the test's S3-compatible store.
const s3Addr = "10.0.2.101:80"

// The S3 export's keys: <s3Prefix>/<s3BoxName>/<event>/….
const (
	s3Prefix  = "rentals"
	s3BoxName = "box-07"
)

// s3Videos are the sizes of the videos the S3 part uploads: each over the
// box's part size (s3store.PartSize, 16 MiB), so each goes as a multipart
// upload, of two parts and of three, the last ones short.
var s3Videos = []int{s3store.PartSize + 3<<20, 2*s3store.PartSize + 1<<20}

// s3Host is the test's S3-compatible store on the host: the Versity S3
// gateway (s3test.Versity) behind a proxy that counts the parts of
// multipart uploads the box sends (PUT ?partNumber=), by object key and
// part number, and the bytes of parts it has passed on.
type s3Host struct {
	srv s3test.Server

	mu sync.Mutex
	// parts counts each part's sends since the last reset.
	parts map[s3Part]int
	// bytes is how many bytes of parts the proxy has passed on since the
	// last reset; at, when not zero, the count at which reached is closed
	// and cutIn noted (the part passing on then).
	bytes   int64
	at      int64
	reached chan struct{}
	cutIn   s3Part
}

// s3Part is one part of a multipart upload: the object's key and the
// part's number.
type s3Part struct {
	Key string
	N   int
}

// String names the part by its object's name (the export's folder left
// out) and its number.
func (p s3Part) String() string { return fmt.Sprintf("%s #%d", path.Base(p.Key), p.N) }

// versityRequired reports whether a missing versitygw fails the test
// rather than leaving out the part that needs it: in CI
// (EVENTBOX_REQUIRE_ALL=1, which .ci/run sets, or CI=true).
func versityRequired() bool {
	return testtool.Required() || os.Getenv("CI") == "true"
}

// serveS3 starts the Versity S3 gateway on the host for the test's time,
// with its bucket, behind the counting proxy the card's machine reaches at
// s3Addr. Without the gateway's command (make s3gateway builds it) it
// answers nil and the S3 part is left out, or in CI fails the test.
func serveS3(t *testing.T, c *card) *s3Host {
	t.Helper()
	if _, err := os.Stat(s3test.VersityPath()); err != nil {
		why := "the versitygw command at " + s3test.VersityPath() + " is missing (make s3gateway builds it; " + s3test.VersityEnv + " names another)"
		if versityRequired() {
			t.Fatalf("%s: in CI the power cuts during an S3 export must run", why)
		}
		t.Logf("%s: the power cuts during an S3 export are left out", why)
		return nil
	}
	s := &s3Host{srv: s3test.Versity(t), parts: map[s3Part]int{}}
	u, err := url.Parse(s.srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	// The box signs its requests for the Host it dials, s3Addr: the proxy
	// passes the Host header on as it came.
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // the cuts break requests
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	proxy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, err := strconv.Atoi(r.URL.Query().Get("partNumber")); err == nil && r.Method == http.MethodPut {
			p := s3Part{strings.TrimPrefix(r.URL.Path, "/"+s.srv.Bucket+"/"), n}
			s.mu.Lock()
			s.parts[p]++
			s.mu.Unlock()
			r.Body = &partBody{r.Body, s, p}
		}
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = proxy.Serve(l) }()
	t.Cleanup(func() { proxy.Close() })
	c.reachHost(t, s3Addr, l.Addr().String())
	return s
}

// partBody is the body of a part the proxy passes on, counted.
type partBody struct {
	io.ReadCloser
	s *s3Host
	p s3Part
}

// Read counts what it reads into the store's bytes.
func (b *partBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.s.passed(b.p, int64(n))
	return n, err
}

// passed adds n bytes of part p to the count, and says so once it
// reaches the mark.
func (s *s3Host) passed(p s3Part, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bytes += n
	if s.at > 0 && s.bytes >= s.at {
		s.at, s.cutIn = 0, p
		close(s.reached)
	}
}

// reset empties the bucket and starts the counts again.
func (s *s3Host) reset(t *testing.T) {
	t.Helper()
	c := s.client(t)
	ctx := t.Context()
	for o := range c.ListObjects(ctx, s.srv.Bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatalf("listing the bucket: %v", o.Err)
		}
		if err := c.RemoveObject(ctx, s.srv.Bucket, o.Key, minio.RemoveObjectOptions{}); err != nil {
			t.Fatalf("emptying the bucket: %v", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parts, s.bytes, s.at = map[s3Part]int{}, 0, 0
}

// mark answers a channel closed once the proxy has passed on at bytes of
// parts since the last reset, and the count now.
func (s *s3Host) mark(at int64) (<-chan struct{}, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reached, s.at = make(chan struct{}), at
	if s.bytes >= at {
		s.at = 0
		close(s.reached)
	}
	return s.reached, s.bytes
}

// sent answers the parts sent since the last reset, each with how many
// times, the bytes of parts passed on, and the part that passed the mark.
func (s *s3Host) sent() (map[s3Part]int, int64, s3Part) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[s3Part]int, len(s.parts))
	for p, n := range s.parts {
		out[p] = n
	}
	return out, s.bytes, s.cutIn
}

// client is a client of the gateway itself, not through the proxy.
func (s *s3Host) client(t *testing.T) *minio.Client {
	t.Helper()
	c, err := minio.New(strings.TrimPrefix(s.srv.Endpoint, "http://"), &minio.Options{
		Creds: credentials.NewStaticV4(s.srv.AccessKey, s.srv.Secret, ""), Region: s.srv.Region, BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// unfinished answers the keys of the multipart uploads under way in the
// bucket.
func (s *s3Host) unfinished(t *testing.T) []string {
	t.Helper()
	core := minio.Core{Client: s.client(t)}
	res, err := core.ListMultipartUploads(t.Context(), s.srv.Bucket, "", "", "", "", 1000)
	if err != nil {
		t.Fatalf("listing the multipart uploads under way: %v", err)
	}
	var keys []string
	for _, u := range res.Uploads {
		keys = append(keys, u.Key)
	}
	return keys
}

// s3Target is the test's S3 store as the power cuts during an export see
// it; large is how many bytes the export sends in parts (its videos').
type s3Target struct {
	s     *s3Host
	large int64
}

// settings points the box at the bucket through the proxy, path-style.
func (s s3Target) settings() map[string]any {
	return map[string]any{"kind": "s3", "s3": map[string]any{
		"endpoint": "http://" + strings.TrimSuffix(s3Addr, ":80"), "region": s.s.srv.Region, "bucket": s.s.srv.Bucket,
		"prefix": s3Prefix, "boxName": s3BoxName, "accessKey": s.s.srv.AccessKey, "secret": s.s.srv.Secret, "pathStyle": true}}
}

// box is the box's name the keys and the manifest carry.
func (s s3Target) box() string { return s3BoxName }

// clear empties the bucket and the proxy's counts.
func (s s3Target) clear(t *testing.T) { s.s.reset(t) }

// files answers the bucket's objects, read back from the gateway, by
// key, and how many multipart uploads are under way.
func (s s3Target) files(t *testing.T) (map[string][]byte, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	objects, err := s3test.Objects(ctx, s.s.srv, "")
	if err != nil {
		t.Fatalf("reading the bucket back: %v", err)
	}
	return objects, len(s.s.unfinished(t))
}

// waitToCut waits until the proxy has passed on a random number of the
// bytes the export sends in parts, at least one and not all: the cut
// comes in the middle of a part of a multipart upload.
func (s s3Target) waitToCut(t *testing.T, h *host, eventID, exportID string, _ int, rng *rand.Rand) exportState {
	t.Helper()
	at := 1 + rng.Int64N(s.large-1)
	reached, _ := s.s.mark(at)
	deadline := time.After(15 * time.Minute)
	poll := time.NewTicker(2 * time.Second)
	defer poll.Stop()
	var doing exportState
	for {
		select {
		case <-reached:
			_, bytes, in := s.s.sent()
			t.Logf("cutting %.1f MiB into the %.1f MiB sent in parts, in %s", float64(bytes)/(1<<20), float64(s.large)/(1<<20), in)
			return doing
		case <-deadline:
			t.Fatalf("the box did not send %d bytes in parts in 15 minutes: %+v", at, doing)
		case <-poll.C:
			doing = h.export(eventID, exportID)
			if doing.Status == "failed" || doing.Status == "done" {
				t.Fatalf("the export is %s before %d of its %d bytes in parts were sent: %+v", doing.Status, at, s.large, doing)
			}
		}
	}
}

// checkDone checks the export's folder is <prefix>/<box name>/<event>,
// no multipart upload is left under way, and the parts were sent again
// at most once each, one of them at most (the one the cut broke); it
// answers the parts sent.
func (s s3Target) checkDone(t *testing.T, x exportState) string {
	t.Helper()
	if rest, ok := strings.CutPrefix(x.Folder, s3Prefix+"/"+s3BoxName+"/"); !ok || rest == "" || strings.Contains(rest, "/") {
		t.Errorf("the export's folder is %q, want %s/%s/<event>", x.Folder, s3Prefix, s3BoxName)
	}
	if left := s.s.unfinished(t); len(left) > 0 {
		t.Errorf("multipart uploads left under way: %v", left)
	}
	sent, bytes, _ := s.s.sent()
	var again []s3Part
	var list []string
	for p, n := range sent {
		if n > 1 {
			again = append(again, p)
		}
		if n > 2 {
			t.Errorf("%s was sent %d times", p, n)
		}
		list = append(list, fmt.Sprintf("%s: %d", p, n))
	}
	sort.Strings(list)
	if len(again) > 1 {
		t.Errorf("%d parts were sent again after one cut: %v", len(again), again)
	}
	return fmt.Sprintf("; parts sent (%.1f MiB): %s", float64(bytes)/(1<<20), strings.Join(list, ", "))
}

// powerCutsDuringAnS3Export sends an event's photos and videos large
// enough to go in parts to the S3 store the test runs on the host
// (serveS3) and cuts the box's power in the middle of a part
// (powerCutsDuringExports): after each cut the export resumes its
// multipart upload from the parts the store has, and sends again at most
// the one the cut broke; the bucket then holds every file byte for byte
// under <prefix>/<box name>/<event>, with its manifest.json, and no
// multipart upload left under way.
func powerCutsDuringAnS3Export(t *testing.T, b *lossyBox, s *s3Host) {
	if s == nil {
		t.Skip("no versitygw (make s3gateway)")
	}
	m := b.m.in(t)
	h, slug, eventID := b.newEvent(m, "Inès & Paul")
	g := m.guest(slug)
	start := time.Now()
	acked := uploadPhotos(t, g, slug, 4, 9000)
	to := s3Target{s: s}
	for i, size := range s3Videos {
		video := noisyMP4(uint64(9100+i), size)
		id, err := g.uploadVideo(slug, noisyJPEG(uint64(9200+i)), video)
		if err != nil || id == "" {
			t.Fatalf("uploading video %d (%d MiB): %v", i, len(video)>>20, err)
		}
		acked[id] = sha256Hex(video)
		to.large += int64(len(video))
	}
	t.Logf("a guest uploaded 4 photos and %d videos (%.1f MiB) in %s", len(s3Videos), float64(to.large)/(1<<20), time.Since(start).Round(100*time.Millisecond))
	powerCutsDuringExports(t, b, to, h, eventID, acked)
}

// noisyMP4 is a video of size bytes (fakemp4) whose media data is noise.
func noisyMP4(seed uint64, size int) []byte {
	r := rand.New(rand.NewPCG(seed, 11))
	data := make([]byte, size-fakemp4.Overhead)
	for i := 0; i+8 <= len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], r.Uint64())
	}
	return fakemp4.Make(20, data)
}

// uploadVideo sends a video as a phone does, its poster frame (a JPEG)
// first: its id when the box answered 201.
func (h *host) uploadVideo(slug string, poster, video []byte) (string, error) {
	req, _ := http.NewRequest(http.MethodPost, h.base+"/api/e/"+slug+"/photos",
		io.MultiReader(bytes.NewReader(poster), bytes.NewReader(video)))
	req.ContentLength = int64(len(poster) + len(video))
	req.Header.Set("Origin", h.base)
	req.Header.Set("Content-Type", "application/vnd.service.video")
	req.Header.Set("X-Poster-Bytes", strconv.Itoa(len(poster)))
	resp, err := h.c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		Photo struct {
			ID string `json:"id"`
		} `json:"photo"`
	}
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		return "", fmt.Errorf("the box answered %s: %.300s", resp.Status, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", err
	}
	return v.Photo.ID, nil
}
