package probe_test

import (
	"bytes"
	"math/rand/v2"
)

// Fixtures built with the writers. Each comment states the duration the
// fields encode, which the tests expect.

// mp4MoovAtEnd is a phone-style MP4: ftyp, free, mdat, then moov (2.5 s).
func mp4MoovAtEnd() []byte {
	return cat(
		ftyp("isom", "isom", "iso2", "avc1", "mp41"),
		box("free"),
		box("mdat", bytes.Repeat([]byte{0xAB}, 1000)),
		box("moov",
			timedBox("mvhd", 0, 1000, 2500),
			trak(1, "vide", "avc1", 12800, 32000),
			trak(2, "soun", "mp4a", 44100, 110250)))
}

// movIPhone is an iPhone-style MOV: ftyp "qt  ", wide, mdat, moov with HEVC
// video, AAC sound and a metadata track (3 s at timescale 600).
func movIPhone() []byte {
	return cat(
		ftyp("qt  ", "qt  "),
		box("wide"),
		box("mdat", bytes.Repeat([]byte{0x11}, 2000)),
		box("moov",
			timedBox("mvhd", 0, 600, 1800),
			trak(1, "vide", "hvc1", 600, 1800),
			trak(2, "soun", "mp4a", 44100, 132300),
			trak(3, "meta", "mebx", 600, 1800),
			box("udta", box("meta"), be32(0)))) // QuickTime's zero terminator
}

// mp4Version1 has a largesize mdat and version-1 mvhd and mdhd with 64-bit
// fields (4.5 s at 90 kHz).
func mp4Version1() []byte {
	v1trak := box("trak", tkhd(1), box("mdia",
		timedBox("mdhd", 1, 90000, 405000), hdlr("vide"),
		box("minf", box("stbl", stsd("avc1")))))
	return cat(
		ftyp("mp42", "mp42", "isom"),
		largeBox("mdat", bytes.Repeat([]byte{0x22}, 500)),
		box("moov", timedBox("mvhd", 1, 90000, 405000), v1trak))
}

// mp4MdatToEnd has moov first and an mdat of size 0 running to the end of
// the file (1.2 s).
func mp4MdatToEnd() []byte {
	return cat(
		ftyp("isom"),
		box("moov", timedBox("mvhd", 0, 1000, 1200), trak(1, "vide", "av01", 1000, 1200)),
		toEndBox("mdat", bytes.Repeat([]byte{0x33}, 700)))
}

// mp4MdhdOnly leaves mvhd's duration unknown (all ones); the video track's
// mdhd gives 7 s.
func mp4MdhdOnly() []byte {
	return cat(
		ftyp("isom"),
		box("moov", timedBox("mvhd", 0, 1000, 0xFFFFFFFF), trak(1, "vide", "avc1", 48000, 7*48000)),
		box("mdat"))
}

// mp4Fragmented is a fragmented MP4 as MediaRecorder and streaming muxers
// write it: durations in moov are 0, trex gives a default sample duration,
// and two fragments hold 30 samples with their own durations and 45 with
// tfhd's default: (30+45)×3000 ticks at 90 kHz = 2.5 s.
func mp4Fragmented() []byte {
	trun1 := fullBox("trun", 0, 0x000301, be32(30), be32(0), bytes.Repeat(cat(be32(3000), be32(100)), 30))
	trun2 := fullBox("trun", 0, 0x000001, be32(45), be32(0))
	return cat(
		ftyp("iso5", "iso5", "iso6", "mp41"),
		box("moov",
			timedBox("mvhd", 0, 1000, 0),
			trak(1, "vide", "avc1", 90000, 0),
			box("mvex", fullBox("trex", 0, 0, be32(1), be32(1), be32(1234), be32(0), be32(0)))),
		box("moof",
			fullBox("mfhd", 0, 0, be32(1)),
			box("traf",
				fullBox("tfhd", 0, 0x020000, be32(1)),
				fullBox("tfdt", 1, 0, be64(0)),
				trun1)),
		box("mdat", make([]byte, 3000)),
		box("moof",
			fullBox("mfhd", 0, 0, be32(2)),
			box("traf",
				fullBox("tfhd", 0, 0x020008, be32(1), be32(3000)),
				fullBox("tfdt", 1, 0, be64(90000)),
				trun2)),
		box("mdat", make([]byte, 4500)))
}

