package stallnet

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestAStalledConnectionFailsAndAMovingOneLasts reads through net.Pipe in
// a synctest bubble: a peer that sends a byte every 40 ms keeps a
// connection of a 100 ms stall alive for a second; a silent one ends it
// after 100 ms.
func TestAStalledConnectionFailsAndAMovingOneLasts(t *testing.T) {
	cases := map[string]struct {
		every   time.Duration
		wantErr bool
	}{
		"moving":  {40 * time.Millisecond, false},
		"stalled": {0, true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, b := net.Pipe()
				defer a.Close()
				defer b.Close()
				go func() {
					if c.every == 0 {
						return
					}
					for range 25 {
						time.Sleep(c.every)
						if _, err := b.Write([]byte("x")); err != nil {
							return
						}
					}
					b.Close()
				}()
				start := time.Now()
				_, err := io.ReadAll(Conn(a, 100*time.Millisecond))
				var ne net.Error
				timedOut := errors.As(err, &ne) && ne.Timeout()
				if timedOut != c.wantErr {
					t.Fatalf("after %v: %v", time.Since(start), err)
				}
				if c.wantErr && time.Since(start) != 100*time.Millisecond {
					t.Errorf("a silent peer ended the connection after %v, want 100ms", time.Since(start))
				}
			})
		})
	}
}

// TestCancelOnCloseEndsTheContext closes a body and finds its context
// ended.
func TestCancelOnCloseEndsTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	body := CancelOnClose(io.NopCloser(strings.NewReader("x")), cancel)
	if ctx.Err() != nil {
		t.Fatal("ended before the close")
	}
	if err := body.Close(); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil {
		t.Error("the context goes on after the body was closed")
	}
}

// TestWordsSayANetworkFailurePlainly names the failures the hosts can act
// on and leaves any other to its client.
func TestWordsSayANetworkFailurePlainly(t *testing.T) {
	cases := map[string]struct {
		err  error
		want string
	}{
		"no such name": {&net.DNSError{Err: "no such host", Name: "nas.home"}, "no such server, or no network: lookup nas.home: no such host"},
		"timeout":      {context.DeadlineExceeded, "the server did not answer in time"},
		"refused":      {&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, "cannot reach the server: connection refused"},
		"other":        {errors.New("404 Not Found"), ""},
	}
	for name, c := range cases {
		if got := Words(c.err); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}
