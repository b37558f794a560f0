package probe_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/probe"
)

// probeBytes runs fn on an in-memory file with a deadline.
func probeBytes(t *testing.T, fn func(context.Context, io.ReaderAt, int64) (probe.Result, error), b []byte) (probe.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return fn(ctx, bytes.NewReader(b), int64(len(b)))
}

// mp3Seconds is the length of n MPEG-1 frames at 44.1 kHz.
func mp3Seconds(n int) time.Duration {
	return time.Duration(float64(n) * 1152 / 44100 * float64(time.Second))
}

func TestVideoAcceptsVideoContainers(t *testing.T) {
	tests := []struct {
		name string
		file []byte
		want probe.Result
	}{
		{"an MP4 with moov at the end reports 2.5 s of H.264 with sound", mp4MoovAtEnd(),
			probe.Result{Container: "mp4", MIME: "video/mp4", Duration: 2500 * time.Millisecond, HasVideo: true, HasAudio: true, Codec: "h264"}},
		{"an iPhone-style MOV is served as QuickTime", movIPhone(),
			probe.Result{Container: "mov", MIME: "video/quicktime", Duration: 3 * time.Second, HasVideo: true, HasAudio: true, Codec: "hevc"}},
		{"version-1 headers and a largesize mdat are read", mp4Version1(),
			probe.Result{Container: "mp4", MIME: "video/mp4", Duration: 4500 * time.Millisecond, HasVideo: true, Codec: "h264"}},
		{"an mdat running to the end of the file is skipped", mp4MdatToEnd(),
			probe.Result{Container: "mp4", MIME: "video/mp4", Duration: 1200 * time.Millisecond, HasVideo: true, Codec: "av1"}},
		{"an unknown movie duration falls back to the track's mdhd", mp4MdhdOnly(),
			probe.Result{Container: "mp4", MIME: "video/mp4", Duration: 7 * time.Second, HasVideo: true, Codec: "h264"}},
		{"a fragmented MP4 is timed from its fragments", mp4Fragmented(),
			probe.Result{Container: "mp4", MIME: "video/mp4", Duration: 2500 * time.Millisecond, HasVideo: true, Codec: "h264"}},
		{"a MediaRecorder WebM without Duration is timed from its clusters", webmMediaRecorder(),
			probe.Result{Container: "webm", MIME: "video/webm", Duration: 2500 * time.Millisecond, HasVideo: true, HasAudio: true, Codec: "vp8"}},
		{"a WebM with an Info Duration uses it", webmWithDuration(),
			probe.Result{Container: "webm", MIME: "video/webm", Duration: 3250 * time.Millisecond, HasVideo: true, Codec: "vp9"}},
		{"WebM BlockGroups add their BlockDuration under a custom TimecodeScale", webmBlockGroups(),
			probe.Result{Container: "webm", MIME: "video/webm", Duration: 2600 * time.Millisecond, HasVideo: true, Codec: "vp8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := probeBytes(t, probe.Video, tt.file)
			if err != nil {
				t.Fatalf("Video: %v", err)
			}
			if got != tt.want {
				t.Errorf("Video =\n%+v, want\n%+v", got, tt.want)
			}
		})
	}
}

