package probe

import (
	"bytes"
	"encoding/binary"
	"time"
)

// MP3 (MPEG-1/2/2.5 Layer III): optional ID3v2 tags, then frames, each with
// a 4-byte header giving its length. The first frame of a VBR file usually
// carries a Xing/Info or VBRI header with the frame count; without one the
// frames are walked (bounded by maxSteps), and if the walk breaks on
// garbage the length is estimated from the first frame's bitrate and the
// file size.

const (
	// mp3MaxID3 caps the ID3v2 tags skipped at the start.
	mp3MaxID3 = 8
	// mp3SyncWindow is how far past the tags the first frame is looked for.
	mp3SyncWindow = 4 << 10
	// mp3ChainFrames is how many consecutive frames must follow each other
	// for the data to count as MP3 (fewer when the file ends sooner).
	mp3ChainFrames = 3
)

// mp3Frame is a parsed frame header.
type mp3Frame struct {
	mpeg1   bool
	rate    int // samples per second
	bitrate int // bits per second
	length  int // bytes, header included
	samples int // per frame
	mono    bool
}

// parseMP3Frame parses a Layer III frame header; free-format and reserved
// values are refused.
func parseMP3Frame(h []byte) (mp3Frame, bool) {
	if len(h) < 4 || h[0] != 0xFF || h[1]&0xE0 != 0xE0 {
		return mp3Frame{}, false
	}
	version := (h[1] >> 3) & 3
	layer := (h[1] >> 1) & 3
	brIndex := h[2] >> 4
	srIndex := (h[2] >> 2) & 3
	if version == 1 || layer != 1 || srIndex == 3 || h[3]&3 == 2 {
		return mp3Frame{}, false
	}
	// Sample rates by version bits (00 MPEG-2.5, 10 MPEG-2, 11 MPEG-1) and
	// Layer III bitrates in kbit/s by index.
	rates := [4][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}}
	bitrates1 := [16]int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0}
	bitrates2 := [16]int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0}
	f := mp3Frame{mpeg1: version == 3, rate: rates[version][srIndex], mono: h[3]>>6 == 3}
	kbps := bitrates2[brIndex]
	f.samples = 576
	if f.mpeg1 {
		kbps = bitrates1[brIndex]
		f.samples = 1152
	}
	if kbps == 0 {
		return mp3Frame{}, false
	}
	f.bitrate = kbps * 1000
	f.length = f.samples/8*f.bitrate/f.rate + int(h[2]>>1&1)
	return f, true
}

func probeMP3(s *source) (Result, error) {
	start, err := skipID3(s)
	if err != nil {
		return Result{}, err
	}
	off, first, err := findFrames(s, start)
	if err != nil {
		return Result{}, err
	}
	d, err := mp3Duration(s, off, first)
	if err != nil {
		return Result{}, err
	}
	return Result{
		Container: ContainerMP3,
		MIME:      "audio/mpeg",
		Duration:  d,
		HasAudio:  true,
		Codec:     "mp3",
	}, nil
}

// skipID3 returns the offset after the ID3v2 tags at the start of the file.
func skipID3(s *source) (int64, error) {
	var off int64
	for range mp3MaxID3 {
		var h [10]byte
		n, err := s.readUpTo(h[:], off)
		if err != nil {
			return 0, err
		}
		if n < 10 || !bytes.HasPrefix(h[:], []byte("ID3")) {
			return off, nil
		}
		if h[3] == 0xFF || h[4] == 0xFF || (h[6]|h[7]|h[8]|h[9])&0x80 != 0 {
			return 0, invalid("mp3: bad ID3v2 tag")
		}
		size := int64(h[6])<<21 | int64(h[7])<<14 | int64(h[8])<<7 | int64(h[9])
		off += 10 + size
		if h[5]&0x10 != 0 { // footer present
			off += 10
		}
		if off > s.size {
			return 0, invalid("mp3: ID3v2 tag overruns the file")
		}
	}
	return 0, invalid("mp3: too many ID3v2 tags")
}

// findFrames finds, within mp3SyncWindow of start, the first position where
// mp3ChainFrames frames follow each other (or run to the end of the file).
func findFrames(s *source, start int64) (int64, mp3Frame, error) {
	limit := min(start+mp3SyncWindow, s.size-4)
	for off := start; off <= limit; off++ {
		var h [4]byte
		if err := s.readAt(h[:], off); err != nil {
			return 0, mp3Frame{}, err
		}
		f, ok := parseMP3Frame(h[:])
		if !ok {
			continue
		}
		ok, err := mp3Chain(s, off, f)
		if err != nil {
			return 0, mp3Frame{}, err
		}
		if ok {
			return off, f, nil
		}
	}
	return 0, mp3Frame{}, invalid("mp3: no frames found")
}