// m4aSafari is an audio-only MP4 with one AAC track (4.2 s).
func m4aSafari() []byte {
	return cat(
		ftyp("M4A ", "M4A ", "mp42", "isom"),
		box("mdat", make([]byte, 800)),
		box("moov", timedBox("mvhd", 0, 1000, 4200), trak(1, "soun", "mp4a", 44100, 185220)))
}

// m4aFragmented is a fragmented audio-only MP4 whose fragments carry no
// tfdt: three runs of 47 AAC frames of trex's 1024 samples at 48 kHz sum to
// 141×1024/48000 s = 3.008 s.
func m4aFragmented() []byte {
	frag := func(seq uint32) []byte {
		return cat(box("moof",
			fullBox("mfhd", 0, 0, be32(seq)),
			box("traf",
				fullBox("tfhd", 0, 0x020000, be32(1)),
				fullBox("trun", 0, 0x000201, be32(47), be32(0), bytes.Repeat(be32(300), 47)))),
			box("mdat", make([]byte, 47*300)))
	}
	return cat(
		ftyp("iso5", "iso6", "mp41"),
		box("moov",
			timedBox("mvhd", 0, 1000, 0),
			trak(1, "soun", "mp4a", 48000, 0),
			box("mvex", fullBox("trex", 0, 0, be32(1), be32(1), be32(1024), be32(0), be32(0)))),
		frag(1), frag(2), frag(3))
}

// webmMediaRecorder is laid out as Chrome's MediaRecorder writes: an
// unknown-size Segment, Info without Duration, Opus and VP8 tracks, and
// unknown-size Clusters. The last Opus block starts at 2000+480 ms and
// lasts 20 ms (its TOC byte), so the file plays 2.5 s.
func webmMediaRecorder() []byte {
	cluster := func(tc uint64, last bool) []byte {
		var blocks []byte
		for rel := int16(0); rel < 1000; rel += 20 {
			if last && rel > 480 {
				break
			}
			blocks = cat(blocks, simpleBlock(1, rel, opus20ms, 0xAA, 0xBB))
			if rel%100 == 0 && !(last && rel > 466) {
				blocks = cat(blocks, simpleBlock(2, rel, vp8FrameFirst, 0x9D, 0x01, 0x2A))
			}
		}
		if last {
			blocks = cat(blocks, simpleBlock(2, 466, vp8FrameFirst, 0x9D, 0x01, 0x2A))
		}
		return unknownElem(eCluster, uintElem(eTimecode, tc), blocks)
	}
	return cat(
		ebmlHeader("webm"),
		unknownElem(eSegment,
			elem(eInfo, uintElem(eScale, 1_000_000), stringElem(eMuxingApp, "Chrome"), stringElem(0x5741, "Chrome")),
			elem(eTracks,
				trackEntry(1, trackAudio, "A_OPUS", elem(0xE1, floatElem(0xB5, 48000), uintElem(0x9F, 1))),
				trackEntry(2, trackVideo, "V_VP8", elem(0xE0, uintElem(0xB0, 160), uintElem(0xBA, 120)))),
			cluster(0, false), cluster(1000, false), cluster(2000, true)))
}

// webmWithDuration has known sizes throughout and Info's Duration of
// 3250 ms; its one cluster is shorter, which proves Duration is used.
func webmWithDuration() []byte {
	return cat(
		ebmlHeader("webm"),
		elem(eSegment,
			elem(eSeekHead, elem(0x4DBB, elem(0x53AB, be32(eInfo)), uintElem(0x53AC, 40))),
			elem(eVoid, make([]byte, 20)),
			elem(eInfo, uintElem(eScale, 1_000_000), floatElem(eDuration, 3250)),
			elem(eTracks, trackEntry(1, trackVideo, "V_VP9")),
			elem(eCluster, uintElem(eTimecode, 0), simpleBlock(1, 0, 0x82, 0x49, 0x83)),
			elem(eCues, elem(0xBB, uintElem(0xB3, 0)))))
}