func TestAudioAcceptsVoiceNotes(t *testing.T) {
	tests := []struct {
		name string
		file []byte
		want probe.Result
	}{
		{"an audio-only MP4 as Safari records is AAC in m4a", m4aSafari(),
			probe.Result{Container: "m4a", MIME: "audio/mp4", Duration: 4200 * time.Millisecond, HasAudio: true, Codec: "aac"}},
		{"a fragmented audio MP4 is timed from its runs", m4aFragmented(),
			probe.Result{Container: "m4a", MIME: "audio/mp4", Duration: 3008 * time.Millisecond, HasAudio: true, Codec: "aac"}},
		{"a MediaRecorder WebM Opus note ends with its last packet", webmAudioOnly(),
			probe.Result{Container: "webm", MIME: "audio/webm", Duration: 1780 * time.Millisecond, HasAudio: true, Codec: "opus"}},
		{"an Ogg Opus note subtracts the pre-skip from the last granule", oggVoice(),
			probe.Result{Container: "ogg", MIME: "audio/ogg", Duration: 2500 * time.Millisecond, HasAudio: true, Codec: "opus"}},
		{"a headerless CBR MP3 is counted frame by frame", mp3Plain(),
			probe.Result{Container: "mp3", MIME: "audio/mpeg", Duration: mp3Seconds(100), HasAudio: true, Codec: "mp3"}},
		{"a VBR MP3 after an ID3v2 tag uses its Xing frame count", mp3Xing(),
			probe.Result{Container: "mp3", MIME: "audio/mpeg", Duration: mp3Seconds(200), HasAudio: true, Codec: "mp3"}},
		{"a LAME CBR MP3 uses its Info frame count", mp3Info(),
			probe.Result{Container: "mp3", MIME: "audio/mpeg", Duration: mp3Seconds(50), HasAudio: true, Codec: "mp3"}},
		{"a Fraunhofer MP3 uses its VBRI frame count", mp3VBRI(),
			probe.Result{Container: "mp3", MIME: "audio/mpeg", Duration: mp3Seconds(300), HasAudio: true, Codec: "mp3"}},
		{"a VBR MP3 without a header is walked up to its ID3v1 tag", mp3MixedWalk(),
			probe.Result{Container: "mp3", MIME: "audio/mpeg", Duration: mp3Seconds(40), HasAudio: true, Codec: "mp3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := probeBytes(t, probe.Audio, tt.file)
			if err != nil {
				t.Fatalf("Audio: %v", err)
			}
			if got != tt.want {
				t.Errorf("Audio =\n%+v, want\n%+v", got, tt.want)
			}
		})
	}
}

func TestMP3WithGarbageInsideIsEstimatedFromItsBitrate(t *testing.T) {
	file := cat(mp3CBR(20), garbage(500), mp3CBR(20))
	got, err := probeBytes(t, probe.Audio, file)
	if err != nil {
		t.Fatalf("Audio: %v", err)
	}
	want := time.Duration(float64(len(file)) * 8 / 128000 * float64(time.Second))
	if diff := (got.Duration - want).Abs(); diff > time.Millisecond {
		t.Errorf("duration %v, want the CBR estimate %v", got.Duration, want)
	}
}

