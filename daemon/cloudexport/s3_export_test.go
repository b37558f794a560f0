package cloudexport_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"eventbox/daemon/cloudexport"
	"eventbox/daemon/jobs"
	"eventbox/internal/testtool"
	"eventbox/s3store"
	"eventbox/s3store/s3test"
	"eventbox/store"
)

// runExport runs the export jobs of st with an exporter over bucket until
// they are idle or ctx ends (a power cut).
func runExport(ctx context.Context, t *testing.T, st *store.Store, bucket cloudexport.BucketFunc) {
	t.Helper()
	x := cloudexport.New(cloudexport.Config{Store: st, Display: (&displaySpy{st: st}).make, Naming: &guestbookSpy{},
		Bucket: bucket, BoxName: "box-07"})
	runner, err := jobs.New(jobs.Config{Store: st, Kinds: []jobs.Kind{x.Kind()}})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = runner.Run(runCtx)
	}()
	runner.Notify(store.ExportJobKind)
	wctx, wcancel := context.WithTimeout(runCtx, 60*time.Second)
	_ = runner.WaitIdle(wctx)
	wcancel()
	cancel()
	<-done
}

// TestS3ExportResumesItsMultipartUploadAfterACut: the power goes while a
// large video's third part of four is sent; at the next start the export
// resumes the upload the job's record kept: the parts the store has are
// not sent again, only the cut one and the last; the video is whole in
// the bucket and the export is done.
func TestS3ExportResumesItsMultipartUploadAfterACut(t *testing.T) {
	s3ExportResumes(t, s3test.Fake(t))
}

func TestS3ExportResumesItsMultipartUploadAfterACutOnVersityGW(t *testing.T) {
	testtool.Long(t, "starts versitygw, built by make s3gateway")
	s3ExportResumes(t, s3test.Versity(t))
}

func TestS3ExportResumesItsMultipartUploadAfterACutOnSeaweedFS(t *testing.T) {
	testtool.Long(t, "starts SeaweedFS, built by make s3server")
	s3ExportResumes(t, s3test.Real(t))
}

