package cloudexport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"
)

// TestSumReaderHashesWhatTheTargetReads reads a file the ways targets do:
// once in order, twice from the start (a checksum pass, then the send),
// with a read back over bytes already hashed, and skipping ahead (a
// resumed multipart upload), which leaves no sum.
func TestSumReaderHashesWhatTheTargetReads(t *testing.T) {
	data := bytes.Repeat([]byte("eventbox "), 10000)
	whole := sha256.Sum256(data)
	want := hex.EncodeToString(whole[:])
	cases := map[string]struct {
		reads [][2]int64 // [off, len]
		want  string
	}{
		"in order":               {[][2]int64{{0, 40000}, {40000, 50000}}, want},
		"twice from the start":   {[][2]int64{{0, 90000}, {0, 30000}, {30000, 60000}}, want},
		"back over hashed bytes": {[][2]int64{{0, 30000}, {20000, 70000}}, want},
		"skipping ahead":         {[][2]int64{{0, 30000}, {60000, 30000}}, ""},
		"not to the end":         {[][2]int64{{0, 89999}}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			sr := &sumReader{r: bytes.NewReader(data), h: sha256.New()}
			for _, rd := range c.reads {
				p := make([]byte, rd[1])
				if n, err := sr.ReadAt(p, rd[0]); err != nil && err != io.EOF || !bytes.Equal(p[:n], data[rd[0]:rd[0]+int64(n)]) {
					t.Fatalf("read %v: %d bytes, %v", rd, n, err)
				}
			}
			if got := sr.sum(int64(len(data))); got != c.want {
				t.Errorf("sum %q, want %q", got, c.want)
			}
		})
	}
}
