package probe

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"time"
)

// ISO-BMFF (ISO/IEC 14496-12, QuickTime): the file is a sequence of boxes,
// each a 32-bit size and a four-character type, with a 64-bit "largesize"
// when the size is 1 and "to the end of the parent" when it is 0. Phones
// write the sample data (mdat) first and the index (moov) last, so the top
// level is walked by headers, seeking over mdat. Recorders that write
// fragmented MP4 (MediaRecorder, streaming muxers) leave the durations in
// moov at zero; their length is summed from the moof fragments.

// maxTracks caps the trak boxes of one movie.
const maxTracks = 64

// isoBox is one box header: the payload runs from data to end.
type isoBox struct {
	typ  [4]byte
	data int64
	end  int64
}

// isoTrack is what the probe keeps of one trak.
type isoTrack struct {
	id        uint32
	handler   [4]byte // "vide", "soun", …
	codec     [4]byte // type of the first sample entry in stsd
	timescale uint64  // mdhd, ticks per second
	duration  uint64  // mdhd, in timescale ticks; 0 when unknown
	trexDur   uint64  // trex default sample duration
	fragSum   uint64  // running decode time over fragments
	fragEnd   uint64  // latest sample end seen in fragments
}

// isoMovie is what the probe keeps of moov.
type isoMovie struct {
	timescale  uint64 // mvhd
	duration   uint64 // mvhd; 0 when unknown
	fragDur    uint64 // mehd, in mvhd ticks
	fragmented bool   // mvex present: samples live in moof boxes
	tracks     []isoTrack
	trex       []isoTrex
}

// isoTrex is a track's default sample duration from mvex/trex.
type isoTrex struct {
	id  uint32
	dur uint64
}

