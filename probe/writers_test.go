package probe_test

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Small writers for the containers, so fixtures are built in the tests and
// each field the probe reads is visible in the test that sets it.

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func be16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// ---- ISO-BMFF ----

// box makes a box with a 32-bit size.
func box(typ string, payload ...[]byte) []byte {
	p := cat(payload...)
	return cat(be32(uint32(8+len(p))), []byte(typ), p)
}

// largeBox makes a box with size 1 and a 64-bit largesize.
func largeBox(typ string, payload ...[]byte) []byte {
	p := cat(payload...)
	return cat(be32(1), []byte(typ), be64(uint64(16+len(p))), p)
}

// toEndBox makes a box with size 0: it runs to the end of the file.
func toEndBox(typ string, payload ...[]byte) []byte {
	return cat(be32(0), []byte(typ), cat(payload...))
}

// fullBox makes a box with a version and 24 bits of flags.
func fullBox(typ string, version byte, flags uint32, payload ...[]byte) []byte {
	return box(typ, []byte{version, byte(flags >> 16), byte(flags >> 8), byte(flags)}, cat(payload...))
}

func ftyp(major string, compatible ...string) []byte {
	p := cat([]byte(major), be32(0x200))
	for _, c := range compatible {
		p = cat(p, []byte(c))
	}
	return box("ftyp", p)
}

// timedBox makes mvhd or mdhd: version 0 with 32-bit fields, version 1 with
// 64-bit ones. mvhd carries more fields after the duration; the probe reads
// none of them but they are written for realism.
func timedBox(typ string, version byte, timescale uint32, duration uint64) []byte {
	var p []byte
	if version == 1 {
		p = cat(be64(3600), be64(3600), be32(timescale), be64(duration))
	} else {
		p = cat(be32(3600), be32(3600), be32(timescale), be32(uint32(duration)))
	}
	if typ == "mvhd" {
		p = cat(p, be32(0x00010000), be16(0x0100), make([]byte, 10), make([]byte, 36), make([]byte, 24), be32(3))
	} else {
		p = cat(p, be16(0x55C4), be16(0))
	}
	return fullBox(typ, version, 0, p)
}

func tkhd(id uint32) []byte {
	return fullBox("tkhd", 0, 3, be32(0), be32(0), be32(id), be32(0), be32(0), make([]byte, 60))
}

func hdlr(handler string) []byte {
	return fullBox("hdlr", 0, 0, be32(0), []byte(handler), make([]byte, 12), []byte("handler\x00"))
}

// stsd makes a sample description with one entry of the given type.
func stsd(fourcc string) []byte {
	entry := box(fourcc, make([]byte, 6), be16(1), make([]byte, 16))
	return fullBox("stsd", 0, 0, be32(1), entry)
}

// trak makes a track with a media header of the given timescale and
// duration, a handler and one sample entry.
func trak(id uint32, handler, fourcc string, timescale uint32, duration uint64) []byte {
	return box("trak",
		tkhd(id),
		box("mdia",
			timedBox("mdhd", 0, timescale, duration),
			hdlr(handler),
			box("minf",
				box("stbl", stsd(fourcc), fullBox("stts", 0, 0, be32(0))))))
}

// ---- EBML / WebM ----

// ebmlID writes an element ID, which carries its own length marker.
func ebmlID(id uint32) []byte {
	switch {
	case id >= 1<<24:
		return be32(id)
	case id >= 1<<16:
		return []byte{byte(id >> 16), byte(id >> 8), byte(id)}
	case id >= 1<<8:
		return be16(uint16(id))
	}
	return []byte{byte(id)}
}

// ebmlSize writes a size as an 8-byte vint, as streaming muxers do.
func ebmlSize(n int) []byte {
	b := be64(uint64(n))
	b[0] = 0x01
	return b
}

// unknownSize is the 8-byte all-ones size MediaRecorder writes.
func unknownSize() []byte { return []byte{0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF} }

func elem(id uint32, payload ...[]byte) []byte {
	p := cat(payload...)
	return cat(ebmlID(id), ebmlSize(len(p)), p)
}

func unknownElem(id uint32, payload ...[]byte) []byte {
	return cat(ebmlID(id), unknownSize(), cat(payload...))
}

func uintElem(id uint32, v uint64) []byte {
	b := be64(v)
	for len(b) > 1 && b[0] == 0 {
		b = b[1:]
	}
	return elem(id, b)
}

func floatElem(id uint32, v float64) []byte { return elem(id, be64(math.Float64bits(v))) }

func stringElem(id uint32, s string) []byte { return elem(id, []byte(s)) }

const (
	eEBML         = 0x1A45DFA3
	eDocType      = 0x4282
	eSegment      = 0x18538067
	eSeekHead     = 0x114D9B74
	eInfo         = 0x1549A966
	eScale        = 0x2AD7B1
	eDuration     = 0x4489
	eMuxingApp    = 0x4D80
	eTracks       = 0x1654AE6B
	eTrackEntry   = 0xAE
	eTrackNumber  = 0xD7
	eTrackType    = 0x83
	eCodecID      = 0x86
	eDefaultDur   = 0x23E383
	eCluster      = 0x1F43B675
	eTimecode     = 0xE7
	eSimpleBlock  = 0xA3
	eBlockGroup   = 0xA0
	eBlock        = 0xA1
	eBlockDur     = 0x9B
	eCues         = 0x1C53BB6B
	eVoid         = 0xEC
	trackVideo    = 1
	trackAudio    = 2
	opus20ms      = 0xFC // TOC: CELT fullband 20 ms, one frame
	opus60msSilk  = 0x18 // TOC: SILK narrowband 60 ms, one frame
	vp8FrameFirst = 0x10
)

