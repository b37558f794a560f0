package boothapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"eventbox/booth"
	"eventbox/daemon/dto"
	"eventbox/daemon/web"
)

// Booth stream timings.
const (
	// boothRetryMillis is the reconnection delay suggested to EventSource.
	boothRetryMillis = 2000
)

// boothSSEFrame returns m as one Server-Sent Events frame:
//
//	event: trigger
//	data: {"type":"trigger","at":1718000000000}
//
// followed by a blank line.
func boothSSEFrame(m booth.Message) []byte {
	data, err := json.Marshal(dto.BoothMessage{Type: m.Type, At: m.At.UnixMilli(), State: m.State})
	if err != nil {
		// Strings and an integer always marshal.
		panic(fmt.Sprintf("marshalling booth message: %v", err))
	}
	// An event name with a line break would split the frame; Type is one
	// of booth's constants, but keep the frame well-formed regardless.
	name := m.Type
	if strings.ContainsAny(name, "\r\n") {
		name = "message"
	}
	b := make([]byte, 0, len(name)+len(data)+16)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// streamBooth writes msgs to w as Server-Sent Events until ctx ends or
// msgs is closed, and returns nil then. The caller has subscribed msgs
// before calling it, so that nothing published while the headers go out
// is lost. It writes the SSE headers and a retry hint first, then one
// frame per message and an SSE comment every web.SSEKeepAlive while idle,
// flushing after each write. It returns an error when w cannot flush (it
// is not a streaming writer) or a write fails.
func streamBooth(ctx context.Context, w http.ResponseWriter, msgs <-chan booth.Message) error {
	rc, err := web.SSEStart(w, boothRetryMillis)
	if err != nil {
		return err
	}
	t := time.NewTicker(web.SSEKeepAlive)
	defer t.Stop()
	for {
		var frame []byte
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-msgs:
			if !ok {
				return nil
			}
			frame = boothSSEFrame(m)
		case <-t.C:
			frame = []byte(": keep-alive\n\n")
		}
		if err := web.WriteFlush(w, rc, frame); err != nil {
			return err
		}
	}
}
