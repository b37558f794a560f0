package probe

import (
	"encoding/binary"
	"math"
	"math/bits"
	"time"
)

// Matroska/WebM (RFC 9559): a tree of EBML elements, each a variable-length
// ID, a variable-length size and a payload. Browsers' MediaRecorder streams
// its output, so it writes no Duration and gives the Segment and every
// Cluster an "unknown" size: such a cluster ends where an element that
// cannot be its child begins. The duration then comes from the blocks: the
// cluster's Timecode plus the block's relative timecode, plus the block's
// own length when it is known (BlockDuration, the track's DefaultDuration,
// or the Opus packet's TOC byte). Block payloads are skipped, never read.

// Element IDs, with their length marker bits, as written in the file.
const (
	idEBML            = 0x1A45DFA3
	idDocType         = 0x4282
	idSegment         = 0x18538067
	idSeekHead        = 0x114D9B74
	idInfo            = 0x1549A966
	idTimecodeScale   = 0x2AD7B1
	idDuration        = 0x4489
	idTracks          = 0x1654AE6B
	idTrackEntry      = 0xAE
	idTrackNumber     = 0xD7
	idTrackType       = 0x83
	idCodecID         = 0x86
	idDefaultDuration = 0x23E383
	idCluster         = 0x1F43B675
	idTimecode        = 0xE7
	idSimpleBlock     = 0xA3
	idBlockGroup      = 0xA0
	idBlock           = 0xA1
	idBlockDuration   = 0x9B
	idCues            = 0x1C53BB6B
	idChapters        = 0x1043A770
	idTags            = 0x1254C367
	idAttachments     = 0x1941A469
)

const (
	trackTypeVideo = 1
	trackTypeAudio = 2
	// defaultTimecodeScale is the Matroska default: timecodes in ms.
	defaultTimecodeScale = 1_000_000
	// maxHeaderSize caps the EBML header, which holds a few short fields.
	maxHeaderSize = 4 << 10
	// maxStringSize caps the DocType and CodecID strings read.
	maxStringSize = 64
)

// ebmlElem is one element header: the payload runs from data to end. An
// element of unknown size ends, as far as the header can tell, at its
// parent's end.
type ebmlElem struct {
	id      uint32
	data    int64
	end     int64
	unknown bool
}

// mkvTrack is what the probe keeps of one TrackEntry.
type mkvTrack struct {
	number  uint64
	typ     uint64
	codec   string // CodecID, "" when absent or too long
	defDur  uint64 // DefaultDuration, ns per frame; 0 when absent
	defined bool   // TrackNumber was present
}

// mkvFile is the state of one WebM walk.
type mkvFile struct {
	scale       uint64  // TimecodeScale, ns per tick
	duration    float64 // Info Duration, in ticks; 0 when absent
	tracks      []mkvTrack
	haveTracks  bool
	haveBlock   bool
	lastEndNano float64 // latest block end seen, ns
}

func probeWebM(s *source, audio bool) (Result, error) {
	head, err := readEBML(s, 0, s.size)
	if err != nil {
		return Result{}, err
	}
	if head.id != idEBML || head.unknown || head.end-head.data > maxHeaderSize {
		return Result{}, invalid("webm: bad EBML header")
	}
	doc, err := ebmlDocType(s, head)
	if err != nil {
		return Result{}, err
	}
	if doc != "webm" {
		return Result{}, invalid("webm: DocType is not webm")
	}
	seg, err := findSegment(s, head.end)
	if err != nil {
		return Result{}, err
	}
	f := &mkvFile{scale: defaultTimecodeScale}
	if err := f.walkSegment(s, seg); err != nil {
		return Result{}, err
	}
	d, err := f.playTime()
	if err != nil {
		return Result{}, err
	}
	return f.result(d, audio)
}

// result applies the Video or Audio acceptance rules.
func (f *mkvFile) result(d time.Duration, audio bool) (Result, error) {
	var video, sound *mkvTrack
	for i := range f.tracks {
		t := &f.tracks[i]
		switch {
		case t.typ == trackTypeVideo && video == nil:
			video = t
		case t.typ == trackTypeAudio && sound == nil:
			sound = t
		}
	}
	res := Result{Container: ContainerWebM, Duration: d, HasVideo: video != nil, HasAudio: sound != nil}
	if audio {
		switch {
		case video != nil:
			return Result{}, invalid("webm: voice note has a video track")
		case sound == nil:
			return Result{}, invalid("webm: no audio track")
		case sound.codec != "A_OPUS":
			return Result{}, invalid("webm: audio codec is not Opus")
		}
		res.MIME, res.Codec = "audio/webm", "opus"
		return res, nil
	}
	if video == nil {
		return Result{}, invalid("webm: no video track")
	}
	res.MIME, res.Codec = "video/webm", mkvCodec(video.codec)
	return res, nil
}

