package store

import "encoding/binary"

// timeKey encodes epoch milliseconds as 8 big-endian bytes, so that byte
// order is time order and a cursor walks a bucket chronologically.
func timeKey(ms int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(ms))
	return b
}

// keyTime decodes the 8 bytes at b[off:] written by timeKey.
func keyTime(b []byte, off int) int64 {
	return int64(binary.BigEndian.Uint64(b[off : off+8]))
}

// join concatenates key parts into a new slice.
func join(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func u64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}
