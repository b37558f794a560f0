package fakemp4

import (
	"bytes"
	"testing"
)

// TestMakeLaysOutItsBoxes: the data sits at DataOffset, Overhead is what
// the boxes add, and the movie box comes last.
func TestMakeLaysOutItsBoxes(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("guest-0000000001"), bytes.Repeat([]byte{7}, 4096)} {
		b := Make(30, data)
		if len(b) != len(data)+Overhead {
			t.Errorf("%d bytes of data made %d bytes, want %d", len(data), len(b), len(data)+Overhead)
		}
		if !bytes.Equal(b[DataOffset:DataOffset+len(data)], data) {
			t.Errorf("the data is not at offset %d", DataOffset)
		}
		if string(b[4:8]) != "ftyp" || string(b[DataOffset-4:DataOffset]) != "mdat" || string(b[DataOffset+len(data)+4:DataOffset+len(data)+8]) != "moov" {
			t.Errorf("boxes out of order: %q", b[:DataOffset])
		}
	}
}
