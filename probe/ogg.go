package probe

import (
	"bytes"
	"encoding/binary"
)

// Ogg/Opus (RFC 3533, RFC 7845): a chain of pages, each a 27-byte header, a
// segment table and a body. The first page holds the OpusHead packet with
// the pre-skip; the last page's granule position is the number of 48 kHz
// samples decoded by its end. The length is (granule − pre-skip) / 48000.
// Only the first two pages and the file's tail are read.

const (
	oggHeaderSize = 27
	// oggMaxPage is the largest page: header, 255 lacing values, 255×255
	// bytes of body.
	oggMaxPage = oggHeaderSize + 255 + 255*255
	// oggMaxBack caps how many pages the probe steps back from the end to
	// find one that completes a packet (granule not −1).
	oggMaxBack = 16
	// oggMaxCandidates caps the checksums tried per page looked for.
	oggMaxCandidates = 32
	opusRate         = 48000
)

// oggPage is a parsed page header.
type oggPage struct {
	flags   byte
	granule uint64
	serial  uint32
	length  int // header, segment table and body
}

func probeOgg(s *source) (Result, error) {
	buf := make([]byte, min(oggMaxPage, s.size))
	table := oggCRCTable()
	n, err := s.readUpTo(buf, 0)
	if err != nil {
		return Result{}, err
	}
	first, ok := parseOggPage(buf[:n], &table)
	if !ok || first.flags&0x02 == 0 {
		return Result{}, invalid("ogg: bad first page")
	}
	preSkip, err := opusHead(buf[:first.length])
	if err != nil {
		return Result{}, err
	}
	// A second beginning-of-stream page would be a second logical stream
	// (video, another track): not a voice note.
	var next [oggHeaderSize]byte
	if _, err := s.readUpTo(next[:], int64(first.length)); err != nil {
		return Result{}, err
	}
	if bytes.HasPrefix(next[:], []byte("OggS")) && next[5]&0x02 != 0 {
		return Result{}, invalid("ogg: more than one stream")
	}
	granule, err := lastGranule(s, buf, &table, first.serial, int64(first.length))
	if err != nil {
		return Result{}, err
	}
	samples := uint64(0)
	if granule > preSkip {
		samples = granule - preSkip
	}
	d, err := seconds(samples, opusRate)
	if err != nil {
		return Result{}, err
	}
	return Result{
		Container: ContainerOgg,
		MIME:      "audio/ogg",
		Duration:  d,
		HasAudio:  true,
		Codec:     "opus",
	}, nil
}

// opusHead checks the first page's first packet is an OpusHead and returns
// its pre-skip in 48 kHz samples.
func opusHead(page []byte) (uint64, error) {
	nseg := int(page[26])
	body := page[oggHeaderSize+nseg:]
	size := 0
	for _, l := range page[oggHeaderSize : oggHeaderSize+nseg] {
		size += int(l)
		if l < 255 {
			break
		}
	}
	size = min(size, len(body))
	head := body[:size]
	if len(head) < 19 || !bytes.HasPrefix(head, []byte("OpusHead")) {
		return 0, invalid("ogg: not an Opus stream")
	}
	if head[8]>>4 != 0 || head[9] == 0 { // version 0.x, at least one channel
		return 0, invalid("ogg: unsupported OpusHead")
	}
	return uint64(binary.LittleEndian.Uint16(head[10:12])), nil
}

// lastGranule finds the last page of the stream, which must end exactly at
// the end of the file, and returns the granule position of the last page
// that completes a packet. It reads the file's last oggMaxPage bytes into
// buf and looks at no page before notBefore (the end of the head page).
func lastGranule(s *source, buf []byte, table *[256]uint32, serial uint32, notBefore int64) (uint64, error) {
	start := max(s.size-int64(len(buf)), notBefore)
	tail := buf[:s.size-start]
	if err := s.readAt(tail, start); err != nil {
		return 0, err
	}
	end := len(tail)
	for range oggMaxBack {
		p, at, ok := pageEndingAt(tail, end, table)
		if !ok {
			return 0, invalid("ogg: no complete last page")
		}
		if p.serial != serial {
			return 0, invalid("ogg: page of another stream")
		}
		if p.granule != ^uint64(0) {
			if p.granule > 1<<62 {
				return 0, invalid("ogg: granule position out of range")
			}
			return p.granule, nil
		}
		end = at
	}
	return 0, invalid("ogg: no granule position near the end")
}

// pageEndingAt finds a valid page in tail whose last byte is at end-1 and
// returns it with its offset. Only candidates of the right length are
// checksummed, and at most oggMaxCandidates of them, so a tail stuffed with
// fake capture patterns costs little.
func pageEndingAt(tail []byte, end int, table *[256]uint32) (oggPage, int, bool) {
	checked := 0
	for at := max(0, end-oggMaxPage); at+oggHeaderSize <= end; at++ {
		if tail[at] != 'O' {
			continue
		}
		p, ok := parseOggHeader(tail[at:end])
		if !ok || at+p.length != end {
			continue
		}
		if checked++; checked > oggMaxCandidates {
			break
		}
		if oggCRCValid(tail[at:end], table) {
			return p, at, true
		}
	}
	return oggPage{}, 0, false
}

// parseOggPage parses and checksums the page at the start of b.
func parseOggPage(b []byte, table *[256]uint32) (oggPage, bool) {
	p, ok := parseOggHeader(b)
	if !ok || !oggCRCValid(b[:p.length], table) {
		return oggPage{}, false
	}
	return p, true
}

// parseOggHeader parses the page header at the start of b and checks the
// whole page fits in b.
func parseOggHeader(b []byte) (oggPage, bool) {
	if len(b) < oggHeaderSize || !bytes.HasPrefix(b, []byte("OggS")) || b[4] != 0 {
		return oggPage{}, false
	}
	nseg := int(b[26])
	if len(b) < oggHeaderSize+nseg {
		return oggPage{}, false
	}
	length := oggHeaderSize + nseg
	for _, l := range b[oggHeaderSize : oggHeaderSize+nseg] {
		length += int(l)
	}
	if len(b) < length {
		return oggPage{}, false
	}
	return oggPage{
		flags:   b[5],
		granule: binary.LittleEndian.Uint64(b[6:14]),
		serial:  binary.LittleEndian.Uint32(b[14:18]),
		length:  length,
	}, true
}

// oggCRCValid checks the CRC field of a whole page.
func oggCRCValid(page []byte, table *[256]uint32) bool {
	return oggCRC(page, table) == binary.LittleEndian.Uint32(page[22:26])
}

// oggCRCTable builds the table of Ogg's CRC-32 (polynomial 0x04C11DB7,
// most significant bit first, no reflection). It is built per probe rather
// than kept in a package variable.
func oggCRCTable() [256]uint32 {
	var t [256]uint32
	for i := range t {
		c := uint32(i) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}

// oggCRC checksums a page with its CRC field taken as zero.
func oggCRC(page []byte, table *[256]uint32) uint32 {
	var c uint32
	for i, b := range page {
		if i >= 22 && i < 26 {
			b = 0
		}
		c = c<<8 ^ table[byte(c>>24)^b]
	}
	return c
}
