package scenarios_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/internal/testtool"
)

// tusJSVersion is the tus-js-client that daemon/testdata/tusjs pins
// (package.json, package-lock.json); `make tusjs` installs it there.
const tusJSVersion = "4.3.1"

// tusJSDirEnv names another folder holding node_modules/tus-js-client
// and upload.js, instead of daemon/testdata/tusjs.
const tusJSDirEnv = "EVENTBOX_TUSJS"

// tusJS is the official JavaScript tus client run in Node, as a third
// party's uploader would run it against the box.
type tusJS struct {
	node, dir string
}

func needTusJS(t *testing.T) tusJS {
	t.Helper()
	node := testtool.NeedOne(t, "nodejs", "node", "nodejs")
	dir := os.Getenv(tusJSDirEnv)
	if dir == "" {
		dir = filepath.Join("..", "testdata", "tusjs")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "node_modules", "tus-js-client", "package.json"))
	if err != nil {
		testtool.Missing(t, fmt.Sprintf("no tus-js-client (%v): run make tusjs (npm, Debian package npm)", err))
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil || pkg.Version != tusJSVersion {
		t.Fatalf("tus-js-client %q installed (%v), want %s: run make tusjs", pkg.Version, err, tusJSVersion)
	}
	return tusJS{node: node, dir: dir}
}

// tusJSRun is what one run of upload.js said.
type tusJSRun struct {
	URL, Done, Result, Status, Error string
}

