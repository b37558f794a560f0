package imaging

import (
	"bytes"
	"encoding/binary"
	"io"
)

// maxVideoMetaBox bounds a keys or ilst box read into memory.
const maxVideoMetaBox = 1 << 20

// VideoLocation finds the bytes of an MP4 or MOV video that hold where it
// was filmed, as patches that keep the file's size: a ©xyz box of the
// movie's user data (Android phones) or a 3GPP loci box (ffmpeg's MP4)
// becomes a free box with zeroed
// contents; a QuickTime metadata key naming a location
// (com.apple.quicktime.location.*, iPhones) is renamed out of the way and
// its value in the item list zeroed. A WebM or an unreadable file has
// none; the error is only for a failed read of r.
func VideoLocation(r io.ReaderAt, size int64) ([]Patch, error) {
	var out []Patch
	err := walkBoxes(r, 0, size, 0, func(typ string, off, hdr, n int64, depth int) (bool, error) {
		switch {
		case typ == "moov" || typ == "udta" || typ == "trak":
			return true, nil
		case typ == "meta":
			return true, nil
		case typ == "\xa9xyz" || typ == "loci":
			out = append(out, Patch{Off: off + 4, Data: []byte("free")}, Patch{Off: off + hdr, Data: make([]byte, n-hdr)})
		case typ == "keys" && n <= maxVideoMetaBox:
			ps, err := locationKeys(r, off, hdr, n, size)
			if err != nil {
				return false, err
			}
			out = append(out, ps...)
		}
		return false, nil
	})
	if err != nil && !isCorrupt(err) {
		return nil, err
	}
	return out, nil
}

// locationKeys renames the location keys of a QuickTime keys box and
// zeroes their values in the sibling ilst box that follows it.
func locationKeys(r io.ReaderAt, off, hdr, n, size int64) ([]Patch, error) {
	b, err := readAt(r, off+hdr, int(n-hdr), size)
	if err != nil || len(b) < 8 {
		return nil, err
	}
	count := int(binary.BigEndian.Uint32(b[4:8]))
	var out []Patch
	located := map[uint32]bool{}
	p := 8
	for i := 1; i <= count && p+8 <= len(b); i++ {
		ks := int(binary.BigEndian.Uint32(b[p:]))
		if ks < 8 || p+ks > len(b) {
			break
		}
		name := b[p+8 : p+ks]
		if bytes.Contains(name, []byte("location")) || bytes.Contains(name, []byte("GPS")) {
			located[uint32(i)] = true
			out = append(out, Patch{Off: off + hdr + int64(p+8), Data: bytes.Repeat([]byte("x"), len(name))})
		}
		p += ks
	}
	if len(located) == 0 {
		return out, nil
	}
	// The ilst box is a sibling after keys, within the same meta box: walk
	// what follows keys up to the end of the file's boxes at this level.
	next := off + n
	err = walkBoxes(r, next, size, 0, func(typ string, ioff, ihdr, in int64, depth int) (bool, error) {
		if depth == 0 && typ != "ilst" {
			return false, errStop
		}
		if depth == 0 {
			return true, nil
		}
		if depth == 1 {
			idx := binary.BigEndian.Uint32([]byte(typ))
			if located[idx] {
				out = append(out, Patch{Off: ioff + ihdr, Data: make([]byte, in-ihdr)})
			}
		}
		return false, nil
	})
	if err != nil && err != errStop && !isCorrupt(err) {
		return nil, err
	}
	return out, nil
}

type stopWalk struct{}

func (stopWalk) Error() string { return "stop" }

var errStop error = stopWalk{}

// walkBoxes calls fn for each box in [start, end) of r, at depth, and
// walks into it when fn says so (a meta box's version and flags are
// skipped when it has them). It stops at the first error of fn.
func walkBoxes(r io.ReaderAt, start, end int64, depth int, fn func(typ string, off, hdr, n int64, depth int) (bool, error)) error {
	off := start
	for i := 0; off+8 <= end && i < maxChunks; i++ {
		h, err := readAt(r, off, 8, end)
		if err != nil {
			return err
		}
		n, hdr := be32(h), int64(8)
		typ := string(h[4:8])
		switch n {
		case 0:
			n = end - off
		case 1:
			l, err := readAt(r, off+8, 8, end)
			if err != nil {
				return err
			}
			n, hdr = be32(l)<<32|be32(l[4:]), 16
		}
		if n < hdr || off+n > end {
			return nil
		}
		into, err := fn(typ, off, hdr, n, depth)
		if err != nil {
			return err
		}
		if into && depth < 6 {
			body := off + hdr
			if typ == "meta" && n-hdr >= 12 {
				// ISO's meta is a full box (version, flags); QuickTime's
				// starts with its hdlr child straight away.
				if p, err := readAt(r, body+4, 4, end); err == nil && string(p) != "hdlr" {
					body += 4
				}
			}
			if err := walkBoxes(r, body, off+n, depth+1, fn); err != nil {
				return err
			}
		}
		off += n
	}
	return nil
}
