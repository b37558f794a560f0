package boothapi

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/booth"
)

var boothAt = time.Date(2025, 6, 14, 15, 30, 0, 0, time.UTC)

func TestBoothSSEFrame(t *testing.T) {
	tests := []struct {
		name string
		msg  booth.Message
		want string
	}{
		{
			name: "a trigger is an event named trigger with the press time in epoch ms",
			msg:  booth.TriggerMessage(booth.Press{At: boothAt}),
			want: "event: trigger\ndata: {\"type\":\"trigger\",\"at\":1749915000000}\n\n",
		},
		{
			name: "a status carries the LED state's name",
			msg:  booth.StatusMessage(booth.Countdown, boothAt.Add(1500*time.Millisecond)),
			want: "event: status\ndata: {\"type\":\"status\",\"at\":1749915001500,\"state\":\"countdown\"}\n\n",
		},
		{
			name: "a type with a line break cannot split the frame",
			msg:  booth.Message{Type: "x\nevent: y", At: boothAt},
			want: "event: message\ndata: {\"type\":\"x\\nevent: y\",\"at\":1749915000000}\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(boothSSEFrame(tt.msg)); got != tt.want {
				t.Errorf("boothSSEFrame() = %q, want %q", got, tt.want)
			}
		})
	}
}

// pipeWriter is the booth page's end of an SSE response, in memory: what
// the stream writes arrives on the pipe, so the test can run in a synctest
// bubble (a real socket is not a wait the bubble's clock can see).
// onHeader, when set, runs as the status line is written: the first write.
type pipeWriter struct {
	header   http.Header
	status   int
	w        *io.PipeWriter
	onHeader func()
}

func (w *pipeWriter) Header() http.Header { return w.header }
func (w *pipeWriter) WriteHeader(status int) {
	if w.onHeader != nil {
		w.onHeader()
		w.onHeader = nil
	}
	w.status = status
}
func (w *pipeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.w.Write(b)
}
func (w *pipeWriter) Flush() {}

// TestBoothStreamSubscribesBeforeItWrites: a message published after the
// stream subscribed but before it wrote anything (here: as it writes the
// status line) reaches the page. A stream that wrote its headers first and
// subscribed afterwards lost such a press.
func TestBoothStreamSubscribesBeforeItWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewRelay(RelayConfig{Logger: slog.New(slog.DiscardHandler)})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api/e/x/booth/events", nil)
		body, pw := io.Pipe()
		defer body.Close()
		w := &pipeWriter{header: http.Header{}, w: pw, onHeader: func() {
			b.hub.Broadcast(booth.TriggerMessage(booth.Press{At: boothAt}))
		}}
		served := make(chan error, 1)
		go func() {
			err := b.Serve(w, req, "ev1")
			pw.Close()
			served <- err
		}()

		sc := bufio.NewScanner(body)
		if !sc.Scan() || !strings.HasPrefix(sc.Text(), "retry: ") {
			t.Fatalf("first line %q, want the retry hint (%v)", sc.Text(), sc.Err())
		}
		if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") || w.status != http.StatusOK {
			t.Fatalf("status %d, Content-Type = %q", w.status, ct)
		}
		// Read until the trigger; the first keep-alive (20 s of the
		// bubble's clock) means it was lost.
		var events []string
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, ":") {
				t.Fatalf("keep-alive before the trigger; events so far %v", events)
			}
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				events = append(events, name)
				if name == booth.TypeTrigger {
					break
				}
			}
		}
		if len(events) == 0 || events[len(events)-1] != booth.TypeTrigger {
			t.Fatalf("stream ended without the trigger; events %v", events)
		}

		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve = %v after the page left", err)
		}
		if n := b.hub.Subscribers("ev1"); n != 0 {
			t.Errorf("%d subscribers after the page left", n)
		}
	})
}
