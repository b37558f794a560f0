package update

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
)

// hashWriter writes through to a file while it hashes and counts, and
// tells progress every progressStep bytes.
type hashWriter struct {
	w        io.Writer
	h        hash.Hash
	n, total int64
	next     int64
	progress func(done, total int64)
}

const progressStep = 1 << 20

func newHashWriter(w io.Writer, total int64, progress func(done, total int64)) *hashWriter {
	return &hashWriter{w: w, h: sha256.New(), total: total, progress: progress}
}

func (hw *hashWriter) Write(p []byte) (int, error) {
	if hw.n+int64(len(p)) > hw.total {
		return 0, fmt.Errorf("%w: the download is longer than the %d bytes the manifest says", ErrInvalid, hw.total)
	}
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.n += int64(n)
	if hw.progress != nil && hw.n >= hw.next {
		hw.progress(hw.n, hw.total)
		hw.next = hw.n + progressStep
	}
	return n, err
}

// check compares what was written with b.
func (hw *hashWriter) check(b Binary) error {
	if hw.n != b.Size {
		return fmt.Errorf("%w: the download has %d bytes, the manifest says %d", ErrInvalid, hw.n, b.Size)
	}
	if got := hex.EncodeToString(hw.h.Sum(nil)); got != b.SHA256 {
		return fmt.Errorf("%w: the download's SHA-256 %s does not match the manifest's", ErrInvalid, got)
	}
	if hw.progress != nil {
		hw.progress(hw.n, hw.total)
	}
	return nil
}
