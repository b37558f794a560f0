// Package s3test starts S3-compatible servers for tests: [Real], the
// S3 gateway of SeaweedFS (a real distributed object store: master,
// volume, filer and S3 gateway in one weed process over a temp folder),
// [Versity], the Versity S3 gateway over a temp folder (its posix
// backend: a real S3 server in one small process, cheap enough to build
// in CI), and [Fake], gofakes3 in memory over httptest, a quick stand-in
// that make test runs beside the real ones.
//
// The weed command is built from tools/s3server and the versitygw command
// from tools/s3gateway (each its own go.mod, so the product's module graph
// stays clean) into the cache folder by `make s3server` and `make
// s3gateway`; [Real] and [Versity] find them there or at $EVENTBOX_WEED and
// $EVENTBOX_VERSITYGW, and ask for them through internal/testtool when they
// are missing.
package s3test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"eventbox/internal/testtool"
)

// Server is a running S3-compatible server with one bucket.
type Server struct {
	// Endpoint is its address, http://127.0.0.1:port.
	Endpoint  string
	Region    string
	Bucket    string
	AccessKey string
	Secret    string
}

// WeedEnv names the variable that points at a built weed command.
const WeedEnv = "EVENTBOX_WEED"

// VersityEnv names the variable that points at a built versitygw command.
const VersityEnv = "EVENTBOX_VERSITYGW"

// WeedPath answers where make s3server puts the weed command:
// $EVENTBOX_WEED, else <user cache>/eventbox-s3/weed.
func WeedPath() string { return cached(WeedEnv, "weed") }

// VersityPath answers where make s3gateway puts the versitygw command:
// $EVENTBOX_VERSITYGW, else <user cache>/eventbox-s3/versitygw.
func VersityPath() string { return cached(VersityEnv, "versitygw") }

func cached(env, name string) string {
	if p := os.Getenv(env); p != "" {
		return p
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "eventbox-s3", name)
}

// Fake starts gofakes3 in memory with one bucket; it ends with the test.
func Fake(t testing.TB) Server {
	t.Helper()
	backend := s3mem.New()
	faker := gofakes3.New(backend)
	srv := httptest.NewServer(faker.Server())
	t.Cleanup(srv.Close)
	s := Server{Endpoint: srv.URL, Region: "us-east-1", Bucket: "parties", AccessKey: "fake", Secret: "fake-secret"}
	if err := backend.CreateBucket(s.Bucket); err != nil {
		t.Fatal(err)
	}
	return s
}

