package scenarios_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/crypto/bcrypt"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"eventbox/booth"
	"eventbox/daemon"
	"eventbox/daemon/daemontest"
	"eventbox/store"
)

// sseEvent is one Server-Sent Event of a booth stream.
type sseEvent struct {
	Name string
	Data map[string]any
}

// sseStream is an open booth stream, read in the background.
type sseStream struct {
	Status int
	events chan sseEvent
}

// stream opens the booth stream of the event as this client. The stream
// is closed when the test ends.
func (c *client) stream(slug string) *sseStream {
	t := c.h.t
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", c.h.srv.URL+"/api/e/"+slug+"/booth/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	// No client timeout: the stream lasts; the context ends it.
	res, err := (&http.Client{Jar: c.hc.Jar, Transport: c.hc.Transport}).Do(req)
	if err != nil {
		cancel()
		t.Fatalf("opening booth stream: %v", err)
	}
	s := &sseStream{Status: res.StatusCode, events: make(chan sseEvent, 64)}
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-done
	})
	if res.StatusCode != http.StatusOK {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		close(s.events)
		close(done)
		return s
	}
	go func() {
		defer close(done)
		defer close(s.events)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.Name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.Data); err != nil {
					t.Errorf("booth event data is not JSON: %q", line)
				}
			case line == "" && ev.Name != "":
				s.events <- ev
				ev = sseEvent{}
			}
		}
	}()
	return s
}

// next returns the next event, or false when the stream ended; it fails
// the test after the timeout.
func (s *sseStream) next(t *testing.T, timeout time.Duration) (sseEvent, bool) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		return ev, ok
	case <-time.After(timeout):
		t.Fatalf("no booth event within %v", timeout)
		return sseEvent{}, false
	}
}

// expect reads the next event and checks its name and, for a status, its
// state.
func (s *sseStream) expect(t *testing.T, name, state string) sseEvent {
	t.Helper()
	ev, ok := s.next(t, 5*time.Second)
	if !ok {
		t.Fatalf("stream ended, want %s %s", name, state)
	}
	if ev.Name != name || (state != "" && ev.Data["state"] != state) || ev.Data["type"] != name {
		t.Fatalf("got %s %v, want %s %s", ev.Name, ev.Data, name, state)
	}
	return ev
}

// quiet checks that no event arrives for d.
func (s *sseStream) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if ok {
			t.Fatalf("unexpected booth event %s %v", ev.Name, ev.Data)
		}
	case <-time.After(d):
	}
}

// ended waits for the server to end the stream.
func (s *sseStream) ended(t *testing.T) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-s.events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the booth stream did not end within 5 s")
		}
	}
}

// boothOn turns the event's booth on and returns the answer.
func boothOn(t *testing.T, c *client, eventID string, body map[string]any) map[string]any {
	t.Helper()
	return c.do("POST", "/api/admin/events/"+eventID+"/booth", body).expect(t, 200, "").JSON
}

// boothDevice sets a new browser up as the event's booth with the key.
func boothDevice(t *testing.T, h *harness, slug, key string) *client {
	t.Helper()
	d := h.client()
	d.do("POST", "/api/e/"+slug+"/booth", map[string]any{"key": key}).expect(t, 200, "")
	return d
}

