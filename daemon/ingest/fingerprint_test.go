package ingest

import (
	"bytes"
	"io"
	"testing"
)

func TestFingerprintSeesEveryByte(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 40000) // 640 KB: head, middle and tail
	key := func(b []byte) string {
		t.Helper()
		fp := newFingerprinter()
		if _, err := io.Copy(fp, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		s, err := fp.sum(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := key(body)
	if key(append([]byte{}, body...)) != base {
		t.Fatal("the same bytes give another key")
	}
	tests := []struct {
		name string
		at   int
	}{
		{"a change in the head", 10},
		{"a change in the middle", len(body) / 2},
		{"a change in the tail", len(body) - 10},
	}
	for _, tt := range tests {
		t.Run(tt.name+" changes the key", func(t *testing.T) {
			b := append([]byte{}, body...)
			b[tt.at] ^= 0x40
			if key(b) == base {
				t.Fatal("same key")
			}
		})
	}
	t.Run("a longer body changes the key", func(t *testing.T) {
		if key(append(append([]byte{}, body...), 0)) == base {
			t.Fatal("same key")
		}
	})
	t.Run("a body shorter than the ends works", func(t *testing.T) {
		if key([]byte("tiny")) == key([]byte("tinz")) {
			t.Fatal("same key")
		}
	})
}