// playTime is Info's Duration when present, else the end of the last block.
func (f *mkvFile) playTime() (time.Duration, error) {
	ns := f.duration * float64(f.scale)
	if f.duration <= 0 {
		if !f.haveBlock {
			return 0, invalid("webm: no duration and no blocks")
		}
		ns = f.lastEndNano
	}
	if math.IsNaN(ns) || ns > float64(maxDuration) {
		return 0, invalid("webm: duration out of range")
	}
	return time.Duration(max(ns, 0)), nil
}

// findSegment skips Void elements after the EBML header to the Segment.
func findSegment(s *source, off int64) (ebmlElem, error) {
	for {
		if err := s.step(); err != nil {
			return ebmlElem{}, err
		}
		e, err := readEBML(s, off, s.size)
		if err != nil {
			return ebmlElem{}, err
		}
		switch {
		case e.id == idSegment:
			return e, nil
		case isGlobal(e.id) && !e.unknown:
			off = e.end
		default:
			return ebmlElem{}, invalid("webm: no Segment after the EBML header")
		}
	}
}

// walkSegment reads Info and Tracks, then walks the clusters unless Info
// already gave the duration.
func (f *mkvFile) walkSegment(s *source, seg ebmlElem) error {
	off := seg.data
	for seg.end-off >= 2 {
		if err := s.step(); err != nil {
			return err
		}
		e, err := readEBML(s, off, seg.end)
		if err != nil {
			return err
		}
		if e.id == idEBML || e.id == idSegment {
			if seg.unknown {
				return nil // a chained segment begins: this one is over
			}
			return invalid("webm: EBML header inside a Segment")
		}
		if e.id == idCluster {
			if !f.haveTracks {
				return invalid("webm: Cluster before Tracks")
			}
			if f.duration > 0 {
				return nil
			}
			if off, err = f.walkCluster(s, e); err != nil {
				return err
			}
			continue
		}
		if e.unknown {
			return invalid("webm: element of unknown size")
		}
		switch e.id {
		case idInfo:
			err = f.parseInfo(s, e)
		case idTracks:
			err = f.parseTracks(s, e)
		}
		if err != nil {
			return err
		}
		off = e.end
	}
	return nil
}

// walkCluster records the blocks of one cluster and returns where the next
// segment-level element starts.
func (f *mkvFile) walkCluster(s *source, cl ebmlElem) (int64, error) {
	var (
		tc     uint64
		haveTC bool
	)
	off := cl.data
	for cl.end-off >= 2 {
		if err := s.step(); err != nil {
			return 0, err
		}
		e, err := readEBML(s, off, cl.end)
		if err != nil {
			return 0, err
		}
		if cl.unknown && isSegmentLevel(e.id) {
			return off, nil
		}
		if e.unknown {
			return 0, invalid("webm: cluster child of unknown size")
		}
		switch e.id {
		case idTimecode:
			if tc, err = ebmlUint(s, e); err != nil {
				return 0, err
			}
			haveTC = true
		case idSimpleBlock, idBlockGroup:
			if !haveTC {
				return 0, invalid("webm: block before the cluster Timecode")
			}
			if e.id == idSimpleBlock {
				err = f.addBlock(s, e, tc, 0, false)
			} else {
				err = f.addBlockGroup(s, e, tc)
			}
			if err != nil {
				return 0, err
			}
		}
		off = e.end
	}
	return cl.end, nil
}

// addBlockGroup finds the Block and the optional BlockDuration of a group.
func (f *mkvFile) addBlockGroup(s *source, g ebmlElem, tc uint64) error {
	var (
		block   ebmlElem
		found   bool
		dur     uint64
		haveDur bool
	)
	err := ebmlChildren(s, g, func(e ebmlElem) error {
		var err error
		switch e.id {
		case idBlock:
			block, found = e, true
		case idBlockDuration:
			dur, err = ebmlUint(s, e)
			haveDur = true
		}
		return err
	})
	if err != nil {
		return err
	}
	if !found {
		return invalid("webm: BlockGroup without a Block")
	}
	return f.addBlock(s, block, tc, dur, haveDur)
}

