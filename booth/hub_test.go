package booth_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"periph.io/x/conn/v3/gpio"

	"eventbox/booth"
)

var at = time.Date(2025, 6, 14, 15, 30, 0, 0, time.UTC)

func TestMessageSSE(t *testing.T) {
	tests := []struct {
		name string
		msg  booth.Message
		want string
	}{
		{
			name: "a trigger is an event named trigger with the press time in epoch ms",
			msg:  booth.TriggerMessage(booth.Press{At: at}),
			want: "event: trigger\ndata: {\"type\":\"trigger\",\"at\":1749915000000}\n\n",
		},
		{
			name: "a status carries the LED state's name",
			msg:  booth.StatusMessage(booth.Countdown, at.Add(1500*time.Millisecond)),
			want: "event: status\ndata: {\"type\":\"status\",\"at\":1749915001500,\"state\":\"countdown\"}\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.msg.SSE()); got != tt.want {
				t.Errorf("SSE() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStateString(t *testing.T) {
	for s, want := range map[booth.State]string{booth.Off: "off", booth.Ready: "ready", booth.Countdown: "countdown", booth.Busy: "busy"} {
		if got := s.String(); got != want {
			t.Errorf("State(%d).String() = %q, want %q", s, got, want)
		}
	}
}

// recv waits up to a second for a message.
func recv(t *testing.T, ch <-chan booth.Message) (booth.Message, bool) {
	t.Helper()
	select {
	case m, ok := <-ch:
		return m, ok
	case <-time.After(time.Second):
		t.Fatal("no message within 1s")
		return booth.Message{}, false
	}
}

func TestHub(t *testing.T) {
	t.Run("a message reaches the event's subscribers and no other event's", func(t *testing.T) {
		h := booth.NewHub()
		a1, c1 := h.Subscribe("ev-a")
		defer c1()
		a2, c2 := h.Subscribe("ev-a")
		defer c2()
		b, c3 := h.Subscribe("ev-b")
		defer c3()
		if n := h.Publish("ev-a", booth.TriggerMessage(booth.Press{At: at})); n != 2 {
			t.Errorf("Publish delivered to %d subscribers, want 2", n)
		}
		for _, ch := range []<-chan booth.Message{a1, a2} {
			if m, _ := recv(t, ch); m.Type != booth.TypeTrigger || !m.At.Equal(at) {
				t.Errorf("got %+v, want the trigger", m)
			}
		}
		select {
		case m := <-b:
			t.Errorf("the other event's subscriber got %+v", m)
		default:
		}
	})
	t.Run("broadcast reaches every event's subscribers", func(t *testing.T) {
		h := booth.NewHub()
		a, c1 := h.Subscribe("ev-a")
		defer c1()
		b, c2 := h.Subscribe("ev-b")
		defer c2()
		if n := h.Broadcast(booth.TriggerMessage(booth.Press{At: at})); n != 2 {
			t.Errorf("Broadcast delivered to %d subscribers, want 2", n)
		}
		recv(t, a)
		recv(t, b)
	})
	t.Run("a slow subscriber drops messages instead of blocking the publisher", func(t *testing.T) {
		h := booth.NewHub()
		ch, cancel := h.Subscribe("ev")
		defer cancel()
		done := make(chan int)
		go func() {
			n := 0
			for i := range booth.SubscriberBuffer + 10 {
				n += h.Publish("ev", booth.StatusMessage(booth.Busy, at.Add(time.Duration(i)*time.Millisecond)))
			}
			done <- n
		}()
		select {
		case n := <-done:
			if n != booth.SubscriberBuffer {
				t.Errorf("delivered %d, want the buffer's %d", n, booth.SubscriberBuffer)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("Publish blocked on a full subscriber")
		}
		if m, _ := recv(t, ch); !m.At.Equal(at) {
			t.Errorf("first kept message at %v, want the oldest %v", m.At, at)
		}
	})
	t.Run("cancel closes the channel, unsubscribes, and may be called twice", func(t *testing.T) {
		h := booth.NewHub()
		ch, cancel := h.Subscribe("ev")
		if h.Subscribers("ev") != 1 {
			t.Fatalf("Subscribers = %d, want 1", h.Subscribers("ev"))
		}
		cancel()
		cancel()
		if _, ok := recv(t, ch); ok {
			t.Error("channel still open after cancel")
		}
		if n := h.Publish("ev", booth.TriggerMessage(booth.Press{At: at})); n != 0 {
			t.Errorf("Publish after cancel delivered to %d", n)
		}
		if h.Subscribers("ev") != 0 {
			t.Errorf("Subscribers = %d after cancel, want 0", h.Subscribers("ev"))
		}
	})
	t.Run("concurrent subscribe, publish and cancel are race-free", func(t *testing.T) {
		h := booth.NewHub()
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				ev := fmt.Sprintf("ev-%d", i%2)
				for range 200 {
					ch, cancel := h.Subscribe(ev)
					h.Publish(ev, booth.TriggerMessage(booth.Press{At: at}))
					h.Broadcast(booth.StatusMessage(booth.Ready, at))
					select {
					case <-ch:
					default:
					}
					go cancel()
					cancel()
				}
			})
		}
		wg.Wait()
		if n := h.Subscribers("ev-0") + h.Subscribers("ev-1"); n != 0 {
			t.Errorf("%d subscribers left", n)
		}
	})
}

// sseClient reads frames from an SSE response body.
type sseClient struct {
	sc *bufio.Scanner
}

// next returns the next frame's event name and data, skipping comments and
// the retry hint.
func (c *sseClient) next() (event, data string, err error) {
	for c.sc.Scan() {
		line := c.sc.Text()
		switch {
		case line == "":
			if event != "" || data != "" {
				return event, data, nil
			}
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		}
	}
	if err := c.sc.Err(); err != nil {
		return "", "", err
	}
	return "", "", fmt.Errorf("stream ended")
}

// streamWriter is the booth client's end of an SSE response, in memory: what
// Serve writes and flushes arrives on the pipe, so the test can run in a
// synctest bubble (a real socket is not a wait the bubble's clock can see).
type streamWriter struct {
	header http.Header
	status int
	w      *io.PipeWriter
}

func (w *streamWriter) Header() http.Header         { return w.header }
func (w *streamWriter) WriteHeader(status int)      { w.status = status }
func (w *streamWriter) Write(b []byte) (int, error) { return w.w.Write(b) }
func (w *streamWriter) Flush()                      {}

func TestServeDeliversAPressToAConnectedBoothClient(t *testing.T) {
	synctest.Test(t, testServeDeliversAPress)
}

func testServeDeliversAPress(t *testing.T) {
	r := newRig(t, true)
	hub := booth.NewHub()

	// What the daemon does: relay each press to the event's booth pages.
	go func() {
		for p := range r.dev.Presses() {
			hub.Publish("ev1", booth.TriggerMessage(p))
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/booth/events", nil)
	body, pw := io.Pipe()
	defer body.Close()
	w := &streamWriter{header: http.Header{}, w: pw}
	served := make(chan error, 1)
	go func() {
		err := hub.Serve(w, req, "ev1")
		pw.Close()
		served <- err
	}()

	// The retry hint is written and flushed before Serve subscribes; once
	// it has been read and everything waits, the subscription is there, so
	// the press below cannot be missed.
	sc := bufio.NewScanner(body)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "retry: ") {
		t.Fatalf("first line %q, want the retry hint (%v)", sc.Text(), sc.Err())
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") || w.status != http.StatusOK {
		t.Fatalf("status %d, Content-Type = %q", w.status, ct)
	}
	synctest.Wait()
	if n := hub.Subscribers("ev1"); n != 1 {
		t.Fatalf("%d subscribers once the stream has started, want 1", n)
	}
	start := time.Now()
	r.bounce(gpio.Low)

	client := &sseClient{sc: sc}
	event, data, err := client.next()
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	if event != "trigger" {
		t.Errorf("event = %q, want trigger", event)
	}
	var got struct {
		Type string `json:"type"`
		At   int64  `json:"at"`
	}
	if err := json.Unmarshal([]byte(data), &got); err != nil {
		t.Fatalf("data %q: %v", data, err)
	}
	if got.Type != "trigger" || got.At < start.UnixMilli() || got.At > time.Now().UnixMilli() {
		t.Errorf("data = %+v, want a trigger between %d and now", got, start.UnixMilli())
	}

	// The client goes away: Serve returns nil and unsubscribes.
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v after the client left", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the client left")
	}
	if n := hub.Subscribers("ev1"); n != 0 {
		t.Errorf("%d subscribers after the client left", n)
	}
}
