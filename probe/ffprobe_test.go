package probe_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/internal/testtool"
	"eventbox/probe"
)

// ffmpegCase is one real file made by ffmpeg and what the probe must say
// about it.
type ffmpegCase struct {
	name string
	file string
	// args go between the inputs and the output file.
	args []string
	// audioOnly uses the sine source alone.
	audioOnly bool
	// pipe writes to a non-seekable stdout, as a live recorder does: no
	// Duration, unknown sizes.
	pipe          bool
	audio         bool // probe with Audio rather than Video
	wantContainer string
	wantMIME      string
	wantCodec     string
}

func ffmpegCases() []ffmpegCase {
	h264 := []string{"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"}
	vp8 := []string{"-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "200k"}
	vp9 := []string{"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "200k"}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	aac := []string{"-c:a", "aac"}
	opus := []string{"-c:a", "libopus"}
	return []ffmpegCase{
		{name: "an MP4 with moov at the end", file: "moov-end.mp4", args: cat(h264, aac),
			wantContainer: "mp4", wantMIME: "video/mp4", wantCodec: "h264"},
		{name: "a QuickTime MOV", file: "clip.mov", args: cat(h264, aac),
			wantContainer: "mov", wantMIME: "video/quicktime", wantCodec: "h264"},
		{name: "an MP4 with moov first", file: "faststart.mp4", args: cat(h264, aac, []string{"-movflags", "+faststart"}),
			wantContainer: "mp4", wantMIME: "video/mp4", wantCodec: "h264"},
		{name: "a fragmented MP4", file: "frag.mp4", args: cat(h264, aac, []string{"-movflags", "frag_keyframe+empty_moov"}),
			wantContainer: "mp4", wantMIME: "video/mp4", wantCodec: "h264"},
		{name: "a VP8 WebM with a duration", file: "vp8.webm", args: cat(vp8, opus),
			wantContainer: "webm", wantMIME: "video/webm", wantCodec: "vp8"},
		{name: "a VP9 WebM with a duration", file: "vp9.webm", args: cat(vp9, opus),
			wantContainer: "webm", wantMIME: "video/webm", wantCodec: "vp9"},
		{name: "a VP8 WebM streamed without a duration", file: "vp8-live.webm", pipe: true,
			args: cat(vp8, opus, []string{"-f", "webm"}), wantContainer: "webm", wantMIME: "video/webm", wantCodec: "vp8"},
		{name: "a VP9 WebM written live without a duration", file: "vp9-live.webm",
			args: cat(vp9, opus, []string{"-live", "1"}), wantContainer: "webm", wantMIME: "video/webm", wantCodec: "vp9"},
		{name: "an Ogg Opus voice note", file: "voice.ogg", audioOnly: true, audio: true, args: opus,
			wantContainer: "ogg", wantMIME: "audio/ogg", wantCodec: "opus"},
		{name: "a WebM Opus voice note", file: "voice.webm", audioOnly: true, audio: true, args: opus,
			wantContainer: "webm", wantMIME: "audio/webm", wantCodec: "opus"},
		{name: "a WebM Opus voice note streamed without a duration", file: "voice-live.webm", audioOnly: true, audio: true,
			pipe: true, args: cat(opus, []string{"-f", "webm"}), wantContainer: "webm", wantMIME: "audio/webm", wantCodec: "opus"},
		{name: "an M4A AAC voice note", file: "voice.m4a", audioOnly: true, audio: true, args: aac,
			wantContainer: "m4a", wantMIME: "audio/mp4", wantCodec: "aac"},
		{name: "a fragmented M4A AAC voice note", file: "voice-frag.m4a", audioOnly: true, audio: true,
			args:          cat(aac, []string{"-movflags", "frag_keyframe+empty_moov"}),
			wantContainer: "m4a", wantMIME: "audio/mp4", wantCodec: "aac"},
		{name: "a CBR MP3 with an Info header", file: "cbr.mp3", audioOnly: true, audio: true,
			args: []string{"-c:a", "libmp3lame", "-b:a", "64k"}, wantContainer: "mp3", wantMIME: "audio/mpeg", wantCodec: "mp3"},
		{name: "a VBR MP3 with a Xing header", file: "vbr.mp3", audioOnly: true, audio: true,
			args: []string{"-c:a", "libmp3lame", "-q:a", "4"}, wantContainer: "mp3", wantMIME: "audio/mpeg", wantCodec: "mp3"},
		{name: "a CBR MP3 without a Xing header", file: "noxing.mp3", audioOnly: true, audio: true,
			args:          []string{"-c:a", "libmp3lame", "-b:a", "64k", "-write_xing", "0"},
			wantContainer: "mp3", wantMIME: "audio/mpeg", wantCodec: "mp3"},
		{name: "an MPEG-2 MP3 at 22050 Hz", file: "lsf.mp3", audioOnly: true, audio: true,
			args:          []string{"-c:a", "libmp3lame", "-ar", "22050", "-b:a", "32k"},
			wantContainer: "mp3", wantMIME: "audio/mpeg", wantCodec: "mp3"},
	}
}

// TestDurationsAgreeWithFFprobe makes real files with ffmpeg and checks the
// probe agrees with ffprobe. It needs the Debian package ffmpeg (which
// provides both tools) and skips without it.
func TestDurationsAgreeWithFFprobe(t *testing.T) {
	testtool.Need(t, "ffmpeg", "ffmpeg", "ffprobe")
	ffmpeg, _ := exec.LookPath("ffmpeg")
	ffprobe, _ := exec.LookPath("ffprobe")
	dir := t.TempDir()
	for i, tc := range ffmpegCases() {
		// Lengths vary so a constant error cannot pass by accident.
		secs := []string{"1", "1.5", "2.3", "3"}[i%4]
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			makeFile(t, ffmpeg, path, secs, tc)
			want := ffprobeDuration(t, ffprobe, path)

			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			probeFn := probe.Video
			if tc.audio {
				probeFn = probe.Audio
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, err := probeFn(ctx, f, st.Size())
			if err != nil {
				t.Fatalf("probe: %v", err)
			}
			if got.Container != tc.wantContainer || got.MIME != tc.wantMIME || got.Codec != tc.wantCodec {
				t.Errorf("got %s %s %s, want %s %s %s", got.Container, got.MIME, got.Codec,
					tc.wantContainer, tc.wantMIME, tc.wantCodec)
			}
			if got.HasVideo == tc.audio {
				t.Errorf("HasVideo = %v for an audio=%v probe", got.HasVideo, tc.audio)
			}
			if !got.HasAudio {
				t.Errorf("HasAudio = false, the file has a sine track")
			}
			tolerance := max(50*time.Millisecond, want/50)
			if diff := (got.Duration - want).Abs(); diff > tolerance {
				t.Errorf("duration %v, ffprobe says %v (off by %v, tolerance %v)", got.Duration, want, diff, tolerance)
			}
			t.Logf("%s: %v (ffprobe %v), %d bytes", tc.file, got.Duration, want, st.Size())
		})
	}
}

// makeFile runs ffmpeg on the test sources.
func makeFile(t *testing.T, ffmpeg, path, secs string, tc ffmpegCase) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"-hide_banner", "-loglevel", "error", "-y"}
	if !tc.audioOnly {
		args = append(args, "-f", "lavfi", "-i", "testsrc=duration="+secs+":size=160x120:rate=25")
	}
	rate := "48000" // Opus and phone AAC
	if strings.HasSuffix(tc.file, ".mp3") {
		rate = "44100"
	}
	args = append(args, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate="+rate+":duration="+secs)
	// One thread each: the encoders' thread pools, beside other tests on
	// a busy machine, took several times as long as one thread.
	args = append(args, "-filter_threads", "1", "-threads", "1")
	args = append(args, tc.args...)
	cmd := exec.CommandContext(ctx, ffmpeg, args...)
	if tc.pipe {
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd.Args = append(cmd.Args, "pipe:1")
		cmd.Stdout = out
	} else {
		cmd.Args = append(cmd.Args, path)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", cmd.Args, err, stderr.Bytes())
	}
}

