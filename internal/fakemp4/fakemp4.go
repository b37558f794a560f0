// Package fakemp4 writes the smallest MP4 the box's video check accepts,
// for tests and load tools: an ftyp box, a media data box holding the
// bytes given, and, at the end as phones write it, a movie box saying
// how long its one video track (90 kHz) lasts.
package fakemp4

import (
	"bytes"
	"encoding/binary"
)

// Box is an ISO-BMFF box of type typ holding parts one after another.
func Box(typ string, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	b := make([]byte, 8, 8+len(body))
	binary.BigEndian.PutUint32(b, uint32(8+len(body)))
	copy(b[4:], typ)
	return append(b, body...)
}

// DataOffset is where the media data's own bytes start in Make's output:
// after the ftyp box and the media data box's header.
const DataOffset = 32 + 8

// Overhead is how many bytes Make adds to the media data: its boxes.
const Overhead = DataOffset + 301

// Make is an MP4 of seconds whose media data is data.
func Make(seconds int, data []byte) []byte {
	u32 := func(v uint32) []byte { b := make([]byte, 4); binary.BigEndian.PutUint32(b, v); return b }
	ms, ticks := uint32(seconds*1000), uint32(seconds*90000)
	mvhd := Box("mvhd", u32(0), u32(0), u32(0), u32(1000), u32(ms), make([]byte, 80))
	mdhd := Box("mdhd", u32(0), u32(0), u32(0), u32(90000), u32(ticks), []byte{0x55, 0xc4, 0, 0})
	hdlr := Box("hdlr", u32(0), u32(0), []byte("vide"), make([]byte, 12), []byte("VideoHandler\x00"))
	tkhd := Box("tkhd", u32(3), u32(0), u32(0), u32(1), u32(0), u32(ms), make([]byte, 60))
	return bytes.Join([][]byte{
		Box("ftyp", []byte("isom"), u32(512), []byte("isomiso2avc1mp41")),
		Box("mdat", data),
		Box("moov", mvhd, Box("trak", tkhd, Box("mdia", mdhd, hdlr))),
	}, nil)
}