func TestVideoRefuses(t *testing.T) {
	moovAtEnd := mp4MoovAtEnd()
	withDuration := webmWithDuration()
	tests := []struct {
		name string
		file []byte
	}{
		{"an empty file", nil},
		{"random bytes", garbage(4096)},
		{"plain text", []byte("hello, this is not a video at all")},
		{"a JPEG", cat([]byte{0xFF, 0xD8, 0xFF, 0xE0}, garbage(200))},
		{"an audio-only MP4", m4aSafari()},
		{"a WebM with only an Opus track", webmAudioOnly()},
		{"an Ogg Opus file", oggVoice()},
		{"an MP3", mp3Plain()},
		{"an MP4 cut before its moov", moovAtEnd[:len(moovAtEnd)/2]},
		{"an MP4 missing its last byte", moovAtEnd[:len(moovAtEnd)-1]},
		{"an MP4 whose first box is not ftyp", cat(box("moov", timedBox("mvhd", 0, 1000, 1000), trak(1, "vide", "avc1", 1000, 1000)))},
		{"an MP4 with a box larger than the file", cat(ftyp("isom"), be32(0x7FFFFFFF), []byte("mdat"), make([]byte, 100))},
		{"an MP4 with a largesize beyond the file", cat(ftyp("isom"), be32(1), []byte("mdat"), be64(1<<62), make([]byte, 100))},
		{"an MP4 with a box smaller than its header", cat(ftyp("isom"), be32(4), []byte("free"), make([]byte, 100))},
		{"an MP4 with a zero timescale", cat(ftyp("isom"), box("moov", timedBox("mvhd", 0, 0, 1000), trak(1, "vide", "avc1", 0, 1000)))},
		{"an MP4 with no duration anywhere", cat(ftyp("isom"), box("moov", timedBox("mvhd", 0, 1000, 0), trak(1, "vide", "avc1", 1000, 0)))},
		{"an MP4 lasting longer than the probe believes", cat(ftyp("isom"), box("moov", timedBox("mvhd", 1, 1, 1<<40), trak(1, "vide", "avc1", 1, 1)))},
		{"an MP4 with two moov boxes", cat(ftyp("isom"), box("moov", timedBox("mvhd", 0, 1000, 10), trak(1, "vide", "avc1", 1, 1)), box("moov"))},
		{"a Matroska file that is not WebM", cat(ebmlHeader("matroska"), withDuration[len(ebmlHeader("webm")):])},
		{"a WebM cut inside a known-size element", withDuration[:len(withDuration)-10]},
		{"a WebM whose Cluster comes before Tracks", cat(ebmlHeader("webm"), unknownElem(eSegment,
			elem(eInfo, uintElem(eScale, 1_000_000)), unknownElem(eCluster, uintElem(eTimecode, 0), simpleBlock(1, 0, 1)),
			elem(eTracks, trackEntry(1, trackVideo, "V_VP8"))))},
		{"a WebM with an unknown-size Tracks", cat(ebmlHeader("webm"), unknownElem(eSegment,
			unknownElem(eTracks, trackEntry(1, trackVideo, "V_VP8"))))},
		{"a WebM with a block before the cluster Timecode", cat(ebmlHeader("webm"), unknownElem(eSegment,
			elem(eTracks, trackEntry(1, trackVideo, "V_VP8")), unknownElem(eCluster, simpleBlock(1, 0, 1))))},
		{"a WebM with neither Duration nor blocks", cat(ebmlHeader("webm"), unknownElem(eSegment,
			elem(eTracks, trackEntry(1, trackVideo, "V_VP8"))))},
		{"a WebM with a NaN Duration", cat(ebmlHeader("webm"), unknownElem(eSegment,
			elem(eInfo, elem(eDuration, []byte{0x7F, 0xF8, 0, 0, 0, 0, 0, 1})), elem(eTracks, trackEntry(1, trackVideo, "V_VP8"))))},
		{"a WebM with a zero TimecodeScale", cat(ebmlHeader("webm"), unknownElem(eSegment,
			elem(eInfo, uintElem(eScale, 0)), elem(eTracks, trackEntry(1, trackVideo, "V_VP8"))))},
		{"a WebM with an element ID of five bytes", cat(ebmlHeader("webm"), unknownElem(eSegment, []byte{0x08, 1, 2, 3, 4, 0x81, 0}))},
		{"a WebM whose EBML header claims more than the file", cat([]byte{0x1A, 0x45, 0xDF, 0xA3, 0x01, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := probeBytes(t, probe.Video, tt.file)
			if !errors.Is(err, probe.ErrInvalid) {
				t.Fatalf("Video = %+v, %v; want ErrInvalid", got, err)
			}
			t.Log(err)
		})
	}
}

func TestAudioRefuses(t *testing.T) {
	ogg := oggVoice()
	badCRC := bytes.Clone(ogg)
	badCRC[len(badCRC)-1] ^= 0xFF
	tests := []struct {
		name string
		file []byte
	}{
		{"an empty file", nil},
		{"random bytes", garbage(4096)},
		{"plain text", []byte("ID3 is not enough to be an MP3 file")},
		{"a video MP4", mp4MoovAtEnd()},
		{"a video WebM", webmMediaRecorder()},
		{"an M4A with Apple Lossless", cat(ftyp("M4A "), box("moov", timedBox("mvhd", 0, 1000, 1000), trak(1, "soun", "alac", 44100, 44100)))},
		{"an MP4 with no tracks", cat(ftyp("M4A "), box("moov", timedBox("mvhd", 0, 1000, 1000)))},
		{"a WebM with Vorbis instead of Opus", cat(ebmlHeader("webm"), unknownElem(eSegment,
			elem(eTracks, trackEntry(1, trackAudio, "A_VORBIS")), unknownElem(eCluster, uintElem(eTimecode, 0), simpleBlock(1, 0, 1))))},
		{"an Ogg file with a corrupted last page", badCRC},
		{"an Ogg file cut inside its last page", ogg[:len(ogg)-7]},
		{"an Ogg file with only its header pages", oggOpus(312)[:len(oggPage(0x02, 0, 0x1234, 0, opusHead(312)))]},
		{"an Ogg Vorbis file", cat(oggPage(0x02, 0, 7, 0, cat([]byte("\x01vorbis"), make([]byte, 22))), oggPage(0x04, 4800, 7, 1, []byte{1}))},
		{"an Ogg file with a second stream", cat(oggPage(0x02, 0, 7, 0, opusHead(312)), oggPage(0x02, 0, 8, 0, []byte("\x80theora")),
			oggPage(0x04, 48312, 7, 1, []byte{opus20ms}))},
		{"an Ogg file whose last page belongs to another stream", cat(oggPage(0x02, 0, 7, 0, opusHead(312)), oggPage(0, 0, 7, 1, opusTags()),
			oggPage(0x04, 48312, 9, 2, []byte{opus20ms}))},
		{"an MP3 frame followed by garbage", cat(mp3Frame(mp3Header128, mp3Len128), garbage(1000))},
		{"free-format MP3 frames", bytes.Repeat(mp3Frame(0xFFFB0040, 400), 10)},
		{"MPEG Layer II frames", bytes.Repeat(mp3Frame(0xFFFD9040, 417), 10)},
		{"an ID3v2 tag larger than the file", cat(id3v2(0)[:6], []byte{0x7F, 0x7F, 0x7F, 0x7F}, mp3CBR(3))},
		{"an ID3v2 tag with an invalid size", cat([]byte("ID3\x04\x00\x00\x80\x00\x00\x00"), mp3CBR(3))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := probeBytes(t, probe.Audio, tt.file)
			if !errors.Is(err, probe.ErrInvalid) {
				t.Fatalf("Audio = %+v, %v; want ErrInvalid", got, err)
			}
			t.Log(err)
		})
	}
}

