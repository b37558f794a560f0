package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Security modes of the SMTP connection.
const (
	SecurityNone     = "none"
	SecurityStartTLS = "starttls"
	SecurityTLS      = "tls"
)

// DefaultPort is the usual port of each security mode.
func DefaultPort(security string) int {
	switch security {
	case SecurityTLS:
		return 465
	case SecurityStartTLS:
		return 587
	default:
		return 25
	}
}

// Server is where and how to send: the SMTP settings with the password
// opened.
type Server struct {
	Host     string
	Port     int
	Username string
	Password string
	Security string
	// TLS is the base TLS configuration; nil means the system's roots.
	// ServerName is set to Host.
	TLS *tls.Config
}

// dialTimeout bounds the TCP connection and the TLS handshake.
const dialTimeout = 30 * time.Second

// ReplyError is an SMTP server's refusal, or a failure to reach it.
type ReplyError struct {
	// Code is the SMTP reply code; 0 when no reply came (no route, TLS,
	// timeout).
	Code int
	// Reply is the server's answer ("550 5.1.1 no such user") or what
	// went wrong.
	Reply string
	// Message reports that the refusal concerns this message (MAIL FROM,
	// RCPT TO, DATA), not the box's settings (sign-in, TLS).
	Message bool
	err     error
}

func (e *ReplyError) Error() string { return e.Reply }
func (e *ReplyError) Unwrap() error { return e.err }

// Permanent reports a 5xx reply to this message: sending it again cannot
// help. A 5xx to the sign-in is not: the hosts may correct the password,
// and the mails waiting for it must still go.
func (e *ReplyError) Permanent() bool { return e.Message && e.Code >= 500 && e.Code < 600 }

// replyError wraps a failure of step in a ReplyError.
func replyError(step string, err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		reply := strconv.Itoa(se.Code)
		if c := se.EnhancedCode; c != smtp.NoEnhancedCode && c != smtp.EnhancedCodeNotSet && c[0] > 0 {
			reply += fmt.Sprintf(" %d.%d.%d", c[0], c[1], c[2])
		}
		if se.Message != "" {
			reply += " " + se.Message
		}
		return &ReplyError{Code: se.Code, Reply: reply, err: fmt.Errorf("%s: %w", step, err)}
	}
	if errors.Is(err, ErrTooMuchReply) {
		return &ReplyError{Reply: step + ": " + ErrTooMuchReply.Error(), err: fmt.Errorf("%s: %w", step, err)}
	}
	return &ReplyError{Reply: step + ": " + err.Error(), err: fmt.Errorf("%s: %w", step, err)}
}

// MaxReplyBytes is how much a mail server may send in one session, TLS
// handshake included: its replies are a few hundred bytes and its
// certificates a few KiB, so this leaves room for any real server and
// bounds what the box keeps of a hostile one (docs/decisions.md,
// "Outbound servers: what the box reads from them").
const MaxReplyBytes = 256 << 10

// ErrTooMuchReply ends a session whose server sent more than
// MaxReplyBytes.
var ErrTooMuchReply = fmt.Errorf("the server sent more than %d KiB of replies; this is not a mail server's answer", MaxReplyBytes>>10)

// cappedConn is a connection that fails its reads once left bytes were
// read.
type cappedConn struct {
	net.Conn
	left int
}

func (c *cappedConn) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, ErrTooMuchReply
	}
	if len(p) > c.left {
		p = p[:c.left]
	}
	n, err := c.Conn.Read(p)
	c.left -= n
	return n, err
}

// messageError is replyError for a step about the message itself.
func messageError(step string, err error) error {
	re := replyError(step, err).(*ReplyError)
	re.Message = true
	return re
}

// Send delivers body from from to to through srv and answers the server's
// reply to the message ("250 2.0.0 queued as …"). A failure is a
// *ReplyError. It returns soon after ctx ends.
func Send(ctx context.Context, srv Server, from string, to []string, body []byte) (reply string, err error) {
	addr := net.JoinHostPort(srv.Host, strconv.Itoa(srv.Port))
	defer func() {
		// Without a reply, say which server could not be talked to.
		var re *ReplyError
		if errors.As(err, &re) && re.Code == 0 && !strings.Contains(re.Reply, addr) {
			re.Reply = "no answer from " + addr + " (" + re.Reply + ")"
		}
	}()
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", replyError("connecting to "+addr, err)
	}
	// The client's calls block on the connection: closing it is how a
	// cancelled ctx ends them.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	// Whatever the server sends is read through a budget: the client
	// would keep a reply of endless continuation lines whole.
	conn = &cappedConn{Conn: conn, left: MaxReplyBytes}
	var cfg *tls.Config
	if srv.TLS != nil {
		cfg = srv.TLS.Clone()
	} else {
		cfg = &tls.Config{}
	}
	cfg.ServerName = srv.Host
	var c *smtp.Client
	switch srv.Security {
	case SecurityTLS:
		tc := tls.Client(conn, cfg)
		hctx, cancel := context.WithTimeout(ctx, dialTimeout)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			conn.Close()
			return "", replyError("TLS with "+addr, err)
		}
		c = smtp.NewClient(tc)
	case SecurityStartTLS:
		c, err = smtp.NewClientStartTLS(conn, cfg)
		if err != nil {
			return "", replyError("STARTTLS with "+addr, err)
		}
	default:
		c = smtp.NewClient(conn)
	}
	defer c.Close()
	if srv.Username != "" {
		if err := c.Auth(sasl.NewPlainClient("", srv.Username, srv.Password)); err != nil {
			return "", replyError("signing in", err)
		}
	}
	if err := c.Mail(from, nil); err != nil {
		return "", messageError("MAIL FROM", err)
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			return "", messageError("RCPT TO", err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return "", messageError("DATA", err)
	}
	if _, err := w.Write(body); err != nil {
		return "", messageError("sending the message", err)
	}
	resp, err := w.CloseWithResponse()
	if err != nil {
		return "", messageError("sending the message", err)
	}
	// The message is accepted; a failed QUIT changes nothing.
	_ = c.Quit()
	return strings.TrimSpace("250 " + resp.StatusText), nil
}
