package boxtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync"
)

// LossyDisk serves a disk image over NBD (the protocol qemu speaks to
// network block devices) like a card whose controller keeps writes in its
// cache until it is told to flush: a write is only pending until the next
// flush, and Cut, the power cut, decides what becomes of the pending ones.
// Reads see every write, pending or not, as the machine's own reads would.
type LossyDisk struct {
	file *os.File
	size int64

	// conns counts the machine's open connections: a cut waits until the
	// killed machine's one is gone, so no write it sent lands after the cut.
	conns sync.WaitGroup

	mu      sync.Mutex
	pending []pendingWrite
	stats   DiskStats
}

// DiskStats counts what the disk saw.
type DiskStats struct {
	Writes, Flushes int
	// Lost and Kept count the pending writes of the cuts: dropped, or
	// written anyway.
	Lost, Kept int
}

type pendingWrite struct {
	off  int64
	data []byte
}

// CutMode says what a power cut does with the writes not yet flushed.
type CutMode int

const (
	// LoseAll drops every pending write: the card had written nothing of
	// them.
	LoseAll CutMode = iota
	// KeepSome writes a random part of them, in a random order: the card
	// had written some, in the order it liked.
	KeepSome
)

// OpenLossyDisk serves the image at path.
func OpenLossyDisk(path string) (*LossyDisk, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the disk image: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &LossyDisk{file: f, size: st.Size()}, nil
}

// Close closes the image file.
func (d *LossyDisk) Close() error { return d.file.Close() }

// Stats says what the disk saw so far.
func (d *LossyDisk) Stats() DiskStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// Cut is the power cut: the pending writes are dropped, or some of them
// written in a random order (rng chooses), and the disk holds what a card
// would after it. It answers how many were pending. The machine must be
// off: Cut waits until its connection is closed.
func (d *LossyDisk) Cut(mode CutMode, rng *rand.Rand) (int, error) {
	d.conns.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(d.pending)
	if mode == KeepSome {
		rng.Shuffle(n, func(i, j int) { d.pending[i], d.pending[j] = d.pending[j], d.pending[i] })
		keep := rng.IntN(n + 1)
		for _, w := range d.pending[:keep] {
			if _, err := d.file.WriteAt(w.data, w.off); err != nil {
				return n, err
			}
		}
		d.stats.Kept += keep
		d.stats.Lost += n - keep
	} else {
		d.stats.Lost += n
	}
	d.pending = nil
	return n, nil
}

func (d *LossyDisk) readAt(p []byte, off int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.file.ReadAt(p, off); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	end := off + int64(len(p))
	for _, w := range d.pending {
		wend := w.off + int64(len(w.data))
		if wend <= off || w.off >= end {
			continue
		}
		lo, hi := max(off, w.off), min(end, wend)
		copy(p[lo-off:hi-off], w.data[lo-w.off:hi-w.off])
	}
	return nil
}

func (d *LossyDisk) write(p []byte, off int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pending = append(d.pending, pendingWrite{off, append([]byte(nil), p...)})
	d.stats.Writes++
}

func (d *LossyDisk) flush() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, w := range d.pending {
		if _, err := d.file.WriteAt(w.data, w.off); err != nil {
			return err
		}
	}
	d.pending = nil
	d.stats.Flushes++
	return nil
}

// The NBD protocol's numbers (the fixed newstyle handshake, simple replies).
const (
	nbdMagic        = 0x4e42444d41474943 // "NBDMAGIC"
	nbdOptMagic     = 0x49484156454f5054 // "IHAVEOPT"
	nbdRepMagic     = 0x3e889045565a9
	nbdRequestMagic = 0x25609513
	nbdReplyMagic   = 0x67446698

	nbdFlagFixedNewstyle = 1
	nbdFlagNoZeroes      = 2

	nbdOptExportName = 1
	nbdOptAbort      = 2
	nbdOptInfo       = 6
	nbdOptGo         = 7

	nbdRepAck      = 1
	nbdRepInfo     = 3
	nbdRepErrUnsup = 1<<31 + 1

	nbdFlagHasFlags  = 1
	nbdFlagSendFlush = 4

	nbdCmdRead  = 0
	nbdCmdWrite = 1
	nbdCmdDisc  = 2
	nbdCmdFlush = 3

	nbdEIO    = 5
	nbdEINVAL = 22
)

// Serve answers NBD clients on l until it is closed, one at a time (the
// machine connects again after each boot).
func (d *LossyDisk) Serve(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		d.conns.Add(1)
		_ = d.serveConn(c)
		c.Close()
		d.conns.Done()
	}
}