func TestBoothKey(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Party", "maxPhotosPerGuest": 1})
	id, slug := ev["id"].(string), ev["slug"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
	org := h.organizer("olga", id)

	t.Run("keys the hosts choose are checked", func(t *testing.T) {
		for name, key := range map[string]string{
			"15 characters":    strings.Repeat("k", 15),
			"129 characters":   strings.Repeat("k", 129),
			"a space":          "booth key with spaces",
			"a control letter": "booth-key-\x01-of-length",
		} {
			r := owner.do("POST", "/api/admin/events/"+id+"/booth", map[string]any{"boothKey": key}).expect(t, 400, "bad_request")
			if _, ok := r.details()["boothKey"]; !ok {
				t.Errorf("%s: details %v", name, r.details())
			}
		}
		owner.do("POST", "/api/admin/events/"+id+"/booth", map[string]any{"boothKey": 12}).expect(t, 400, "bad_request")
	})
	t.Run("an organizer cannot reach another event's booth", func(t *testing.T) {
		org.do("POST", "/api/admin/events/"+other+"/booth", map[string]any{}).expect(t, 404, "not_found")
		org.do("DELETE", "/api/admin/events/"+other+"/booth", nil).expect(t, 404, "not_found")
	})
	t.Run("a device cannot join a booth that is off", func(t *testing.T) {
		h.client().do("POST", "/api/e/"+slug+"/booth", map[string]any{"key": strings.Repeat("k", 20)}).expect(t, 403, "forbidden")
	})

	on := boothOn(t, org, id, map[string]any{})
	key1 := on["boothKey"].(string)
	t.Run("the box makes a key and a link that carries it", func(t *testing.T) {
		if len(key1) < 16 {
			t.Errorf("key %q is short", key1)
		}
		if want := h.srv.URL + "/e/" + slug + "?booth=" + url.QueryEscape(key1); on["url"] != want {
			t.Errorf("url %v, want %s", on["url"], want)
		}
		if on["event"].(map[string]any)["boothEnabled"] != true {
			t.Error("boothEnabled is not true")
		}
		if strings.Contains(string(owner.do("GET", "/api/admin/events/"+id, nil).Body), key1) {
			t.Error("the event answer carries the key")
		}
	})
	dev := boothDevice(t, h, slug, key1)
	t.Run("the device is the event's booth", func(t *testing.T) {
		g := dev.do("GET", "/api/e/"+slug, nil).JSON["guest"].(map[string]any)
		if g["joined"] != true || g["booth"] != true {
			t.Errorf("guest %v", g)
		}
		dev.do("POST", "/api/e/"+slug+"/booth", map[string]any{"key": key1}).expect(t, 200, "")
	})
	t.Run("the booth uploads as Photo booth without the quota", func(t *testing.T) {
		for i := range 3 {
			r := dev.upload(slug, photoJPEG(t, 40, 30, 0, false, 10+i), nil, "").expect(t, 201, "")
			if n := r.JSON["photo"].(map[string]any)["guestName"]; n != "Photo booth" {
				t.Errorf("guestName %v", n)
			}
		}
	})
	t.Run("a wrong key is refused", func(t *testing.T) {
		h.client().do("POST", "/api/e/"+slug+"/booth", map[string]any{"key": key1 + "x"}).expect(t, 403, "forbidden")
		h.client().do("POST", "/api/e/"+slug+"/booth", map[string]any{}).expect(t, 403, "forbidden")
	})
	t.Run("only the booth device may open the stream", func(t *testing.T) {
		if s := h.client().stream(slug); s.Status != 403 {
			t.Errorf("a browser that never joined got %d", s.Status)
		}
		if s := h.guest(slug).stream(slug); s.Status != 403 {
			t.Errorf("a guest got %d", s.Status)
		}
	})

	stream := dev.stream(slug)
	stream.expect(t, "status", "ready")
	chosen := "our-own-booth-key-2026"
	replaced := boothOn(t, owner, id, map[string]any{"boothKey": chosen})
	t.Run("a key the hosts choose is used as given", func(t *testing.T) {
		if replaced["boothKey"] != chosen || !strings.HasSuffix(replaced["url"].(string), "?booth="+chosen) {
			t.Errorf("answer %v", replaced)
		}
	})
	t.Run("a replaced key ends the old device's stream", func(t *testing.T) {
		stream.ended(t)
	})
	t.Run("a replaced key is refused everywhere", func(t *testing.T) {
		dev.upload(slug, photoJPEG(t, 40, 30, 0, false, 20), nil, "").expect(t, 403, "forbidden")
		if s := dev.stream(slug); s.Status != 403 {
			t.Errorf("the old device's stream got %d", s.Status)
		}
		dev.do("POST", "/api/e/"+slug+"/booth", map[string]any{"key": key1}).expect(t, 403, "forbidden")
	})
	dev2 := boothDevice(t, h, slug, chosen)
	t.Run("the new key works", func(t *testing.T) {
		dev2.upload(slug, photoJPEG(t, 40, 30, 0, false, 21), nil, "").expect(t, 201, "")
	})
	t.Run("with uploads closed the booth is refused like any guest", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"uploadsOpen": false}).expect(t, 200, "")
		dev2.upload(slug, photoJPEG(t, 40, 30, 0, false, 22), nil, "").expect(t, 403, "uploads_closed")
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"uploadsOpen": true}).expect(t, 200, "")
	})
	t.Run("turning the booth off refuses its device", func(t *testing.T) {
		s := dev2.stream(slug)
		s.expect(t, "status", "ready")
		owner.do("DELETE", "/api/admin/events/"+id+"/booth", nil).expect(t, 200, "")
		s.ended(t)
		dev2.upload(slug, photoJPEG(t, 40, 30, 0, false, 23), nil, "").expect(t, 403, "forbidden")
		dev2.do("POST", "/api/e/"+slug+"/booth", map[string]any{"key": chosen}).expect(t, 403, "forbidden")
		if e := owner.do("GET", "/api/admin/events/"+id, nil).JSON["event"].(map[string]any); e["boothEnabled"] != false {
			t.Errorf("boothEnabled %v", e["boothEnabled"])
		}
	})
}