// failingReader fails every read after the first n bytes.
type failingReader struct {
	r io.ReaderAt
	n int64
}

var errDisk = errors.New("disk on fire")

func (f failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.n {
		return 0, errDisk
	}
	return f.r.ReadAt(p, off)
}

// boundedReader fails the test if the probe reads past size.
type boundedReader struct {
	t    *testing.T
	r    io.ReaderAt
	size int64
}

func (b boundedReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > b.size {
		b.t.Errorf("read of %d bytes at %d past size %d", len(p), off, b.size)
	}
	return b.r.ReadAt(p, off)
}

func TestErrorsThatAreNotAboutTheFile(t *testing.T) {
	file := mp4MoovAtEnd()
	t.Run("a failing reader's error is returned, not ErrInvalid", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := probe.Video(ctx, failingReader{bytes.NewReader(file), 100}, int64(len(file)))
		if !errors.Is(err, errDisk) || errors.Is(err, probe.ErrInvalid) {
			t.Fatalf("Video = %v, want the reader's error", err)
		}
	})
	t.Run("a cancelled context stops the probe", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := probe.Audio(ctx, bytes.NewReader(file), int64(len(file)))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Audio = %v, want context.Canceled", err)
		}
	})
	t.Run("a negative size is invalid", func(t *testing.T) {
		_, err := probe.Video(context.Background(), bytes.NewReader(file), -1)
		if !errors.Is(err, probe.ErrInvalid) {
			t.Fatalf("Video = %v, want ErrInvalid", err)
		}
	})
	t.Run("a size larger than the reader is invalid", func(t *testing.T) {
		_, err := probe.Video(context.Background(), bytes.NewReader(file), int64(len(file))+100)
		if !errors.Is(err, probe.ErrInvalid) {
			t.Fatalf("Video = %v, want ErrInvalid", err)
		}
	})
	t.Run("bytes past size are never read", func(t *testing.T) {
		for i, f := range seeds() {
			padded := cat(f, garbage(100))
			r := boundedReader{t: t, r: bytes.NewReader(padded), size: int64(len(f))}
			_, _ = probe.Video(context.Background(), r, int64(len(f)))
			_, _ = probe.Audio(context.Background(), r, int64(len(f)))
			if t.Failed() {
				t.Fatalf("seed %d read past its size", i)
			}
		}
	})
}