func (d *LossyDisk) serveConn(c net.Conn) error {
	be := binary.BigEndian
	hello := make([]byte, 18)
	be.PutUint64(hello[0:], nbdMagic)
	be.PutUint64(hello[8:], nbdOptMagic)
	be.PutUint16(hello[16:], nbdFlagFixedNewstyle|nbdFlagNoZeroes)
	if _, err := c.Write(hello); err != nil {
		return err
	}
	var clientFlags uint32
	if err := binary.Read(c, be, &clientFlags); err != nil {
		return err
	}
	transmit := uint16(nbdFlagHasFlags | nbdFlagSendFlush)
	reply := func(opt, typ uint32, data []byte) error {
		b := make([]byte, 20+len(data))
		be.PutUint64(b[0:], nbdRepMagic)
		be.PutUint32(b[8:], opt)
		be.PutUint32(b[12:], typ)
		be.PutUint32(b[16:], uint32(len(data)))
		copy(b[20:], data)
		_, err := c.Write(b)
		return err
	}
	for {
		var h struct {
			Magic uint64
			Opt   uint32
			Len   uint32
		}
		if err := binary.Read(c, be, &h); err != nil {
			return err
		}
		if h.Magic != nbdOptMagic || h.Len > 1<<16 {
			return errors.New("nbd: bad option")
		}
		if _, err := io.CopyN(io.Discard, c, int64(h.Len)); err != nil {
			return err
		}
		switch h.Opt {
		case nbdOptExportName:
			b := make([]byte, 10)
			be.PutUint64(b, uint64(d.size))
			be.PutUint16(b[8:], transmit)
			if clientFlags&nbdFlagNoZeroes == 0 {
				b = append(b, make([]byte, 124)...)
			}
			if _, err := c.Write(b); err != nil {
				return err
			}
			return d.transmission(c)
		case nbdOptInfo, nbdOptGo:
			info := make([]byte, 12)
			be.PutUint16(info[0:], 0) // NBD_INFO_EXPORT
			be.PutUint64(info[2:], uint64(d.size))
			be.PutUint16(info[10:], transmit)
			if err := reply(h.Opt, nbdRepInfo, info); err != nil {
				return err
			}
			if err := reply(h.Opt, nbdRepAck, nil); err != nil {
				return err
			}
			if h.Opt == nbdOptGo {
				return d.transmission(c)
			}
		case nbdOptAbort:
			_ = reply(h.Opt, nbdRepAck, nil)
			return nil
		default:
			if err := reply(h.Opt, nbdRepErrUnsup, nil); err != nil {
				return err
			}
		}
	}
}

func (d *LossyDisk) transmission(c net.Conn) error {
	be := binary.BigEndian
	hdr := make([]byte, 28)
	for {
		if _, err := io.ReadFull(c, hdr); err != nil {
			return err
		}
		if be.Uint32(hdr[0:]) != nbdRequestMagic {
			return errors.New("nbd: bad request magic")
		}
		typ := be.Uint16(hdr[6:])
		handle := hdr[8:16]
		off := int64(be.Uint64(hdr[16:]))
		n := int64(be.Uint32(hdr[24:]))
		answer := func(code uint32, data []byte) error {
			b := make([]byte, 16, 16+len(data))
			be.PutUint32(b[0:], nbdReplyMagic)
			be.PutUint32(b[4:], code)
			copy(b[8:], handle)
			_, err := c.Write(append(b, data...))
			return err
		}
		inRange := off >= 0 && n >= 0 && off+n <= d.size
		switch typ {
		case nbdCmdRead:
			if !inRange {
				if err := answer(nbdEINVAL, nil); err != nil {
					return err
				}
				continue
			}
			p := make([]byte, n)
			code := uint32(0)
			if err := d.readAt(p, off); err != nil {
				code, p = nbdEIO, nil
			}
			if err := answer(code, p); err != nil {
				return err
			}
		case nbdCmdWrite:
			p := make([]byte, n)
			if _, err := io.ReadFull(c, p); err != nil {
				return err
			}
			code := uint32(nbdEINVAL)
			if inRange {
				d.write(p, off)
				code = 0
			}
			if err := answer(code, nil); err != nil {
				return err
			}
		case nbdCmdFlush:
			code := uint32(0)
			if err := d.flush(); err != nil {
				code = nbdEIO
			}
			if err := answer(code, nil); err != nil {
				return err
			}
		case nbdCmdDisc:
			return nil
		default:
			if err := answer(nbdEINVAL, nil); err != nil {
				return err
			}
		}
	}
}
