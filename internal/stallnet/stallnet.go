// Package stallnet is what the cloud clients (webdav, s3store) share of
// their outbound HTTP: a transport whose connections fail after a stall
// without progress, a response body that ends its request's context once
// it is closed, and a network failure said in the hosts' words. An upload has no overall deadline (a video over a
// slow uplink takes long), so the stall is what ends one that hangs.
package stallnet

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// Transport is http.DefaultTransport's settings over connections that
// fail after stall without progress, and an answer's headers awaited for
// stall at most.
func Transport(stall time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return Conn(c, stall), nil
	}
	t.ResponseHeaderTimeout = stall
	return t
}

// Conn is c with its deadline moved stall forward before each read and
// write.
func Conn(c net.Conn, stall time.Duration) net.Conn { return stallConn{c, stall} }

type stallConn struct {
	net.Conn
	stall time.Duration
}

func (c stallConn) Read(p []byte) (int, error) {
	_ = c.SetReadDeadline(time.Now().Add(c.stall))
	return c.Conn.Read(p)
}

func (c stallConn) Write(p []byte) (int, error) {
	_ = c.SetWriteDeadline(time.Now().Add(c.stall))
	return c.Conn.Write(p)
}

// CancelOnClose is body, which calls cancel (its request's context's)
// once it is closed.
func CancelOnClose(body io.ReadCloser, cancel context.CancelFunc) io.ReadCloser {
	return &cancelBody{ReadCloser: body, cancel: cancel}
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// Words says a transport failure plainly for the hosts (a certificate, a
// name, a timeout, a refused connection), and answers "" for any other
// error, which its client says in its own words.
func Words(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var cert *tls.CertificateVerificationError
	switch {
	case errors.As(err, &cert):
		return "the server's certificate is not valid: " + cert.Err.Error()
	case errors.As(err, &dnsErr):
		return "no such server, or no network: " + dnsErr.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "the server did not answer in time"
	case errors.As(err, &opErr):
		return "cannot reach the server: " + opErr.Err.Error()
	}
	return ""
}