// Real starts SeaweedFS (weed server -s3) over a temp folder with one
// bucket, and stops it when the test ends. It takes a few seconds.
func Real(t testing.TB) Server {
	t.Helper()
	weed := WeedPath()
	if _, err := os.Stat(weed); err != nil {
		testtool.Missing(t, "the SeaweedFS weed command at "+weed+": make s3server builds it")
	}
	dir := t.TempDir()
	s := Server{Region: "us-east-1", Bucket: "parties", AccessKey: "eventbox-test", Secret: "eventbox-test-secret"}
	config := fmt.Sprintf(`{"identities":[{"name":"box","credentials":[{"accessKey":%q,"secretKey":%q}],`+
		`"actions":["Admin","Read","Write","List","Tagging"]}]}`, s.AccessKey, s.Secret)
	if err := os.WriteFile(filepath.Join(dir, "s3.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 5)
	s3port := ports[0]
	cmd := exec.Command(weed, "server",
		"-dir="+dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port="+strconv.Itoa(ports[1]), "-volume.port="+strconv.Itoa(ports[2]),
		"-filer", "-filer.port="+strconv.Itoa(ports[3]),
		"-master.volumeSizeLimitMB=64", "-volume.max=20",
		"-s3", "-s3.port="+strconv.Itoa(s3port), "-s3.config="+filepath.Join(dir, "s3.json"),
		"-metricsPort="+strconv.Itoa(ports[4]))
	s.Endpoint = "http://127.0.0.1:" + strconv.Itoa(s3port)
	// The gateway answers once the master, the volume and the filer are
	// up; the bucket is made then.
	start(t, "weed", cmd, dir, s)
	return s
}

// Versity starts the Versity S3 gateway (versitygw posix) over a temp
// folder with one bucket, and stops it when the test ends. It takes well
// under a second.
func Versity(t testing.TB) Server {
	t.Helper()
	gw := VersityPath()
	if _, err := os.Stat(gw); err != nil {
		testtool.Missing(t, "the versitygw command at "+gw+": make s3gateway builds it")
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "buckets")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	s := Server{Region: "us-east-1", Bucket: "parties", AccessKey: "eventbox-test", Secret: "eventbox-test-secret"}
	port := freePorts(t, 1)[0]
	cmd := exec.Command(gw, "--access", s.AccessKey, "--secret", s.Secret, "--region", s.Region,
		"--port", "127.0.0.1:"+strconv.Itoa(port), "--quiet", "posix", root)
	// Only what it needs: none of the VGW_ or ROOT_ variables a
	// developer's shell may hold.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir}
	s.Endpoint = "http://127.0.0.1:" + strconv.Itoa(port)
	start(t, "versitygw", cmd, dir, s)
	return s
}

// start runs cmd in dir, stopped when the test ends, and makes the
// bucket of s once its gateway takes it (within 90 s).
func start(t testing.TB, name string, cmd *exec.Cmd, dir string, s Server) {
	t.Helper()
	var out testtool.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("%s ended: %v\n%s", name, err, tail(out.String()))
		default:
		}
		if err := makeBucket(s); err == nil {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("%s's S3 gateway did not take a bucket in 90 s: %v\n%s", name, err, tail(out.String()))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// makeBucket creates the server's bucket through a signed PUT.
func makeBucket(s Server) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return CreateBucket(ctx, s)
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// freePorts answers n ports free on 127.0.0.1 now.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var out []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return out
}

// CountingTransport counts the requests that send a part of a multipart
// upload (PUT ?partNumber=) by part number, over http.DefaultTransport.
type CountingTransport struct {
	// Base makes the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Parts is told the number of each part sent, before it is sent.
	Parts func(n int)
}

// RoundTrip counts and sends the request.
func (c CountingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPut {
		if n, err := strconv.Atoi(r.URL.Query().Get("partNumber")); err == nil && c.Parts != nil {
			c.Parts(n)
		}
	}
	base := c.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// CreateBucket makes the server's bucket (an existing one is fine).
func CreateBucket(ctx context.Context, s Server) error {
	c, err := minio.New(strings.TrimPrefix(s.Endpoint, "http://"), &minio.Options{
		Creds: credentials.NewStaticV4(s.AccessKey, s.Secret, ""), Region: s.Region, BucketLookup: minio.BucketLookupPath})
	if err != nil {
		return err
	}
	err = c.MakeBucket(ctx, s.Bucket, minio.MakeBucketOptions{Region: s.Region})
	if err != nil {
		if ok, eerr := c.BucketExists(ctx, s.Bucket); eerr == nil && ok {
			return nil
		}
	}
	return err
}

// Objects answers every object of the bucket under prefix with its
// bytes, read back from the server.
func Objects(ctx context.Context, s Server, prefix string) (map[string][]byte, error) {
	c, err := minio.New(strings.TrimPrefix(s.Endpoint, "http://"), &minio.Options{
		Creds: credentials.NewStaticV4(s.AccessKey, s.Secret, ""), Region: s.Region, BucketLookup: minio.BucketLookupPath})
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for o := range c.ListObjects(ctx, s.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, o.Err
		}
		r, err := c.GetObject(ctx, s.Bucket, o.Key, minio.GetObjectOptions{})
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(r)
		_ = r.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s back: %w", o.Key, err)
		}
		out[o.Key] = b
	}
	return out, nil
}