// webmBlockGroups uses a 0.5 ms TimecodeScale, BlockGroups with a
// BlockDuration, and a track DefaultDuration: the group at 4000+1000 ticks
// lasting 200 ticks ends at 2.6 s.
func webmBlockGroups() []byte {
	return cat(
		ebmlHeader("webm"),
		unknownElem(eSegment,
			elem(eInfo, uintElem(eScale, 500_000)),
			elem(eTracks, trackEntry(1, trackVideo, "V_VP8", uintElem(eDefaultDur, 40_000_000))),
			elem(eCluster, uintElem(eTimecode, 0), simpleBlock(1, 0, vp8FrameFirst), simpleBlock(1, 80, 0x11)),
			elem(eCluster, uintElem(eTimecode, 4000),
				elem(eBlockGroup, elem(eBlock, []byte{0x81}, be16(1000), []byte{0}, []byte{0x11}), uintElem(eBlockDur, 200)))))
}

// webmAudioOnly is a MediaRecorder voice note: Opus only, Blocks every
// 20 ms, the last one a 60 ms SILK packet at 1720 ms: 1.78 s.
func webmAudioOnly() []byte {
	var c1, c2 []byte
	for rel := int16(0); rel < 1000; rel += 20 {
		c1 = cat(c1, simpleBlock(1, rel, opus20ms, 1))
	}
	for rel := int16(0); rel < 720; rel += 20 {
		c2 = cat(c2, simpleBlock(1, rel, opus20ms, 1))
	}
	c2 = cat(c2, simpleBlock(1, 720, opus60msSilk, 1))
	return cat(
		ebmlHeader("webm"),
		unknownElem(eSegment,
			elem(eInfo, uintElem(eScale, 1_000_000), stringElem(eMuxingApp, "Chrome")),
			elem(eTracks, trackEntry(1, trackAudio, "A_OPUS")),
			unknownElem(eCluster, uintElem(eTimecode, 0), c1),
			unknownElem(eCluster, uintElem(eTimecode, 1000), c2)))
}

// oggVoice is an Ogg Opus file with a 312-sample pre-skip whose last page
// has granule 120312: 120000 samples at 48 kHz = 2.5 s.
func oggVoice() []byte { return oggOpus(312, 48312, 96312, 120312) }

// mp3Plain is 100 CBR frames with no header: 100×1152/44100 s.
func mp3Plain() []byte { return mp3CBR(100) }

// mp3Xing has an ID3v2 tag, then a Xing frame counting 200 frames, though
// only 5 follow: the header wins (200×1152/44100 s).
func mp3Xing() []byte { return cat(id3v2(1000), xingFrame("Xing", 200), mp3CBR(5)) }

// mp3Info is a LAME CBR file: an Info frame counting the 50 frames after it.
func mp3Info() []byte { return cat(xingFrame("Info", 50), mp3CBR(50)) }

// mp3VBRI has a Fraunhofer VBRI header counting 300 frames.
func mp3VBRI() []byte { return cat(vbriFrame(300), mp3CBR(3)) }

// mp3MixedWalk is VBR without a header: 20 frames at 128 kbit/s and 20 at
// 64 kbit/s, then an ID3v1 tag. It is walked: 40×1152/44100 s.
func mp3MixedWalk() []byte {
	var out []byte
	for i := range 40 {
		if i%2 == 0 {
			out = cat(out, mp3Frame(mp3Header128, mp3Len128))
		} else {
			out = cat(out, mp3Frame(mp3Header64, mp3Len64))
		}
	}
	return cat(out, []byte("TAG"), make([]byte, 125))
}

// garbage is deterministic noise.
func garbage(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// seeds are every fixture, for the fuzzers.
func seeds() [][]byte {
	return [][]byte{
		mp4MoovAtEnd(), movIPhone(), mp4Version1(), mp4MdatToEnd(), mp4MdhdOnly(), mp4Fragmented(),
		m4aSafari(), m4aFragmented(), webmMediaRecorder(), webmWithDuration(), webmBlockGroups(),
		webmAudioOnly(), oggVoice(), mp3Plain(), mp3Xing(), mp3Info(), mp3VBRI(), mp3MixedWalk(),
		garbage(512), nil,
	}
}
