package ingest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"io"
)

// fingerprintEnds is how much of an upload's start and end the
// fingerprint hashes with SHA-256.
const fingerprintEnds = 64 << 10

// fingerprinter computes the retry key of an upload while it streams: the
// SHA-256 of its size, its first and last 64 KiB, and the CRC-32C of all
// of it. A phone that retries sends the same bytes and gets the same key;
// two different photos would need the same size, the same first and last
// 64 KiB and the same CRC of everything between. CRC-32C runs in hardware
// on amd64 and arm64, so the key costs almost nothing where a SHA-256 of
// the whole body cost a third of an upload's CPU on loopback.
// (docs/decisions.md, "Guests and photos")
type fingerprinter struct {
	crc  hash.Hash32
	head []byte
	n    int64
}

func newFingerprinter() *fingerprinter {
	return &fingerprinter{crc: crc32.New(crc32.MakeTable(crc32.Castagnoli)), head: make([]byte, 0, fingerprintEnds)}
}

// Write implements io.Writer; it never fails.
func (f *fingerprinter) Write(p []byte) (int, error) {
	f.crc.Write(p)
	if room := fingerprintEnds - len(f.head); room > 0 {
		f.head = append(f.head, p[:min(room, len(p))]...)
	}
	f.n += int64(len(p))
	return len(p), nil
}

// sum returns the key, hex; last is the file holding the end of the body
// and lastSize its size.
func (f *fingerprinter) sum(last io.ReaderAt, lastSize int64) (string, error) {
	tailLen := min(int64(fingerprintEnds), lastSize)
	tail := make([]byte, tailLen)
	if _, err := last.ReadAt(tail, lastSize-tailLen); err != nil && err != io.EOF {
		return "", err
	}
	h := sha256.New()
	var buf [12]byte
	binary.BigEndian.PutUint64(buf[:8], uint64(f.n))
	binary.BigEndian.PutUint32(buf[8:], f.crc.Sum32())
	h.Write(buf[:])
	h.Write(f.head)
	h.Write(tail)
	return hex.EncodeToString(h.Sum(nil)), nil
}