// boothRig is the daemon with a booth on fake GPIO pins.
type boothRig struct {
	h      *harness
	button *gpiotest.Pin
	led    *gpiotest.Pin
}

func newBoothRig(t *testing.T) *boothRig {
	t.Helper()
	r := &boothRig{
		button: &gpiotest.Pin{N: "GPIO17", Num: 17, EdgesChan: make(chan gpio.Level, 64)},
		led:    &gpiotest.Pin{N: "GPIO27", Num: 27},
	}
	dev, err := booth.NewGPIO(r.button, r.led, booth.Config{})
	if err != nil {
		t.Fatalf("NewGPIO: %v", err)
	}
	r.h = newBubbleHarness(t, func(c *daemon.Config) {
		c.Booth = dev
		c.BoothCountdown = 300 * time.Millisecond
	})
	return r
}

// bounce moves the button to final with contact chatter first.
func (r *boothRig) bounce(final gpio.Level) {
	for range 4 {
		r.button.EdgesChan <- final
		time.Sleep(time.Millisecond)
		r.button.EdgesChan <- !final
		time.Sleep(time.Millisecond)
	}
	r.button.EdgesChan <- final
}

// waitLED waits until the LED pin reads l steadily (three reads over
// 300 ms, longer than a blink), or fails.
func (r *boothRig) waitLED(t *testing.T, l gpio.Level) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		steady := true
		for range 3 {
			if r.led.Read() != l {
				steady = false
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if steady {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the LED did not stay %v", l)
}

// TestBoothButton runs inside a testing/synctest bubble (the daemon over
// an in-memory network): the presses, the countdown, the LED's blinks and
// the quiet spells take fake time, not real time. A bubble cannot run
// subtests, so each step says its name in the log.
func TestBoothButton(t *testing.T) {
	synctest.Test(t, testBoothButton)
}

func testBoothButton(t *testing.T) {
	step := func(name string, f func(t *testing.T)) {
		t.Logf("step: %s", name)
		f(t)
	}
	rig := newBoothRig(t)
	h := rig.h
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Party"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	key := boothOn(t, owner, id, map[string]any{})["boothKey"].(string)
	dev := boothDevice(t, h, slug, key)

	step("the LED is off while no booth page is connected", func(t *testing.T) {
		rig.waitLED(t, gpio.Low)
	})
	step("a press with no booth page connected does nothing", func(t *testing.T) {
		rig.bounce(gpio.Low)
		time.Sleep(100 * time.Millisecond)
		rig.bounce(gpio.High)
		rig.waitLED(t, gpio.Low)
	})
	s := dev.stream(slug)
	step("a connected booth page is told ready and the LED lights", func(t *testing.T) {
		s.expect(t, "status", "ready")
		rig.waitLED(t, gpio.High)
	})
	step("a bouncing press gives one trigger, then countdown and busy", func(t *testing.T) {
		rig.bounce(gpio.Low)
		time.Sleep(100 * time.Millisecond)
		rig.bounce(gpio.High)
		trig := s.expect(t, "trigger", "")
		if _, ok := trig.Data["at"].(float64); !ok {
			t.Errorf("trigger without a time: %v", trig.Data)
		}
		s.expect(t, "status", "countdown")
		s.expect(t, "status", "busy")
		s.quiet(t, 500*time.Millisecond)
	})
	step("the booth's photo ends the busy light", func(t *testing.T) {
		dev.upload(slug, photoJPEG(t, 40, 30, 0, false, 1), nil, "").expect(t, 201, "")
		s.expect(t, "status", "ready")
		rig.waitLED(t, gpio.High)
	})
	step("a held button gives one trigger", func(t *testing.T) {
		rig.bounce(gpio.Low)
		s.expect(t, "trigger", "")
		s.expect(t, "status", "countdown")
		s.expect(t, "status", "busy")
		dev.upload(slug, photoJPEG(t, 40, 30, 0, false, 2), nil, "").expect(t, 201, "")
		s.expect(t, "status", "ready")
		s.quiet(t, time.Second)
		rig.bounce(gpio.High)
		s.quiet(t, 300*time.Millisecond)
	})
	step("a second booth page hears the next press too", func(t *testing.T) {
		dev2 := boothDevice(t, h, slug, key)
		s2 := dev2.stream(slug)
		s2.expect(t, "status", "ready")
		// A page that connects is told the current state; the event's
		// other pages hear it again.
		s.expect(t, "status", "ready")
		rig.bounce(gpio.Low)
		time.Sleep(100 * time.Millisecond)
		rig.bounce(gpio.High)
		for _, st := range []*sseStream{s, s2} {
			st.expect(t, "trigger", "")
			st.expect(t, "status", "countdown")
		}
	})
	step("the LED goes off when the pages leave", func(t *testing.T) {
		// Streams close when the test's cleanup runs; turning the booth
		// off ends them now.
		owner.do("DELETE", "/api/admin/events/"+id+"/booth", nil).expect(t, 200, "")
		s.ended(t)
		rig.waitLED(t, gpio.Low)
	})
}

func TestShutdownEndsBoothStreams(t *testing.T) {
	ctx := context.Background()
	clock := daemontest.NewFakeClock(time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC))
	cfg := daemon.DefaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.AdminPassword = ownerPassword
	cfg.PasswordCost = bcrypt.MinCost
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Now = clock.Now
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, cfg.DataDir, store.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	d, err := daemon.New(ctx, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() {
		_ = d.Run(runCtx)
		close(ran)
	}()
	srv := httptest.NewUnstartedServer(d.Handler())
	srv.Config.RegisterOnShutdown(d.EndStreams)
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		stop()
		<-ran
		st.Close()
	})
	h := wrap(t, &daemontest.Harness{T: t, Server: srv, Store: st, Clock: clock, Config: cfg})
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Party"})
	key := boothOn(t, owner, ev["id"].(string), map[string]any{})["boothKey"].(string)
	s := boothDevice(t, h, ev["slug"].(string), key).stream(ev["slug"].(string))
	s.expect(t, "status", "ready")

	shutCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Config.Shutdown(shutCtx); err != nil {
		t.Fatalf("shutdown waited for the booth stream: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("shutdown took %v", took)
	}
	s.ended(t)
}
