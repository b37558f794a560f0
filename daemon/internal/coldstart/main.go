// Command coldstart measures the daemon's cold start: the time from
// starting `eventbox serve` to its first 200 from GET /api/health, on a
// DATA_DIR holding many photos (by default 20,000 in 50 events: records
// and tiny files, made once and reused).
//
//	go build -o /tmp/eventbox ./cmd/eventbox
//	go run ./daemon/internal/coldstart -bin /tmp/eventbox -dir /tmp/eventbox-cold
//	PROFILE=pi3 go run ./daemon/internal/coldstart -bin /tmp/eventbox -dir /tmp/eventbox-cold
//
// The data dir is made by the daemon itself (the owner, then 50 events
// through the admin API) and the store package (the photos, each with a
// 1×1 original, thumb and display, as ready photos of imports). Under a
// profile (PROFILE or -profile, internal/piprofile) the daemon runs in
// that Pi stand-in's control group. It exits non-zero when the median is
// over the target: 1 s, or 3 s under a profile.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"eventbox/daemon/internal/loadclient"
	"eventbox/internal/piprofile"
	"eventbox/store"
)

const password = "cold-start-password"

func main() {
	bin := flag.String("bin", "", "path to the eventbox binary (required)")
	dir := flag.String("dir", "", "the DATA_DIR to measure; made when it has no database (required)")
	events := flag.Int("events", 50, "events to make")
	photos := flag.Int("photos", 20000, "photos to make, spread over the events")
	runs := flag.Int("runs", 3, "starts to time")
	profile := flag.String("profile", os.Getenv(piprofile.EnvVar), "run the daemon as on a Pi stand-in: pi4 or pi3 (default $PROFILE)")
	flag.Parse()
	if *bin == "" || *dir == "" {
		fmt.Fprintln(os.Stderr, "coldstart: -bin and -dir are required")
		os.Exit(2)
	}
	prof, ok, err := piprofile.Lookup(*profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(2)
	}
	var pp *piprofile.Profile
	if ok {
		pp = &prof
	}
	if err := run(*bin, *dir, *events, *photos, *runs, pp); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run(bin, dir string, events, photos, runs int, prof *piprofile.Profile) error {
	ctx := context.Background()
	if _, err := os.Stat(filepath.Join(dir, store.DBFile)); err != nil {
		start := time.Now()
		if err := generate(ctx, bin, dir, events, photos); err != nil {
			return fmt.Errorf("making %s: %w", dir, err)
		}
		fmt.Printf("made %s: %d photos in %d events in %v\n", dir, photos, events, time.Since(start).Round(time.Second))
	}
	target := time.Second
	label := "this machine"
	if prof != nil {
		target, label = 3*time.Second, prof.String()
	}
	var times []time.Duration
	for i := range runs {
		d, err := startOnce(bin, dir, prof)
		if err != nil {
			return err
		}
		times = append(times, d)
		fmt.Printf("start %d: healthy after %v\n", i+1, d.Round(time.Millisecond))
	}
	slices.Sort(times)
	med := times[len(times)/2]
	fmt.Printf("median %v on %s (target ≤ %v)\n", med.Round(time.Millisecond), label, target)
	if med > target {
		return errors.New("over the target")
	}
	return nil
}

// startOnce starts the daemon, times it to its first healthy answer and
// stops it.
func startOnce(bin, dir string, prof *piprofile.Profile) (time.Duration, error) {
	addr, err := loadclient.FreeAddr()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(bin, "serve")
	if prof != nil {
		g, err := prof.NewGroup("coldstart")
		if err != nil {
			return 0, err
		}
		defer g.Close() // after the Wait below
		cmd = g.Command(bin, "serve")
	}
	cmd.Env = append(os.Environ(), "LISTEN_ADDR="+addr, "DATA_DIR="+dir, "MDNS_NAME=off", "LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	c := &http.Client{Timeout: time.Second}
	for time.Since(start) < time.Minute {
		res, err := c.Get("http://" + addr + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return time.Since(start), nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, errors.New("daemon not healthy within a minute")
}

// generate makes the owner and the events with the daemon, then the
// photos with the store, the daemon stopped.
func generate(ctx context.Context, bin, dir string, events, photos int) error {
	addr, err := loadclient.FreeAddr()
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "LISTEN_ADDR="+addr, "DATA_DIR="+dir, "ADMIN_PASSWORD="+password, "MDNS_NAME=off", "LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	url := "http://" + addr
	ids, err := func() ([]string, error) {
		defer func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		}()
		if _, err := startTimed(url); err != nil {
			return nil, err
		}
		jar, _ := cookiejar.New(nil)
		admin := &http.Client{Jar: jar, Timeout: time.Minute}
		if err := loadclient.Post(admin, url, "/api/admin/login", `{"password":"`+password+`"}`, nil); err != nil {
			return nil, err
		}
		var ids []string
		for i := range events {
			var created struct{ Event struct{ ID string } }
			if err := loadclient.Post(admin, url, "/api/admin/events", fmt.Sprintf(`{"name":"Party %d"}`, i+1), &created); err != nil {
				return nil, err
			}
			ids = append(ids, created.Event.ID)
		}
		return ids, nil
	}()
	if err != nil {
		return err
	}
	var tiny bytes.Buffer
	if err := jpeg.Encode(&tiny, image.NewGray(image.Rect(0, 0, 1, 1)), nil); err != nil {
		return err
	}
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range photos {
		p := store.Photo{ID: store.NewID(), EventID: ids[i%len(ids)], GuestName: "Import", Status: store.StatusVisible,
			Width: 1, Height: 1, Format: "jpeg", Size: int64(tiny.Len()), Variants: true}
		for _, name := range []string{p.OriginalName(), p.VariantName("thumb"), p.VariantName("display")} {
			if _, err := st.Media().Write(name, bytes.NewReader(tiny.Bytes())); err != nil {
				return fmt.Errorf("writing %s: %w", name, err)
			}
		}
		if _, err := st.Photos().Add(ctx, p, 0); err != nil {
			return err
		}
	}
	return nil
}

// startTimed waits for the first healthy answer.
func startTimed(url string) (time.Duration, error) {
	start := time.Now()
	for time.Since(start) < time.Minute {
		res, err := http.Get(url + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return time.Since(start), nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, errors.New("daemon not healthy within a minute")
}
