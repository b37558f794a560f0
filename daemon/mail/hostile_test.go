package mail_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	eventmail "eventbox/daemon/mail"
)

// hostileSMTP is a server that answers every connection with a greeting
// of endless "220-" continuation lines (or one endless line: go-smtp
// already refuses a line over 2000 bytes), up to flood bytes, then a final "220" line; over TLS when tlsCfg is set. It
// counts what it could write.
type hostileSMTP struct {
	addr    string
	written atomic.Int64
}

func startHostileSMTP(t *testing.T, tlsCfg *tls.Config, flood int64, oneLine bool) *hostileSMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	h := &hostileSMTP{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				w := bufio.NewWriterSize(c, 64<<10)
				line := []byte("220-" + strings.Repeat("x", 70) + "\r\n")
				if oneLine {
					line = []byte(strings.Repeat("2", 72))
					_, _ = w.WriteString("220 ")
				}
				for h.written.Load() < flood {
					n, err := w.Write(line)
					h.written.Add(int64(n))
					if err != nil {
						return
					}
				}
				_, _ = w.WriteString("\r\n220 ready\r\n")
				_ = w.Flush()
				_, _ = c.Read(make([]byte, 1024))
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return h
}

// TestEndlessGreetingEndsTheSession: whatever the security, a server that
// greets with more than MaxReplyBytes ends the session with a clear error,
// and the box stops reading soon after the cap.
func TestEndlessGreetingEndsTheSession(t *testing.T) {
	ts := httptest.NewUnstartedServer(nil)
	ts.StartTLS()
	defer ts.Close()
	serverTLS := &tls.Config{Certificates: ts.TLS.Certificates}
	const flood = 16 << 20
	for _, tc := range []struct {
		name     string
		security string
		tls      *tls.Config
		oneLine  bool
	}{
		{"plain, continuation lines", eventmail.SecurityNone, nil, false},
		{"STARTTLS, continuation lines before TLS", eventmail.SecurityStartTLS, nil, false},
		{"TLS, continuation lines", eventmail.SecurityTLS, serverTLS, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHostileSMTP(t, tc.tls, flood, tc.oneLine)
			host, port, _ := net.SplitHostPort(h.addr)
			p, _ := strconv.Atoi(port)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv := eventmail.Server{Host: host, Port: p, Security: tc.security,
				TLS: ts.Client().Transport.(*http.Transport).TLSClientConfig.Clone()}
			_, err := eventmail.Send(ctx, srv, "box@example.org", []string{"guest@example.org"}, []byte("Subject: x\r\n\r\nx\r\n"))
			var re *eventmail.ReplyError
			if !errors.As(err, &re) || !errors.Is(err, eventmail.ErrTooMuchReply) {
				t.Fatalf("send: %v, want a ReplyError for a reply over the cap", err)
			}
			if !strings.Contains(re.Reply, "more than 256 KiB") {
				t.Errorf("reply %q does not say what went wrong", re.Reply)
			}
			// What the server could push is the cap and the socket
			// buffers, not its whole flood.
			if n := h.written.Load(); n > 12<<20 {
				t.Errorf("the server wrote %d MiB before the box stopped reading", n>>20)
			}
		})
	}
}