func ebmlHeader(docType string) []byte {
	return elem(eEBML,
		uintElem(0x4286, 1), uintElem(0x42F7, 1), uintElem(0x42F2, 4), uintElem(0x42F3, 8),
		stringElem(eDocType, docType), uintElem(0x4287, 4), uintElem(0x4285, 2))
}

func trackEntry(number, typ uint64, codec string, extra ...[]byte) []byte {
	return elem(eTrackEntry, uintElem(eTrackNumber, number), uintElem(eTrackType, typ),
		stringElem(eCodecID, codec), cat(extra...))
}

// simpleBlock makes a SimpleBlock for a track number below 127.
func simpleBlock(track byte, rel int16, frame ...byte) []byte {
	return elem(eSimpleBlock, []byte{0x80 | track}, be16(uint16(rel)), []byte{0x80}, frame)
}

// ---- Ogg ----

// oggPage makes one page holding whole packets, with a correct CRC.
func oggPage(flags byte, granule uint64, serial, seq uint32, packets ...[]byte) []byte {
	var lacing, body []byte
	for _, p := range packets {
		n := len(p)
		for n >= 255 {
			lacing = append(lacing, 255)
			n -= 255
		}
		lacing = append(lacing, byte(n))
		body = append(body, p...)
	}
	h := cat([]byte("OggS"), []byte{0, flags},
		binary.LittleEndian.AppendUint64(nil, granule),
		binary.LittleEndian.AppendUint32(nil, serial),
		binary.LittleEndian.AppendUint32(nil, seq),
		make([]byte, 4), []byte{byte(len(lacing))}, lacing, body)
	binary.LittleEndian.PutUint32(h[22:26], oggCRC(h))
	return h
}

// oggCRC is a bitwise reference for Ogg's CRC-32, independent of the
// table-driven one in the package.
func oggCRC(b []byte) uint32 {
	var c uint32
	for _, x := range b {
		c ^= uint32(x) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
	}
	return c
}

func opusHead(preSkip uint16) []byte {
	return cat([]byte("OpusHead"), []byte{1, 1},
		binary.LittleEndian.AppendUint16(nil, preSkip),
		binary.LittleEndian.AppendUint32(nil, 48000), []byte{0, 0, 0})
}

func opusTags() []byte {
	return cat([]byte("OpusTags"), binary.LittleEndian.AppendUint32(nil, 4), []byte("test"), make([]byte, 4))
}

// oggOpus makes an Ogg Opus file whose last page has the given granule.
func oggOpus(preSkip uint16, granules ...uint64) []byte {
	const serial = 0x1234
	out := cat(oggPage(0x02, 0, serial, 0, opusHead(preSkip)), oggPage(0, 0, serial, 1, opusTags()))
	for i, g := range granules {
		flags := byte(0)
		if i == len(granules)-1 {
			flags = 0x04
		}
		packets := [][]byte{bytes.Repeat([]byte{opus20ms, 1, 2, 3}, 10), {opus20ms, 4, 5}}
		out = cat(out, oggPage(flags, g, serial, uint32(i+2), packets...))
	}
	return out
}

// ---- MP3 ----

// mp3Frame makes one frame: a 4-byte header and zeros up to the frame
// length the header implies, which the caller passes.
func mp3Frame(header uint32, length int, body ...byte) []byte {
	f := make([]byte, length)
	binary.BigEndian.PutUint32(f, header)
	copy(f[4:], body)
	return f
}

const (
	// mp3Header128 is MPEG-1 Layer III, 128 kbit/s, 44100 Hz, joint
	// stereo, no CRC, no padding: 417-byte frames of 1152 samples.
	mp3Header128 = 0xFFFB9040
	mp3Len128    = 417
	// mp3Header64 is the same at 64 kbit/s: 208-byte frames.
	mp3Header64 = 0xFFFB5040
	mp3Len64    = 208
)

// mp3CBR makes n frames at 128 kbit/s.
func mp3CBR(n int) []byte {
	var out []byte
	for range n {
		out = append(out, mp3Frame(mp3Header128, mp3Len128)...)
	}
	return out
}

// xingFrame is a first frame carrying a Xing (or Info) header that counts
// frames audio frames.
func xingFrame(tag string, frames uint32) []byte {
	body := cat(make([]byte, 32), []byte(tag), be32(0x1), be32(frames))
	return mp3Frame(mp3Header128, mp3Len128, body...)
}

// vbriFrame is a first frame carrying a Fraunhofer VBRI header.
func vbriFrame(frames uint32) []byte {
	body := cat(make([]byte, 32), []byte("VBRI"), be16(1), be16(0), be16(75), be32(0), be32(frames))
	return mp3Frame(mp3Header128, mp3Len128, body...)
}

// id3v2 makes an ID3v2.4 tag with size bytes of padding.
func id3v2(size int) []byte {
	ss := []byte{byte(size >> 21 & 0x7F), byte(size >> 14 & 0x7F), byte(size >> 7 & 0x7F), byte(size & 0x7F)}
	return cat([]byte("ID3"), []byte{4, 0, 0}, ss, make([]byte, size))
}