// mp3Chain reports whether the frame at off is followed by enough frames of
// the same version and sample rate, or by the end of the audio.
func mp3Chain(s *source, off int64, f mp3Frame) (bool, error) {
	for range mp3ChainFrames - 1 {
		if err := s.step(); err != nil {
			return false, err
		}
		off += int64(f.length)
		if off > s.size {
			return false, nil
		}
		next, ok, err := mp3FrameAt(s, off)
		if err != nil {
			return false, err
		}
		if !ok {
			return mp3TagOrEnd(s, off)
		}
		if next.mpeg1 != f.mpeg1 || next.rate != f.rate {
			return false, nil
		}
		f = next
	}
	return true, nil
}

// mp3FrameAt parses the frame header at off, if there is room for one.
func mp3FrameAt(s *source, off int64) (mp3Frame, bool, error) {
	var h [4]byte
	n, err := s.readUpTo(h[:], off)
	if err != nil || n < 4 {
		return mp3Frame{}, false, err
	}
	f, ok := parseMP3Frame(h[:])
	return f, ok, nil
}

// mp3TagOrEnd reports whether off is the end of the file or the start of a
// trailing tag (ID3v1, APEv2, ID3v2 appended), i.e. a clean end of frames.
func mp3TagOrEnd(s *source, off int64) (bool, error) {
	var h [8]byte
	n, err := s.readUpTo(h[:], off)
	if err != nil {
		return false, err
	}
	t := h[:n]
	return n == 0 || bytes.HasPrefix(t, []byte("TAG")) || bytes.HasPrefix(t, []byte("APETAGEX")) ||
		bytes.HasPrefix(t, []byte("ID3")), nil
}

// mp3Duration reads a Xing/Info or VBRI frame count from the first frame,
// else walks the frames.
func mp3Duration(s *source, off int64, f mp3Frame) (time.Duration, error) {
	if frames, ok, err := vbrFrames(s, off, f); err != nil || ok {
		if err != nil {
			return 0, err
		}
		return seconds(frames*uint64(f.samples), uint64(f.rate))
	}
	var samples uint64
	first := f
	pos := off
	for {
		if err := s.step(); err != nil {
			return 0, err
		}
		if pos+int64(f.length) > s.size { // a cut last frame is not counted
			break
		}
		samples += uint64(f.samples)
		pos += int64(f.length)
		next, ok, err := mp3FrameAt(s, pos)
		if err != nil {
			return 0, err
		}
		if !ok {
			clean, err := mp3TagOrEnd(s, pos)
			if err != nil {
				return 0, err
			}
			if !clean { // garbage inside: estimate from the bitrate instead
				return seconds(uint64(s.size-off)*8, uint64(first.bitrate))
			}
			break
		}
		f = next
	}
	return seconds(samples, uint64(first.rate))
}

// vbrFrames reads the frame count of a Xing/Info or VBRI header in the frame
// at off. The count excludes that first frame, which holds no audio.
func vbrFrames(s *source, off int64, f mp3Frame) (uint64, bool, error) {
	side := 17
	switch {
	case f.mpeg1 && !f.mono:
		side = 32
	case !f.mpeg1 && f.mono:
		side = 9
	}
	var h [12]byte
	n, err := s.readUpTo(h[:], off+4+int64(side))
	if err != nil {
		return 0, false, err
	}
	if n == 12 && (bytes.HasPrefix(h[:], []byte("Xing")) || bytes.HasPrefix(h[:], []byte("Info"))) {
		if binary.BigEndian.Uint32(h[4:8])&1 != 0 { // frames field present
			return uint64(binary.BigEndian.Uint32(h[8:12])), true, nil
		}
		return 0, false, nil
	}
	var v [18]byte
	n, err = s.readUpTo(v[:], off+4+32)
	if err != nil {
		return 0, false, err
	}
	if n == 18 && bytes.HasPrefix(v[:], []byte("VBRI")) {
		return uint64(binary.BigEndian.Uint32(v[14:18])), true, nil
	}
	return 0, false, nil
}
