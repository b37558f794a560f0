package webdav

import (
	"bytes"
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

func TestServerMessage(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"Sabre (Nextcloud) explains in s:message",
			`<?xml version="1.0" encoding="utf-8"?><d:error xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns"><s:exception>Sabre\DAV\Exception\NotAuthenticated</s:exception><s:message>No public access to this resource., Username or password was incorrect</s:message></d:error>`,
			"No public access to this resource., Username or password was incorrect"},
		{"plain text gives its first line", "Forbidden by quota\nmore", "Forbidden by quota"},
		{"an HTML page says nothing more than its status", "<html><body><h1>502</h1></body></html>", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := serverMessage([]byte(tt.body)); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A server that takes the connection but never reads the upload nor
// answers is cut after the stall timeout, not waited for for ever.
func TestUploadToAStalledServerIsCut(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never read
		}
	}()
	r, err := New(context.Background(), Settings{URL: "http://" + ln.Addr().String() + "/"}, Config{Stall: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte{1}, 64<<20) // more than the socket buffers take
	start := time.Now()
	_, err = r.Put("", "big.jpg", bytes.NewReader(body), int64(len(body)))
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 0 {
		t.Fatalf("got %v, want a network error", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("cut after %v", d)
	}
}
