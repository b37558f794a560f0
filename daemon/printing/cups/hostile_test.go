package cups_test

import (
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"eventbox/daemon/printing/cups"
)

// ippHead is an IPP/2.0 answer's header with status and an operation
// group that opens.
func ippHead(status uint16) []byte {
	b := []byte{2, 0, byte(status >> 8), byte(status), 0, 0, 0, 1}
	return append(b, 0x01)
}

// attr encodes one attribute.
func attr(tag byte, name, value string) []byte {
	b := []byte{tag}
	b = binary.BigEndian.AppendUint16(b, uint16(len(name)))
	b = append(b, name...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(value)))
	return append(b, value...)
}

// TestClientRefusesWhatAServerShouldNotSay: a print server that answers
// an HTTP error, a message cut short, a value longer than it is, an IPP
// error or nothing at all gives the client an error, never a job or a
// hang.
func TestClientRefusesWhatAServerShouldNotSay(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		want   string
	}{
		{"an HTTP error", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusForbidden) }, "HTTP 403"},
		{"a header cut short", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte{2, 0, 0}) }, "header"},
		{"attributes cut short", func(w http.ResponseWriter, _ *http.Request) {
			w.Write(append(ippHead(0), attr(0x21, "job-id", "\x00\x00")[:5]...))
		}, "cut short"},
		{"a value longer than the message", func(w http.ResponseWriter, _ *http.Request) {
			b := append(ippHead(0), 0x42, 0, 8)
			b = append(b, "job-name"...)
			w.Write(append(b, 0xff, 0xff, 'x'))
		}, "cut short"},
		{"an attribute before any group", func(w http.ResponseWriter, _ *http.Request) {
			w.Write(append([]byte{2, 0, 0, 0, 0, 0, 0, 1}, attr(0x21, "job-id", "\x00\x00\x00\x07")...))
		}, "outside any group"},
		{"an IPP error", func(w http.ResponseWriter, _ *http.Request) {
			b := append(ippHead(0x0400), attr(0x41, "status-message", "Bad request")...)
			w.Write(append(b, 0x03))
		}, "Bad request"},
		{"a success without a job id", func(w http.ResponseWriter, _ *http.Request) { w.Write(append(ippHead(0), 0x03)) }, "no job id"},
		{"a server that never answers", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
		}, "deadline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tc.answer(w, r) }))
			t.Cleanup(srv.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			c := cups.New(strings.TrimPrefix(srv.URL, "http://"))
			id, err := c.Print(ctx, cups.PrintRequest{Printer: "p", Title: "t", Document: strings.NewReader("%PDF-1.4")})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Print = %d, %v; want an error with %q", id, err, tc.want)
			}
		})
	}
}