// addBlock reads a (Simple)Block header: the track number, the timecode
// relative to the cluster and the flags, plus the first bytes of the frame
// to learn an Opus packet's length.
func (f *mkvFile) addBlock(s *source, b ebmlElem, tc, dur uint64, haveDur bool) error {
	var buf [13]byte
	n := min(int64(len(buf)), b.end-b.data)
	if err := s.readAt(buf[:n], b.data); err != nil {
		return err
	}
	p := buf[:n]
	num, l, ok := vint(p, true)
	if !ok || len(p) < l+3 {
		return invalid("webm: bad block header")
	}
	rel := int16(binary.BigEndian.Uint16(p[l : l+2]))
	flags := p[l+2]
	frame := p[l+3:]
	scale := float64(f.scale)
	start := (float64(tc) + float64(rel)) * scale
	end := start
	t := f.track(num)
	lacing := (flags >> 1) & 3
	switch {
	case haveDur:
		end += float64(dur) * scale
	case t == nil:
	case lacing == 0 && t.codec == "A_OPUS":
		end += float64(opusPacketNanos(frame))
	case t.defDur > 0:
		frames := 1.0
		if lacing != 0 && len(frame) > 0 {
			frames = float64(frame[0]) + 1
		}
		end += frames * float64(t.defDur)
	}
	if math.IsNaN(end) || end > float64(maxDuration) {
		return invalid("webm: block time out of range")
	}
	f.haveBlock = true
	f.lastEndNano = max(f.lastEndNano, end)
	return nil
}

// track returns the track with the given number, or nil.
func (f *mkvFile) track(num uint64) *mkvTrack {
	for i := range f.tracks {
		if f.tracks[i].number == num {
			return &f.tracks[i]
		}
	}
	return nil
}

// parseInfo reads TimecodeScale and Duration.
func (f *mkvFile) parseInfo(s *source, info ebmlElem) error {
	return ebmlChildren(s, info, func(e ebmlElem) error {
		switch e.id {
		case idTimecodeScale:
			v, err := ebmlUint(s, e)
			if err != nil {
				return err
			}
			if v == 0 {
				return invalid("webm: zero TimecodeScale")
			}
			f.scale = v
		case idDuration:
			v, err := ebmlFloat(s, e)
			if err != nil {
				return err
			}
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return invalid("webm: bad Duration")
			}
			f.duration = v
		}
		return nil
	})
}

// parseTracks reads every TrackEntry's number, type, codec and default
// frame duration.
func (f *mkvFile) parseTracks(s *source, tracks ebmlElem) error {
	f.haveTracks = true
	return ebmlChildren(s, tracks, func(e ebmlElem) error {
		if e.id != idTrackEntry {
			return nil
		}
		if len(f.tracks) == maxTracks {
			return invalid("webm: too many tracks")
		}
		var t mkvTrack
		err := ebmlChildren(s, e, func(c ebmlElem) error {
			var err error
			switch c.id {
			case idTrackNumber:
				t.number, err = ebmlUint(s, c)
				t.defined = true
			case idTrackType:
				t.typ, err = ebmlUint(s, c)
			case idCodecID:
				t.codec, err = ebmlString(s, c)
			case idDefaultDuration:
				t.defDur, err = ebmlUint(s, c)
			}
			return err
		})
		if err != nil {
			return err
		}
		if !t.defined || t.number == 0 {
			return invalid("webm: track without a number")
		}
		f.tracks = append(f.tracks, t)
		return nil
	})
}

// ebmlChildren calls fn for each child of a known-size master element.
func ebmlChildren(s *source, parent ebmlElem, fn func(ebmlElem) error) error {
	if parent.unknown {
		return invalid("webm: master element of unknown size")
	}
	off := parent.data
	for parent.end-off >= 2 {
		if err := s.step(); err != nil {
			return err
		}
		e, err := readEBML(s, off, parent.end)
		if err != nil {
			return err
		}
		if e.unknown {
			return invalid("webm: element of unknown size")
		}
		if err := fn(e); err != nil {
			return err
		}
		off = e.end
	}
	return nil
}

// ebmlDocType returns the DocType of the EBML header.
func ebmlDocType(s *source, head ebmlElem) (string, error) {
	var doc string
	err := ebmlChildren(s, head, func(e ebmlElem) error {
		if e.id != idDocType {
			return nil
		}
		var err error
		doc, err = ebmlString(s, e)
		return err
	})
	return doc, err
}

// readEBML reads the element header at off inside a parent ending at end.
func readEBML(s *source, off, end int64) (ebmlElem, error) {
	var buf [12]byte
	n := min(int64(len(buf)), end-off)
	if n < 2 {
		return ebmlElem{}, invalid("webm: truncated element header")
	}
	if err := s.readAt(buf[:n], off); err != nil {
		return ebmlElem{}, err
	}
	p := buf[:n]
	id, il, ok := vint(p, false)
	if !ok || il > 4 {
		return ebmlElem{}, invalid("webm: bad element ID")
	}
	size, sl, ok := vint(p[il:], true)
	if !ok {
		return ebmlElem{}, invalid("webm: bad element size")
	}
	e := ebmlElem{id: uint32(id), data: off + int64(il+sl)}
	if size == 1<<(7*sl)-1 { // all value bits set: unknown size
		e.unknown, e.end = true, end
		return e, nil
	}
	if size > uint64(end-e.data) {
		return ebmlElem{}, invalid("webm: element overruns its parent")
	}
	e.end = e.data + int64(size)
	return e, nil
}