// ffprobeDuration returns the format duration ffprobe reports, or, when the
// container has none (live WebM), the end of the last packet.
func ffprobeDuration(t *testing.T, ffprobe, path string) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, ffprobe, "-v", "error", "-show_entries", "format=duration",
		"-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	if s := strings.TrimSpace(string(out)); s != "N/A" {
		return parseSeconds(t, s)
	}
	out, err = exec.CommandContext(ctx, ffprobe, "-v", "error", "-show_entries", "packet=pts_time,duration_time",
		"-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe packets: %v", err)
	}
	var end time.Duration
	for line := range strings.Lines(string(out)) {
		// pts,duration[,side data…]
		fields := strings.Split(strings.TrimSpace(line), ",")
		if len(fields) < 2 || fields[0] == "N/A" || fields[0] == "" {
			continue
		}
		pts, dur := fields[0], fields[1]
		e := parseSeconds(t, pts)
		if dur != "N/A" && dur != "" {
			e += parseSeconds(t, dur)
		}
		end = max(end, e)
	}
	if end == 0 {
		t.Fatal(errors.New("ffprobe reported no packets"))
	}
	return end
}

func parseSeconds(t *testing.T, s string) time.Duration {
	t.Helper()
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		t.Fatalf("parsing ffprobe seconds %q: %v", s, err)
	}
	return time.Duration(f * float64(time.Second))
}
