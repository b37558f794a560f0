package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Server-Sent Events plumbing shared by the booth stream and the live
// streams of the console and the wall.

// SSEKeepAlive is how often an idle stream gets an SSE comment, so that
// proxies and phones keep the connection open.
const SSEKeepAlive = 20 * time.Second

// SSEStart writes the headers of an event stream and a retry hint (the
// reconnection delay suggested to EventSource, ms), flushed.
func SSEStart(w http.ResponseWriter, retryMillis int) (*http.ResponseController, error) {
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream; charset=utf-8")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return rc, WriteFlush(w, rc, fmt.Appendf(nil, "retry: %d\n\n", retryMillis))
}

// SSEFrame returns one event: an optional id, the event name (a constant
// of ours, without line breaks) and v as JSON data.
func SSEFrame(id, name string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		// DTOs of strings, numbers and booleans always marshal.
		panic(fmt.Sprintf("marshalling %s event: %v", name, err))
	}
	b := make([]byte, 0, len(id)+len(name)+len(data)+24)
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// WriteFlush writes one event stream frame and flushes it to the client.
func WriteFlush(w http.ResponseWriter, rc *http.ResponseController, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing stream event: %w", err)
	}
	if err := rc.Flush(); err != nil {
		return fmt.Errorf("flushing stream event: %w", err)
	}
	return nil
}