func probeISO(s *source, audio bool) (Result, error) {
	var (
		brand    [4]byte
		mov      *isoMovie
		sawMoof  bool
		position int
	)
	err := isoChildren(s, 0, s.size, func(b isoBox) error {
		position++
		if position == 1 {
			if string(b.typ[:]) != "ftyp" {
				return invalid("mp4: first box is not ftyp")
			}
			var buf [8]byte
			p, err := isoPayload(s, b, buf[:])
			if err != nil {
				return err
			}
			if len(p) < 8 {
				return invalid("mp4: short ftyp")
			}
			copy(brand[:], p)
			return nil
		}
		switch string(b.typ[:]) {
		case "moov":
			if mov != nil {
				return invalid("mp4: two moov boxes")
			}
			m, err := parseMoov(s, b)
			if err != nil {
				return err
			}
			mov = m
		case "moof":
			sawMoof = true
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if mov == nil {
		return Result{}, invalid("mp4: no moov box")
	}
	if (mov.fragmented || sawMoof) && !mov.hasDuration() {
		if err := addFragments(s, mov); err != nil {
			return Result{}, err
		}
	}
	d, err := mov.playTime()
	if err != nil {
		return Result{}, err
	}
	return isoResult(mov, brand, d, audio)
}

// isoResult applies the Video or Audio acceptance rules to a parsed movie.
func isoResult(m *isoMovie, brand [4]byte, d time.Duration, audio bool) (Result, error) {
	var video, sound *isoTrack
	for i := range m.tracks {
		t := &m.tracks[i]
		switch string(t.handler[:]) {
		case "vide":
			if video == nil {
				video = t
			}
		case "soun":
			if sound == nil {
				sound = t
			}
		}
	}
	res := Result{Duration: d, HasVideo: video != nil, HasAudio: sound != nil}
	if audio {
		if video != nil {
			return Result{}, invalid("mp4: voice note has a video track")
		}
		if sound == nil {
			return Result{}, invalid("mp4: no audio track")
		}
		res.Codec = isoCodec(sound.codec)
		if res.Codec != "aac" && res.Codec != "opus" {
			return Result{}, invalid("mp4: audio codec is neither AAC nor Opus")
		}
		res.Container, res.MIME = ContainerM4A, "audio/mp4"
		return res, nil
	}
	if video == nil {
		return Result{}, invalid("mp4: no video track")
	}
	res.Codec = isoCodec(video.codec)
	res.Container, res.MIME = ContainerMP4, "video/mp4"
	if string(brand[:]) == "qt  " {
		res.Container, res.MIME = ContainerMOV, "video/quicktime"
	}
	return res, nil
}

// hasDuration reports whether moov alone tells the length.
func (m *isoMovie) hasDuration() bool {
	if m.duration > 0 || m.fragDur > 0 {
		return true
	}
	for _, t := range m.tracks {
		if t.duration > 0 {
			return true
		}
	}
	return false
}

// playTime picks the movie's length: mvhd, else mehd, else the longest
// track by mdhd, else the longest track by its fragments.
func (m *isoMovie) playTime() (time.Duration, error) {
	switch {
	case m.duration > 0:
		return seconds(m.duration, m.timescale)
	case m.fragDur > 0:
		return seconds(m.fragDur, m.timescale)
	}
	var longest time.Duration
	found := false
	for _, t := range m.tracks {
		ticks := t.duration
		if ticks == 0 {
			ticks = t.fragEnd
		}
		if ticks == 0 {
			continue
		}
		scale := t.timescale
		if scale == 0 {
			scale = m.timescale
		}
		d, err := seconds(ticks, scale)
		if err != nil {
			return 0, err
		}
		found = true
		longest = max(longest, d)
	}
	if !found {
		return 0, invalid("mp4: no duration")
	}
	return longest, nil
}

// isoChildren calls fn for each box between off and end, in order. Fewer
// than 8 bytes left over at the end (QuickTime pads some lists with a zero
// word) are ignored.
func isoChildren(s *source, off, end int64, fn func(isoBox) error) error {
	for end-off >= 8 {
		if err := s.step(); err != nil {
			return err
		}
		b, err := readISOBox(s, off, end)
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
		off = b.end
	}
	return nil
}

// readISOBox reads the box header at off inside a parent ending at end.
func readISOBox(s *source, off, end int64) (isoBox, error) {
	var h [16]byte
	if err := s.readAt(h[:8], off); err != nil {
		return isoBox{}, err
	}
	b := isoBox{data: off + 8}
	copy(b.typ[:], h[4:8])
	size := uint64(binary.BigEndian.Uint32(h[:4]))
	switch size {
	case 0: // to the end of the parent (of the file at the top level)
		size = uint64(end - off)
	case 1:
		if end-off < 16 {
			return isoBox{}, invalid("mp4: truncated box header")
		}
		if err := s.readAt(h[8:16], off+8); err != nil {
			return isoBox{}, err
		}
		size = binary.BigEndian.Uint64(h[8:16])
		b.data += 8
	}
	if string(b.typ[:]) == "uuid" {
		b.data += 16
	}
	if size < uint64(b.data-off) || size > uint64(end-off) {
		return isoBox{}, invalid("mp4: box size out of bounds")
	}
	b.end = off + int64(size)
	return b, nil
}

// isoPayload reads the start of b's payload into p and returns the part read,
// which is shorter than p when the payload is.
func isoPayload(s *source, b isoBox, p []byte) ([]byte, error) {
	if n := b.end - b.data; int64(len(p)) > n {
		p = p[:n]
	}
	if err := s.readAt(p, b.data); err != nil {
		return nil, err
	}
	return p, nil
}

// parseMoov collects the movie header, tracks and fragment defaults.
func parseMoov(s *source, moov isoBox) (*isoMovie, error) {
	m := &isoMovie{}
	err := isoChildren(s, moov.data, moov.end, func(b isoBox) error {
		switch string(b.typ[:]) {
		case "mvhd":
			scale, dur, err := readTimed(s, b)
			if err != nil {
				return err
			}
			m.timescale, m.duration = uint64(scale), dur
		case "trak":
			if len(m.tracks) == maxTracks {
				return invalid("mp4: too many tracks")
			}
			t, err := parseTrak(s, b)
			if err != nil {
				return err
			}
			m.tracks = append(m.tracks, t)
		case "mvex":
			m.fragmented = true
			return parseMvex(s, b, m)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// trex may come before or after the trak it refers to.
	for i := range m.tracks {
		m.tracks[i].trexDur = m.trexDefault(m.tracks[i].id)
	}
	return m, nil
}

// readTimed reads the common layout of mvhd, mdhd and tkhd: after version,
// flags and two timestamps (32 or 64 bits by version) come a 32-bit field
// (timescale, or tkhd's track ID) and a duration (32 or 64 bits). A
// duration of all ones means unknown and is returned as 0.
func readTimed(s *source, b isoBox) (uint32, uint64, error) {
	var buf [32]byte
	p, err := isoPayload(s, b, buf[:])
	if err != nil {
		return 0, 0, err
	}
	if len(p) < 4 {
		return 0, 0, invalid("mp4: short header box")
	}
	switch p[0] {
	case 0:
		if len(p) < 20 {
			return 0, 0, invalid("mp4: short header box")
		}
		dur := uint64(binary.BigEndian.Uint32(p[16:20]))
		if dur == 0xFFFFFFFF {
			dur = 0
		}
		return binary.BigEndian.Uint32(p[12:16]), dur, nil
	case 1:
		if len(p) < 32 {
			return 0, 0, invalid("mp4: short header box")
		}
		dur := binary.BigEndian.Uint64(p[24:32])
		if dur == ^uint64(0) {
			dur = 0
		}
		return binary.BigEndian.Uint32(p[20:24]), dur, nil
	}
	return 0, 0, invalid("mp4: unknown header box version")
}

// parseTrak reads a track's ID, handler, media timescale and duration, and
// the type of its first sample entry.
func parseTrak(s *source, trak isoBox) (isoTrack, error) {
	var t isoTrack
	err := isoChildren(s, trak.data, trak.end, func(b isoBox) error {
		switch string(b.typ[:]) {
		case "tkhd":
			id, _, err := readTimed(s, b)
			t.id = id
			return err
		case "mdia":
			return isoChildren(s, b.data, b.end, func(b isoBox) error {
				switch string(b.typ[:]) {
				case "mdhd":
					scale, dur, err := readTimed(s, b)
					t.timescale, t.duration = uint64(scale), dur
					return err
				case "hdlr":
					var buf [12]byte
					p, err := isoPayload(s, b, buf[:])
					if err != nil {
						return err
					}
					if len(p) < 12 {
						return invalid("mp4: short hdlr")
					}
					copy(t.handler[:], p[8:12])
				case "minf":
					return parseMinf(s, b, &t)
				}
				return nil
			})
		}
		return nil
	})
	return t, err
}

// parseMinf finds minf/stbl/stsd and records the first sample entry's type.
func parseMinf(s *source, minf isoBox, t *isoTrack) error {
	return isoChildren(s, minf.data, minf.end, func(b isoBox) error {
		if string(b.typ[:]) != "stbl" {
			return nil
		}
		return isoChildren(s, b.data, b.end, func(b isoBox) error {
			if string(b.typ[:]) != "stsd" {
				return nil
			}
			var buf [16]byte
			p, err := isoPayload(s, b, buf[:])
			if err != nil {
				return err
			}
			if len(p) == 16 && binary.BigEndian.Uint32(p[4:8]) > 0 {
				copy(t.codec[:], p[12:16])
			}
			return nil
		})
	})
}

// parseMvex reads mehd (the whole fragmented duration) and the per-track
// default sample durations of trex.
func parseMvex(s *source, mvex isoBox, m *isoMovie) error {
	return isoChildren(s, mvex.data, mvex.end, func(b isoBox) error {
		var buf [16]byte
		p, err := isoPayload(s, b, buf[:])
		if err != nil {
			return err
		}
		switch string(b.typ[:]) {
		case "mehd":
			switch {
			case len(p) >= 8 && p[0] == 0:
				m.fragDur = uint64(binary.BigEndian.Uint32(p[4:8]))
			case len(p) >= 12 && p[0] == 1:
				m.fragDur = binary.BigEndian.Uint64(p[4:12])
			default:
				return invalid("mp4: bad mehd")
			}
		case "trex":
			if len(p) < 16 {
				return invalid("mp4: short trex")
			}
			if len(m.trex) == maxTracks {
				return invalid("mp4: too many trex boxes")
			}
			m.trex = append(m.trex, isoTrex{
				id:  binary.BigEndian.Uint32(p[4:8]),
				dur: uint64(binary.BigEndian.Uint32(p[12:16])),
			})
		}
		return nil
	})
}

// trexDefault returns the trex default sample duration for a track ID, or 0.
func (m *isoMovie) trexDefault(id uint32) uint64 {
	for _, t := range m.trex {
		if t.id == id {
			return t.dur
		}
	}
	return 0
}

// addFragments walks the top-level moof boxes and extends each track's end
// by the samples of its fragments.
func addFragments(s *source, m *isoMovie) error {
	return isoChildren(s, 0, s.size, func(b isoBox) error {
		if string(b.typ[:]) != "moof" {
			return nil
		}
		return isoChildren(s, b.data, b.end, func(b isoBox) error {
			if string(b.typ[:]) != "traf" {
				return nil
			}
			return parseTraf(s, b, m)
		})
	})
}

// parseTraf adds one track fragment: its decode time (tfdt, or the running
// sum of earlier fragments) plus the durations of its samples.
func parseTraf(s *source, traf isoBox, m *isoMovie) error {
	var (
		t        *isoTrack
		defDur   uint64
		base     uint64
		haveBase bool
		sum      uint64
	)
	err := isoChildren(s, traf.data, traf.end, func(b isoBox) error {
		switch string(b.typ[:]) {
		case "tfhd":
			var buf [28]byte
			p, err := isoPayload(s, b, buf[:])
			if err != nil {
				return err
			}
			if len(p) < 8 {
				return invalid("mp4: short tfhd")
			}
			t = m.track(binary.BigEndian.Uint32(p[4:8]))
			if t == nil {
				return invalid("mp4: fragment of an unknown track")
			}
			defDur = t.trexDur
			flags := binary.BigEndian.Uint32(p[0:4]) & 0xFFFFFF
			pos := 8
			if flags&0x01 != 0 { // base-data-offset
				pos += 8
			}
			if flags&0x02 != 0 { // sample-description-index
				pos += 4
			}
			if flags&0x08 != 0 { // default-sample-duration
				if len(p) < pos+4 {
					return invalid("mp4: short tfhd")
				}
				defDur = uint64(binary.BigEndian.Uint32(p[pos : pos+4]))
			}
		case "tfdt":
			var buf [12]byte
			p, err := isoPayload(s, b, buf[:])
			if err != nil {
				return err
			}
			switch {
			case len(p) >= 8 && p[0] == 0:
				base = uint64(binary.BigEndian.Uint32(p[4:8]))
			case len(p) >= 12 && p[0] == 1:
				base = binary.BigEndian.Uint64(p[4:12])
			default:
				return invalid("mp4: bad tfdt")
			}
			haveBase = true
		case "trun":
			if t == nil {
				return invalid("mp4: trun before tfhd")
			}
			d, err := trunDuration(s, b, defDur)
			if err != nil {
				return err
			}
			sum = addSat(sum, d)
		}
		return nil
	})
	if err != nil || t == nil {
		return err
	}
	if !haveBase {
		base = t.fragSum
	}
	t.fragSum = addSat(base, sum)
	t.fragEnd = max(t.fragEnd, t.fragSum)
	return nil
}

// trunDuration sums the sample durations of one track run, reading each
// sample's entry only when the run carries durations per sample.
func trunDuration(s *source, b isoBox, defDur uint64) (uint64, error) {
	var buf [8]byte
	p, err := isoPayload(s, b, buf[:])
	if err != nil {
		return 0, err
	}
	if len(p) < 8 {
		return 0, invalid("mp4: short trun")
	}
	flags := binary.BigEndian.Uint32(p[0:4]) & 0xFFFFFF
	count := uint64(binary.BigEndian.Uint32(p[4:8]))
	pos := b.data + 8
	if flags&0x001 != 0 { // data-offset
		pos += 4
	}
	if flags&0x004 != 0 { // first-sample-flags
		pos += 4
	}
	entry := uint64(4 * bits.OnesCount32(flags&0xF00))
	if pos > b.end || count*entry > uint64(b.end-pos) {
		return 0, invalid("mp4: trun overruns its box")
	}
	if flags&0x100 == 0 { // no per-sample duration: all take the default
		hi, lo := bits.Mul64(count, defDur)
		if hi != 0 {
			return ^uint64(0), nil
		}
		return lo, nil
	}
	var sum uint64
	var d [4]byte
	for i := uint64(0); i < count; i++ {
		if err := s.step(); err != nil {
			return 0, err
		}
		if err := s.readAt(d[:], pos+int64(i*entry)); err != nil {
			return 0, err
		}
		sum = addSat(sum, uint64(binary.BigEndian.Uint32(d[:])))
	}
	return sum, nil
}

// track returns the track with the given ID, or nil.
func (m *isoMovie) track(id uint32) *isoTrack {
	for i := range m.tracks {
		if m.tracks[i].id == id {
			return &m.tracks[i]
		}
	}
	return nil
}

// addSat adds without wrapping around; an overflowing sum later fails the
// maxDuration check.
func addSat(a, b uint64) uint64 {
	sum, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return ^uint64(0)
	}
	return sum
}

// isoCodec names the codec of a sample entry type, or "" when unknown.
func isoCodec(fourcc [4]byte) string {
	switch c := string(fourcc[:]); c {
	case "avc1", "avc3":
		return "h264"
	case "hvc1", "hev1", "dvh1", "dvhe":
		return "hevc"
	case "av01":
		return "av1"
	case "vp08":
		return "vp8"
	case "vp09":
		return "vp9"
	case "mp4v":
		return "mpeg4"
	case "jpeg", "mjpa":
		return "mjpeg"
	case "mp4a":
		return "aac"
	case "Opus":
		return "opus"
	case ".mp3":
		return "mp3"
	case "ac-3":
		return "ac3"
	case "ec-3":
		return "eac3"
	case "alac":
		return "alac"
	default:
		if strings.HasPrefix(c, "ap4") || (strings.HasPrefix(c, "apc") && len(c) == 4) {
			return "prores"
		}
	}
	return ""
}