func TestHostileFilesStopQuickly(t *testing.T) {
	// Three million two-byte Void elements in an unknown-size cluster.
	voids := bytes.Repeat([]byte{0xEC, 0x80}, 3<<20)
	manyVoids := cat(ebmlHeader("webm"), unknownElem(eSegment, elem(eTracks, trackEntry(1, trackVideo, "V_VP8")),
		unknownElem(eCluster, uintElem(eTimecode, 0), voids)))
	// Two and a half million empty top-level boxes.
	manyBoxes := cat(ftyp("isom"), bytes.Repeat(box("free"), 5<<19), box("moov"))
	// A trun claiming four billion samples in a small box.
	hugeTrun := cat(ftyp("iso5"), box("moov", timedBox("mvhd", 0, 1000, 0), trak(1, "vide", "avc1", 1000, 0),
		box("mvex", fullBox("trex", 0, 0, be32(1), be32(1), be32(1), be32(0), be32(0)))),
		box("moof", box("traf", fullBox("tfhd", 0, 0, be32(1)), fullBox("trun", 0, 0x100, be32(0xFFFFFFFF)))))
	// An Ogg tail of fake 27-byte pages with wrong checksums.
	fake := cat([]byte("OggS"), make([]byte, 23))
	oggStuffed := cat(oggPage(0x02, 0, 7, 0, opusHead(312)), oggPage(0, 0, 7, 1, opusTags()), bytes.Repeat(fake, 4000))
	tests := []struct {
		name   string
		fn     func(context.Context, io.ReaderAt, int64) (probe.Result, error)
		file   []byte
		reason string
	}{
		{"three million Void elements hit the element cap", probe.Video, manyVoids, "too many elements"},
		{"two and a half million empty boxes hit the box cap", probe.Video, manyBoxes, "too many elements"},
		{"a track run claiming four billion samples is refused unread", probe.Video, hugeTrun, "trun overruns"},
		{"an Ogg tail of fake pages is refused", probe.Audio, oggStuffed, "no complete last page"},
		{"a megabyte of misaligned MP3 headers is refused", probe.Audio, bytes.Repeat(be32(mp3Header128), 1<<18), "no frames"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := probeBytes(t, tt.fn, tt.file)
			if !errors.Is(err, probe.ErrInvalid) || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("err = %v, want ErrInvalid for %q", err, tt.reason)
			}
			// The caps are what is tested; the bound only catches a walk
			// gone quadratic. It is generous for -race on a busy 2-core CI.
			if el := time.Since(start); el > 60*time.Second {
				t.Errorf("took %v", el)
			}
		})
	}
}

// TestCheckedInFiles probes the small real files in testdata, made once
// with ffmpeg (see testdata/README); the durations are ffprobe's.
func TestCheckedInFiles(t *testing.T) {
	tests := []struct {
		file  string
		audio bool
		want  probe.Result
		// tolerance covers the last frame ffprobe counts and the
		// cluster walk cannot.
		tolerance time.Duration
	}{
		{file: "moov-at-end.mp4", tolerance: time.Millisecond, want: probe.Result{Container: "mp4", MIME: "video/mp4",
			Duration: time.Second, HasVideo: true, HasAudio: true, Codec: "h264"}},
		{file: "quicktime.mov", tolerance: time.Millisecond, want: probe.Result{Container: "mov", MIME: "video/quicktime",
			Duration: time.Second, HasVideo: true, HasAudio: true, Codec: "h264"}},
		{file: "streamed.webm", tolerance: 20 * time.Millisecond, want: probe.Result{Container: "webm", MIME: "video/webm",
			Duration: 1014 * time.Millisecond, HasVideo: true, HasAudio: true, Codec: "vp8"}},
		{file: "voice.ogg", audio: true, tolerance: 10 * time.Millisecond, want: probe.Result{Container: "ogg", MIME: "audio/ogg",
			Duration: 800 * time.Millisecond, HasAudio: true, Codec: "opus"}},
		{file: "voice.m4a", audio: true, tolerance: 25 * time.Millisecond, want: probe.Result{Container: "m4a", MIME: "audio/mp4",
			Duration: 800 * time.Millisecond, HasAudio: true, Codec: "aac"}},
		{file: "voice-vbr.mp3", audio: true, tolerance: time.Millisecond, want: probe.Result{Container: "mp3", MIME: "audio/mpeg",
			Duration: 862 * time.Millisecond, HasAudio: true, Codec: "mp3"}},
		{file: "voice-cbr.mp3", audio: true, tolerance: 5 * time.Millisecond, want: probe.Result{Container: "mp3", MIME: "audio/mpeg",
			Duration: 862 * time.Millisecond, HasAudio: true, Codec: "mp3"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			fn := probe.Video
			if tt.audio {
				fn = probe.Audio
			}
			got, err := probeBytes(t, fn, b)
			if err != nil {
				t.Fatalf("probe: %v", err)
			}
			if diff := (got.Duration - tt.want.Duration).Abs(); diff > tt.tolerance {
				t.Errorf("duration %v, want %v", got.Duration, tt.want.Duration)
			}
			t.Logf("%s: %v", tt.file, got.Duration)
			got.Duration = tt.want.Duration
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
