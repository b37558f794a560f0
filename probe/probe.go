package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrInvalid is wrapped by every error that means "this file is not an
// acceptable video or voice note": an unknown or wrong container, a missing
// track, a truncated or malformed structure, or a file past the probe's
// limits. Callers map it to a client error (invalid_video, bad_request); any
// other error from [Video] or [Audio] comes from the reader or the context.
var ErrInvalid = errors.New("invalid media")

// Container names reported in [Result.Container].
const (
	ContainerMP4  = "mp4"  // ISO-BMFF video whose major brand is not QuickTime
	ContainerMOV  = "mov"  // ISO-BMFF video with the QuickTime brand "qt  "
	ContainerM4A  = "m4a"  // ISO-BMFF audio without a video track
	ContainerWebM = "webm" // Matroska with DocType "webm", video or audio
	ContainerOgg  = "ogg"  // Ogg with a single Opus stream
	ContainerMP3  = "mp3"  // MPEG-1/2/2.5 Layer III frames, optionally after ID3v2
)

// Result describes a probed file.
type Result struct {
	// Container is one of the Container* constants.
	Container string
	// MIME is the Content-Type to serve the file with: video/mp4,
	// video/quicktime, video/webm, audio/mp4, audio/webm, audio/ogg or
	// audio/mpeg.
	MIME string
	// Duration is how long the file plays, never negative. For WebM without
	// a Duration element it is the end of the last block found in the
	// clusters; for MP3 without a Xing/Info or VBRI header it is counted
	// from the frames.
	Duration time.Duration
	// HasVideo reports a video track (always true in a [Video] result,
	// always false in an [Audio] result).
	HasVideo bool
	// HasAudio reports an audio track (always true in an [Audio] result).
	HasAudio bool
	// Codec is a short lower-case codec name of the video track for [Video]
	// ("h264", "hevc", "vp8", "vp9", "av1", "mpeg4", "prores", …) or of the
	// audio track for [Audio] ("opus", "aac", "mp3"); empty when unknown.
	Codec string
}

// Video probes r, a file of size bytes, as an uploaded video. It succeeds only
// for an MP4, MOV (major brand "qt  ") or WebM file with at least one video
// track and a known, finite duration; anything else yields an error wrapping
// [ErrInvalid]. Codecs are reported, not restricted.
//
// Video reads only headers, at most a bounded number of them, through a
// 4 KiB window; it never reads r past size. It is safe for concurrent use
// when r is. ctx is checked between reads and its error is returned wrapped.
func Video(ctx context.Context, r io.ReaderAt, size int64) (Result, error) {
	return probeAs(ctx, r, size, "video", func(src *source, k kind) (Result, error) {
		switch k {
		case kindISO:
			return probeISO(src, false)
		case kindEBML:
			return probeWebM(src, false)
		default:
			return Result{}, invalid("not an MP4, MOV or WebM file")
		}
	})
}

// Audio probes r, a file of size bytes, as a guestbook voice note. It
// succeeds for WebM with an Opus track, Ogg with a single Opus stream, MP4/M4A
// with an AAC or Opus track, and MP3 (Layer III); a file with a video track,
// another codec or no audio yields an error wrapping [ErrInvalid].
//
// Audio has the same bounds and concurrency contract as [Video].
func Audio(ctx context.Context, r io.ReaderAt, size int64) (Result, error) {
	return probeAs(ctx, r, size, "audio", func(src *source, k kind) (Result, error) {
		switch k {
		case kindISO:
			return probeISO(src, true)
		case kindEBML:
			return probeWebM(src, true)
		case kindOgg:
			return probeOgg(src)
		default:
			// MP3 has no reliable magic: ID3v2 or a frame sync, checked by
			// walking a few frames.
			return probeMP3(src)
		}
	})
}

// probeAs opens the source, sniffs its container and hands both to pick,
// wrapping errors with what was probed.
func probeAs(ctx context.Context, r io.ReaderAt, size int64, what string, pick func(*source, kind) (Result, error)) (Result, error) {
	src, err := newSource(ctx, r, size)
	if err != nil {
		return Result{}, err
	}
	k, err := src.sniff()
	if err != nil {
		return Result{}, fmt.Errorf("probing: %w", err)
	}
	res, err := pick(src, k)
	if err != nil {
		return Result{}, fmt.Errorf("probing %s: %w", what, err)
	}
	return res, nil
}

// maxDuration bounds every duration the probes accept; anything longer is
// taken as a corrupt field rather than a real recording.
const maxDuration = 100 * time.Hour

// seconds converts ticks of a timescale (ticks per second) to a duration,
// rejecting a zero timescale and anything over maxDuration.
func seconds(ticks, timescale uint64) (time.Duration, error) {
	if timescale == 0 {
		return 0, invalid("zero timescale")
	}
	d := float64(ticks) / float64(timescale) * float64(time.Second)
	if d > float64(maxDuration) {
		return 0, invalid("duration out of range")
	}
	return time.Duration(d), nil
}

// invalid returns an error wrapping ErrInvalid with a reason.
func invalid(reason string) error {
	return fmt.Errorf("%w: %s", ErrInvalid, reason)
}
