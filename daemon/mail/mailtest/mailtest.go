// Package mailtest runs a real SMTP server (github.com/emersion/go-smtp)
// inside a test: plain, STARTTLS or implicit TLS on a certificate made for
// the test, with sign-in, that records every message it accepts and can
// be taken down and brought back.
package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/mail"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Credentials the server accepts.
const (
	Username = "box"
	Password = "sm7p-pässword"
)

// Security modes, as in the mail settings.
const (
	None     = "none"
	StartTLS = "starttls"
	TLS      = "tls"
)

// Received is a message the server accepted.
type Received struct {
	From string
	To   []string
	Data []byte
}

// Message parses the message.
func (r Received) Message(t testing.TB) *mail.Message {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(r.Data))
	if err != nil {
		t.Fatalf("parsing a received message: %v", err)
	}
	return m
}

// MessageID is the message's Message-ID header.
func (r Received) MessageID() string {
	m, err := mail.ReadMessage(bytes.NewReader(r.Data))
	if err != nil {
		return ""
	}
	return m.Header.Get("Message-ID")
}

// Server is a running SMTP server.
type Server struct {
	// Host and Port are where it listens; Security is how.
	Host     string
	Port     int
	Security string
	// ClientTLS trusts the server's certificate.
	ClientTLS *tls.Config

	srv *smtp.Server
	ln  net.Listener

	mu       sync.Mutex
	received []Received
	down     int // sessions still to refuse
	offline  bool
	rejectTo map[string]int
	arrived  chan struct{}
}

// Start runs a server with the given security until the test ends. Sign-in
// is offered (and, over TLS, required by nothing: a client without a
// username is served too).
func Start(t testing.TB, security string) *Server {
	t.Helper()
	cert, pool := certificate(t)
	s := &Server{Host: "127.0.0.1", Security: security, ClientTLS: &tls.Config{RootCAs: pool},
		rejectTo: map[string]int{}, arrived: make(chan struct{}, 1000)}
	s.srv = smtp.NewServer(smtp.BackendFunc(s.newSession))
	s.srv.Domain = "mail.test"
	s.srv.AllowInsecureAuth = true
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	s.srv.ErrorLog = discard{}
	tlsCfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	var err error
	s.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening: %v", err)
	}
	switch security {
	case StartTLS:
		s.srv.TLSConfig = tlsCfg
	case TLS:
		s.ln = tls.NewListener(s.ln, tlsCfg)
	}
	s.Port = s.ln.Addr().(*net.TCPAddr).Port
	go s.srv.Serve(offlineListener{Listener: s.ln, s: s})
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// FailNext makes the next n sessions answer 421 (busy, try later) at once.
func (s *Server) FailNext(n int) {
	s.mu.Lock()
	s.down = n
	s.mu.Unlock()
}

// SetOffline drops every connection at once while on, as a server that
// cannot be reached.
func (s *Server) SetOffline(on bool) {
	s.mu.Lock()
	s.offline = on
	s.mu.Unlock()
}

// Reject makes RCPT TO addr answer code (a 5xx refuses it for good).
func (s *Server) Reject(addr string, code int) {
	s.mu.Lock()
	s.rejectTo[addr] = code
	s.mu.Unlock()
}

// Received answers the messages accepted so far.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// Wait waits until n messages have arrived in all, or fails the test
// after timeout.
func (s *Server) Wait(t testing.TB, n int, timeout time.Duration) []Received {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if got := s.Received(); len(got) >= n {
			return got
		}
		select {
		case <-s.arrived:
		case <-deadline:
			t.Fatalf("waiting for %d messages: %d arrived", n, len(s.Received()))
		}
	}
}

type offlineListener struct {
	net.Listener
	s *Server
}

func (l offlineListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.s.mu.Lock()
		off := l.s.offline
		l.s.mu.Unlock()
		if !off {
			return c, nil
		}
		c.Close()
	}
}

func (s *Server) newSession(*smtp.Conn) (smtp.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down > 0 {
		s.down--
		return nil, &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Try again later"}
	}
	return &session{s: s}, nil
}

type session struct {
	s    *Server
	from string
	to   []string
}

var _ smtp.AuthSession = (*session)(nil)

func (ss *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != Username || pass != Password {
			return smtp.ErrAuthFailed
		}
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error { ss.from = from; return nil }

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.s.mu.Lock()
	code := ss.s.rejectTo[to]
	ss.s.mu.Unlock()
	if code != 0 {
		return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 1, 1}, Message: "No such user here"}
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.s.mu.Lock()
	ss.s.received = append(ss.s.received, Received{From: ss.from, To: ss.to, Data: b})
	ss.s.mu.Unlock()
	select {
	case ss.s.arrived <- struct{}{}:
	default:
	}
	return nil
}

func (ss *session) Reset()        { ss.from, ss.to = "", nil }
func (ss *session) Logout() error { return nil }

type discard struct{}

func (discard) Printf(string, ...any) {}
func (discard) Println(...any)        {}

// certificate makes a self-signed certificate for 127.0.0.1 and the pool
// that trusts it.
func certificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mail.test"},
		// Wide enough for the fake clock of testing/synctest (2000).
		NotBefore: time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