// upload runs upload.js on file and answers what it said.
func (c tusJS) upload(t *testing.T, args map[string]any) tusJSRun {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.node, filepath.Join(c.dir, "upload.js"), string(raw))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var run tusJSRun
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct{ URL, Done, Result, Status, Error string }
		if jerr := json.Unmarshal(sc.Bytes(), &line); jerr != nil {
			t.Fatalf("upload.js said %q: %v", sc.Text(), jerr)
		}
		if line.URL != "" {
			run.URL = line.URL
		}
		if line.Done != "" {
			run.Done, run.Result, run.Status = line.Done, line.Result, line.Status
		}
		if line.Error != "" {
			run.Error = line.Error
		}
	}
	if err != nil && run.Error == "" {
		t.Fatalf("node upload.js: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	return run
}

// TestTusJSClientUploads: the official JavaScript tus client
// (tus-js-client, in Node) sends a photo and a video with its poster to
// the box through a proxy that cuts the connection mid-file. It resumes
// by itself (retryDelays: HEAD, then PATCH from the box's offset), and a
// second run resumes from the address the first one was given; every
// file arrives whole, and the bytes sent stay close to the file's size,
// far from the twice it would take if the box made it start again.
func TestTusJSClientUploads(t *testing.T) {
	testtool.Long(t, "the official tus client in Node")
	js := needTusJS(t)
	h := newHarness(t)
	owner := h.owner()
	slug := h.createEvent(owner, map[string]any{"name": "P"})["slug"].(string)
	g := h.guest(slug)
	srvURL, _ := url.Parse(h.srv.URL)
	var cookies []string
	for _, c := range g.hc.Jar.Cookies(srvURL) {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// through sends one file through a proxy that cuts every connection
	// each time cutEvery more bytes went through; it answers the run and
	// the bytes and cuts the proxy saw.
	through := func(t *testing.T, cutEvery int64, args map[string]any) (tusJSRun, int64, int) {
		t.Helper()
		proxy := newEdgeProxy(t, h.srv.Listener.Addr().String(), 1<<30, cutEvery)
		base := "http://" + proxy.addr()
		args["endpoint"] = base + "/api/e/" + slug + "/uploads"
		if u, ok := args["uploadUrl"].(string); ok && strings.HasPrefix(u, "http") {
			pu, _ := url.Parse(u)
			args["uploadUrl"] = base + pu.Path
		}
		args["headers"] = map[string]string{"Origin": base, "Cookie": strings.Join(cookies, "; ")}
		run := js.upload(t, args)
		sent, _, cuts := proxy.stats()
		return run, sent, cuts
	}
	// stored checks that the run stored a photo whose variant v is want.
	stored := func(t *testing.T, run tusJSRun, v string, want []byte) string {
		t.Helper()
		if run.Error != "" || run.Done == "" {
			t.Fatalf("tus-js-client did not finish: %+v", run)
		}
		id, ok := strings.CutPrefix(run.Result, "photo ")
		if !ok || run.Status != "201" {
			t.Fatalf("the last PATCH named %q (status %q), want a new photo", run.Result, run.Status)
		}
		got := g.do("GET", "/api/media/"+id+"?v="+v, nil).expect(t, 200, "")
		if !bytes.Equal(got.Body, want) {
			t.Fatalf("the stored file (%d bytes) is not the one sent (%d bytes)", len(got.Body), len(want))
		}
		return id
	}
	report := func(t *testing.T, what string, size int, sent int64, cuts int) {
		t.Helper()
		ratio := float64(sent) / float64(size)
		t.Logf("%s: %.2f MB file, %d cuts, %.2f MB sent through the proxy (%.3f× the file)",
			what, float64(size)/(1<<20), cuts, float64(sent)/(1<<20), ratio)
		if cuts < 1 {
			t.Fatal("the proxy never cut: nothing was resumed")
		}
		if ratio > 1.2 {
			t.Fatalf("sent %.3f× the file, want at most 1.2×: the upload started again instead of resuming", ratio)
		}
	}
	retry := []int{0, 50, 100, 200, 400, 800}

	t.Run("a photo, cut halfway, resumed by the client's retries", func(t *testing.T) {
		photo := photoJPEG(t, 3000, 2000, 0, false, 11)
		run, sent, cuts := through(t, int64(len(photo))/2, map[string]any{
			"file": write("photo.jpg", photo), "retryDelays": retry,
			"metadata": map[string]string{"filename": "photo.jpg", "filetype": "image/jpeg"},
		})
		stored(t, run, "original", photo)
		report(t, "photo", len(photo), sent, cuts)
	})

	t.Run("a video after its poster, cut every 8 MB, resumed by the client's retries", func(t *testing.T) {
		poster := photoJPEG(t, 64, 36, 0, false, 12)
		video := bigMP4(24<<20, 20)
		prun, _, _ := through(t, 1<<30, map[string]any{
			"file": write("poster.jpg", poster), "retryDelays": retry,
			"metadata": map[string]string{"kind": "poster", "filetype": "image/jpeg"},
		})
		if prun.Done == "" {
			t.Fatalf("the poster did not go up: %+v", prun)
		}
		pid := prun.Done[strings.LastIndex(prun.Done, "/")+1:]
		run, sent, cuts := through(t, 8<<20, map[string]any{
			"file": write("party.mp4", video), "retryDelays": retry,
			"metadata": map[string]string{"filename": "party.mp4", "filetype": "video/mp4", "poster": pid},
		})
		stored(t, run, "play", video)
		report(t, "video", len(video), sent, cuts)
		if cuts < 3 {
			t.Fatalf("%d cuts, want 3", cuts)
		}
	})

	t.Run("a photo cut with no retries, resumed by a new run from its address", func(t *testing.T) {
		photo := photoJPEG(t, 3000, 2000, 0, false, 13)
		first, sent1, cuts := through(t, int64(len(photo))*2/3, map[string]any{
			"file": write("later.jpg", photo), "retryDelays": nil,
			"metadata": map[string]string{"filename": "later.jpg", "filetype": "image/jpeg"},
		})
		if first.Error == "" || first.URL == "" || cuts != 1 {
			t.Fatalf("the first run was not cut after getting its address: %+v, %d cuts", first, cuts)
		}
		head := g.do("HEAD", mustPath(t, first.URL), nil, "Tus-Resumable", "1.0.0")
		t.Logf("after the cut the box holds %s of %d bytes", head.Header.Get("Upload-Offset"), len(photo))
		second, sent2, _ := through(t, 1<<30, map[string]any{
			"file": write("later.jpg", photo), "retryDelays": nil, "uploadUrl": first.URL,
			"metadata": map[string]string{"filename": "later.jpg", "filetype": "image/jpeg"},
		})
		stored(t, second, "original", photo)
		report(t, "photo in two runs", len(photo), sent1+sent2, cuts)
		if second.URL != "" && second.URL != first.URL && !strings.HasSuffix(second.URL, mustPath(t, first.URL)) {
			t.Fatalf("the second run made a new upload %q instead of resuming %q", second.URL, first.URL)
		}
	})
}

func mustPath(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Path
}