// vint decodes an EBML variable-length integer at the start of p and
// returns it with its length in bytes. With strip, the length marker is
// removed (sizes, track numbers); without it, it is kept (element IDs).
func vint(p []byte, strip bool) (uint64, int, bool) {
	if len(p) == 0 || p[0] == 0 {
		return 0, 0, false
	}
	l := bits.LeadingZeros8(p[0]) + 1
	if len(p) < l {
		return 0, 0, false
	}
	v := uint64(p[0])
	if strip {
		v &= 0xFF >> l
	}
	for _, b := range p[1:l] {
		v = v<<8 | uint64(b)
	}
	return v, l, true
}

// ebmlUint reads an unsigned integer element of up to 8 bytes.
func ebmlUint(s *source, e ebmlElem) (uint64, error) {
	n := e.end - e.data
	if n > 8 {
		return 0, invalid("webm: integer longer than 8 bytes")
	}
	var buf [8]byte
	if err := s.readAt(buf[8-n:], e.data); err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(buf[:]), nil
}

// ebmlFloat reads a float element of 0, 4 or 8 bytes.
func ebmlFloat(s *source, e ebmlElem) (float64, error) {
	var buf [8]byte
	switch n := e.end - e.data; n {
	case 0:
		return 0, nil
	case 4:
		if err := s.readAt(buf[:4], e.data); err != nil {
			return 0, err
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(buf[:4]))), nil
	case 8:
		if err := s.readAt(buf[:], e.data); err != nil {
			return 0, err
		}
		return math.Float64frombits(binary.BigEndian.Uint64(buf[:])), nil
	}
	return 0, invalid("webm: float of bad size")
}

// ebmlString reads a string element, trimmed at the first NUL. A string
// longer than maxStringSize reads as "" (no codec or DocType we accept is
// that long).
func ebmlString(s *source, e ebmlElem) (string, error) {
	n := e.end - e.data
	if n > maxStringSize {
		return "", nil
	}
	var buf [maxStringSize]byte
	if err := s.readAt(buf[:n], e.data); err != nil {
		return "", err
	}
	p := buf[:n]
	for i, c := range p {
		if c == 0 {
			p = p[:i]
			break
		}
	}
	return string(p), nil
}

// isGlobal reports the elements allowed anywhere: Void and CRC-32.
func isGlobal(id uint32) bool { return id == 0xEC || id == 0xBF }

// isSegmentLevel reports IDs that end an unknown-size Cluster.
func isSegmentLevel(id uint32) bool {
	switch id {
	case idCluster, idInfo, idTracks, idCues, idTags, idChapters,
		idAttachments, idSeekHead, idEBML, idSegment:
		return true
	}
	return false
}

// opusPacketNanos returns the length of an Opus packet from its TOC byte
// (RFC 6716 section 3.1), or 0 when p is too short or the packet invalid.
func opusPacketNanos(p []byte) int64 {
	if len(p) == 0 {
		return 0
	}
	toc := p[0]
	config := toc >> 3
	var frame int64 // µs
	switch {
	case config < 12: // SILK: 10, 20, 40, 60 ms
		frame = [4]int64{10_000, 20_000, 40_000, 60_000}[config&3]
	case config < 16: // hybrid: 10, 20 ms
		frame = [2]int64{10_000, 20_000}[config&1]
	default: // CELT: 2.5, 5, 10, 20 ms
		frame = [4]int64{2_500, 5_000, 10_000, 20_000}[config&3]
	}
	var frames int64
	switch toc & 3 {
	case 0:
		frames = 1
	case 1, 2:
		frames = 2
	default:
		if len(p) < 2 {
			return 0
		}
		frames = int64(p[1] & 0x3F)
	}
	total := frame * frames
	if total > 120_000 { // RFC 6716: a packet holds at most 120 ms
		return 0
	}
	return total * int64(time.Microsecond)
}

// mkvCodec names a Matroska CodecID, or "" when unknown.
func mkvCodec(id string) string {
	switch id {
	case "V_VP8":
		return "vp8"
	case "V_VP9":
		return "vp9"
	case "V_AV1":
		return "av1"
	case "V_MPEG4/ISO/AVC":
		return "h264"
	case "V_MPEGH/ISO/HEVC":
		return "hevc"
	case "A_OPUS":
		return "opus"
	case "A_VORBIS":
		return "vorbis"
	}
	return ""
}
