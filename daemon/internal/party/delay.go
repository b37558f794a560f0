package party

import (
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// delayConn is a connection whose bytes each way arrive the radio's
// one-way delay (DelayMs ± JitterMs, in order) after they were sent: the
// party's shaper for latency, as this machine's kernel may lack netem.
// Writes return at once (the bytes wait in a queue of at most 64 chunks,
// then the writer blocks, as a socket's buffer does); reads get what
// came once its delay has passed.
type delayConn struct {
	net.Conn
	shape Shape
	out   chan chunk
	in    chan chunk
	rest  []byte
	mu    sync.Mutex // the reader's rest (one Read at a time)
	werr  error
	wmu   sync.Mutex
	done  chan struct{}
	once  sync.Once
}

type chunk struct {
	at  time.Time
	b   []byte
	err error
}

func newDelayConn(c net.Conn, s Shape) net.Conn {
	if s.DelayMs <= 0 {
		return c
	}
	d := &delayConn{Conn: c, shape: s, out: make(chan chunk, 64), in: make(chan chunk, 64), done: make(chan struct{})}
	go d.send()
	go d.receive()
	return d
}

// due is when bytes sent now arrive: never before those sent earlier.
func (d *delayConn) due(last time.Time) time.Time {
	ms := d.shape.DelayMs + d.shape.JitterMs*(2*rand.Float64()-1)
	at := time.Now().Add(time.Duration(ms * float64(time.Millisecond)))
	if at.Before(last) {
		return last
	}
	return at
}

func (d *delayConn) send() {
	for {
		var c chunk
		select {
		case c = <-d.out:
		case <-d.done:
			return
		}
		time.Sleep(time.Until(c.at))
		if _, err := d.Conn.Write(c.b); err != nil {
			d.wmu.Lock()
			d.werr = err
			d.wmu.Unlock()
			d.Close()
			return
		}
	}
}

func (d *delayConn) receive() {
	var last time.Time
	for {
		b := make([]byte, 32<<10)
		n, err := d.Conn.Read(b)
		last = d.due(last)
		select {
		case d.in <- chunk{at: last, b: b[:n], err: err}:
		case <-d.done:
			return
		}
		if err != nil {
			return
		}
	}
}

var errClosed = errors.New("use of closed connection")

// Write queues b to be sent after the delay.
func (d *delayConn) Write(b []byte) (int, error) {
	d.wmu.Lock()
	err := d.werr
	d.wmu.Unlock()
	if err != nil {
		return 0, err
	}
	select {
	case <-d.done:
		return 0, errClosed
	default:
	}
	at := d.due(time.Time{})
	select {
	case d.out <- chunk{at: at, b: append([]byte(nil), b...)}:
		return len(b), nil
	case <-d.done:
		return 0, errClosed
	}
}

// Read gives what arrived once its delay passed.
func (d *delayConn) Read(b []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.rest) == 0 {
		var c chunk
		select {
		case c = <-d.in:
		case <-d.done:
			return 0, errClosed
		}
		time.Sleep(time.Until(c.at))
		if len(c.b) == 0 {
			return 0, c.err
		}
		d.rest = c.b
		if c.err != nil {
			// Deliver the bytes now and the error on the next read.
			go func() {
				select {
				case d.in <- chunk{at: c.at, err: c.err}:
				case <-d.done:
				}
			}()
		}
	}
	n := copy(b, d.rest)
	d.rest = d.rest[n:]
	return n, nil
}

// Close closes the connection at once (what is queued is dropped, as a
// phone that closes a socket).
func (d *delayConn) Close() error {
	d.once.Do(func() { close(d.done) })
	return d.Conn.Close()
}