func s3ExportResumes(t *testing.T, s s3test.Server) {
	ctx := t.Context()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := store.Event{Name: "Anna & Ben", EventDate: "2026-06-20"}
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	video := make([]byte, 3*(5<<20)+777)
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i+8 <= len(video); i += 8 {
		binary.LittleEndian.PutUint64(video[i:], r.Uint64())
	}
	p := store.Photo{ID: store.NewID(), EventID: e.ID, GuestID: "g1", GuestName: "Ana", Status: store.StatusVisible, Format: "jpeg"}
	if _, err := st.Media().Write(p.OriginalName(), bytes.NewReader(video)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Photos().Add(ctx, p, 0); err != nil {
		t.Fatal(err)
	}
	if err := st.Cloud().PutSettings(ctx, store.CloudSettings{Kind: store.CloudS3, S3: &store.S3Settings{
		Endpoint: s.Endpoint, Region: s.Region, Bucket: s.Bucket, Prefix: "rentals",
		AccessKey: s.AccessKey, Secret: s.Secret, PathStyle: true}}); err != nil {
		t.Fatal(err)
	}
	x, _, err := st.Cloud().QueueExport(ctx, e.ID, store.ExportVisible)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sent := map[int]int{}
	powerCtx, powerCut := context.WithCancel(ctx)
	bucket := func(cut bool) cloudexport.BucketFunc {
		return func(set s3store.Settings) (*s3store.Bucket, error) {
			return s3store.New(set, s3store.Config{PartSize: 5 << 20, Transport: s3test.CountingTransport{Parts: func(n int) {
				mu.Lock()
				defer mu.Unlock()
				sent[n]++
				if cut && n == 3 {
					powerCut()
				}
			}}})
		}
	}
	runExport(powerCtx, t, st, bucket(true))
	var state struct {
		Upload *s3store.Upload `json:"upload"`
	}
	j, err := st.Jobs().Unfinished(ctx, store.ExportJobKind, 0)
	if err != nil || len(j) != 1 || j[0].Progress == nil {
		t.Fatalf("after the cut: %d jobs, %v", len(j), err)
	}
	if err := json.Unmarshal(j[0].Progress.State, &state); err != nil || state.Upload == nil || state.Upload.ID == "" {
		t.Fatalf("the job's record keeps no upload: %s (%v)", j[0].Progress.State, err)
	}
	runExport(ctx, t, st, bucket(false))

	x, err = st.Cloud().Export(ctx, e.ID, x.ID)
	if err != nil || x.Status != store.ExportDone {
		t.Fatalf("export %+v, %v; want done", x, err)
	}
	again := 0
	for _, n := range sent {
		again += n - 1
	}
	t.Logf("parts sent %v: %d sent again", sent, again)
	if sent[1] != 1 || sent[2] != 1 || sent[3] != 2 || sent[4] != 1 {
		t.Errorf("parts sent %v; want each once but the cut third", sent)
	}
	objects, err := s3test.Objects(ctx, s, "rentals/box-07/")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for k, v := range objects {
		if strings.HasSuffix(k, ".jpg") {
			found = bytes.Equal(v, video)
		}
	}
	if !found {
		t.Errorf("the large file is not whole in the bucket (%d objects)", len(objects))
	}
}

// TestS3GuestLink: an S3 export's guests' link is index.html under the
// public address of the prefix when the hosts gave one, else a page of
// presigned links, itself presigned, that opens every photo without keys.
func TestS3GuestLink(t *testing.T) { testS3GuestLink(t, s3test.Fake(t)) }

func TestS3GuestLinkOnVersityGW(t *testing.T) {
	testtool.Long(t, "starts versitygw, built by make s3gateway")
	testS3GuestLink(t, s3test.Versity(t))
}

func TestS3GuestLinkOnSeaweedFS(t *testing.T) {
	testtool.Long(t, "starts SeaweedFS, built by make s3server")
	testS3GuestLink(t, s3test.Real(t))
}

func testS3GuestLink(t *testing.T, srv s3test.Server) {
	for _, tc := range []struct {
		name, public, want string
	}{
		{"a public prefix", "https://photos.example.org/rentals", "https://photos.example.org/rentals/box-07/2026-06-20%20Anna-Ben/index.html"},
		{"presigned", "", "X-Amz-Signature="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBox(t)
			b.photo(t, "visible", store.StatusVisible, false)
			s3Settings(t, b, srv)
			c, _, _ := b.st.Cloud().Settings(t.Context())
			c.S3.PublicURL = tc.public
			if err := b.st.Cloud().PutSettings(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			x := b.export(t, store.ExportVisible)
			if x.Status != store.ExportDone {
				t.Fatalf("export %s %q", x.Status, x.Error)
			}
			exp := cloudexport.New(cloudexport.Config{Store: b.st, Naming: b.guestbox, BoxName: "box-07"})
			link, err := exp.GuestLink(t.Context(), b.event, 0)
			if err != nil || !strings.Contains(link.URL, tc.want) {
				t.Fatalf("link %q, %v; want it with %q", link.URL, err, tc.want)
			}
			if tc.public != "" {
				return
			}
			// The same link for every mail while it lives; a signed one for a
			// mail sent within a day of its end.
			later := func(d time.Duration) cloudexport.GuestLink {
				at := time.Now().Add(d)
				exp := cloudexport.New(cloudexport.Config{Store: b.st, Naming: b.guestbox, BoxName: "box-07", Now: func() time.Time { return at }})
				l, err := exp.GuestLink(t.Context(), b.event, 0)
				if err != nil {
					t.Fatal(err)
				}
				return l
			}
			if again := later(time.Hour); again.URL != link.URL {
				t.Errorf("an hour later the mail got another link")
			}
			// (A new link's own date is the signer's clock, so its renewal is
			// checked in presignedEnding's test.)
			if renewed := later(6*24*time.Hour + 12*time.Hour); !strings.Contains(renewed.URL, "X-Amz-Signature=") {
				t.Errorf("six and a half days later the mail got %q", renewed.URL)
			}
			// The page and the photo it shows open without keys.
			page := get(t, link.URL)
			if !strings.Contains(page, "<h1>Anna &amp; Ben</h1>") || !strings.Contains(page, `<html lang="`) {
				t.Errorf("page: %s", page)
			}
			start := strings.Index(page, `<img src="`)
			if start < 0 {
				t.Fatalf("no photo on the page: %s", page)
			}
			src := page[start+len(`<img src="`):]
			src = strings.ReplaceAll(src[:strings.Index(src, `"`)], "&amp;", "&")
			if got := get(t, src); got != "photo visible" {
				t.Errorf("the photo's presigned link answered %q", got)
			}
		})
	}
}

// get answers the body of a GET without keys.
func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %s %s", url, res.Status, b.String())
	}
	return b.String()
}

// TestExportFollowsASwitchOfTarget: an export that could not reach the
// WebDAV server and waits for a retry goes, once the hosts switched to a
// bucket, into the bucket's folder (<prefix>/<box name>/<event>), not the
// WebDAV one.
func TestExportFollowsASwitchOfTarget(t *testing.T) {
	b := newBox(t)
	b.photo(t, "visible", store.StatusVisible, false)
	if err := b.st.Cloud().PutSettings(t.Context(), store.CloudSettings{URL: "http://127.0.0.1:1/dav/", User: davUser,
		Password: davPassword, Folder: "Photos"}); err != nil {
		t.Fatal(err)
	}
	x, _, err := b.st.Cloud().QueueExport(t.Context(), b.event.ID, store.ExportVisible)
	if err != nil {
		t.Fatal(err)
	}
	b.runner.Notify(store.ExportJobKind)
	deadline := time.Now().Add(30 * time.Second)
	for x.Error == "" {
		if time.Now().After(deadline) {
			t.Fatalf("the export never failed against no server: %+v", x)
		}
		time.Sleep(20 * time.Millisecond)
		x, _ = b.st.Cloud().Export(t.Context(), b.event.ID, x.ID)
	}
	if x.Folder != "Photos/2026-06-20 Anna-Ben" || x.Status != store.ExportQueued {
		t.Fatalf("after the WebDAV attempt: %+v", x)
	}
	srv := s3test.Fake(t)
	folder, read := s3Settings(t, b, srv)
	if _, err := b.runner.Wake(t.Context(), store.ExportJobKind); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := b.runner.WaitIdle(wctx); err != nil {
		t.Fatal(err)
	}
	x, _ = b.st.Cloud().Export(t.Context(), b.event.ID, x.ID)
	if x.Status != store.ExportDone || x.Folder != folder {
		t.Fatalf("after the switch: %+v, want done in %s", x, folder)
	}
	if files := read(); len(files) != 3 || files[folder+"/index.html"] == nil {
		t.Errorf("the bucket holds %d files", len(files))
	}
}
