package imaging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"time"

	"golang.org/x/sync/semaphore"

	"eventbox/daemon/imaging/internal/planar"
)

// PoolConfig configures a Pool. The zero value gives the documented defaults.
type PoolConfig struct {
	// Workers is how many images are decoded at once. Zero or less means
	// min(runtime.NumCPU()-1, 3), at least 1: one core stays free for the
	// HTTP server and the hotspot.
	Workers int
	// MemoryBytes bounds the estimated working memory of the images being
	// processed at once (see Pool.Make). Zero or less means 128 MiB per
	// worker. An image whose estimate exceeds the whole budget still runs,
	// alone.
	MemoryBytes int64
	// MaxPixels is the largest width × height accepted; zero or less means
	// DefaultMaxPixels.
	MaxPixels int
	// Logger receives one debug record per image made. Nil means no logging.
	Logger *slog.Logger
}

// Pool makes variants with bounded concurrency and memory. It is safe for
// concurrent use and needs no shutdown: it owns no goroutines, and Make runs
// on its caller's goroutine once a slot is free.
type Pool struct {
	slots     chan struct{}
	mem       *semaphore.Weighted
	memBytes  int64
	maxPixels int
	log       *slog.Logger
}

// NewPool returns a Pool configured by cfg, with defaults for zero fields.
func NewPool(cfg PoolConfig) *Pool {
	if cfg.Workers <= 0 {
		cfg.Workers = max(min(runtime.NumCPU()-1, 3), 1)
	}
	if cfg.MemoryBytes <= 0 {
		cfg.MemoryBytes = int64(cfg.Workers) * 128 << 20
	}
	if cfg.MaxPixels <= 0 {
		cfg.MaxPixels = DefaultMaxPixels
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Pool{
		slots:     make(chan struct{}, cfg.Workers),
		mem:       semaphore.NewWeighted(cfg.MemoryBytes),
		memBytes:  cfg.MemoryBytes,
		maxPixels: cfg.MaxPixels,
		log:       cfg.Logger.With("component", "imaging"),
	}
}

// Check validates the image file of size bytes in r without decoding it: it
// sniffs the format from the bytes, reads the headers, the size and the EXIF
// orientation, and walks the file's structure far enough to refuse a
// truncated one (JPEG: an EOI marker after the scan data; PNG: chunks to
// IEND; GIF: blocks to the trailer; WebP: the RIFF size and chunks; HEIF: box
// and item-data sizes). It reads a few kilobytes, or for a JPEG with data
// after its end, its image data once, and is meant for the upload request.
// It fails with ErrUnsupported, ErrCorrupt or ErrTooLarge (more than the
// pool's MaxPixels), wrapped, or with the read error. A file that passes may
// still fail to decode in Make.
func (p *Pool) Check(r io.ReaderAt, size int64) (Info, error) {
	return check(r, size, p.maxPixels)
}

// Make checks the file of size bytes in r, then decodes it and makes its
// display and thumb variants. It blocks until a worker slot and the image's
// share of the memory budget are free: an estimate from its format and pixel
// count: 16 MiB plus, per pixel, 3 bytes over the DCT scale squared for a
// baseline JPEG (under 1 byte at 1/2 scale), 6 for a progressive JPEG, GIF or
// WebP, 8 for a PNG, 20 for a HEIC. It honours ctx while waiting and between the
// pipeline's stages, returning ctx's error. Errors are those of Check,
// ErrCorrupt when decoding fails (a decoder panic included), and read
// errors. r must stay valid and unchanged until Make returns.
func (p *Pool) Make(ctx context.Context, r io.ReaderAt, size int64) (Variants, error) {
	info, err := p.Check(r, size)
	if err != nil {
		return Variants{}, err
	}
	need := min(memoryEstimate(info), p.memBytes)
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return Variants{}, ctx.Err()
	}
	defer func() { <-p.slots }()
	if err := p.mem.Acquire(ctx, need); err != nil {
		return Variants{}, err
	}
	defer p.mem.Release(need)

	start := time.Now()
	v, err := safeMake(ctx, r, size, info)
	if err != nil {
		return Variants{}, err
	}
	p.log.DebugContext(ctx, "made variants",
		"format", info.Format, "width", info.Width, "height", info.Height,
		"orientation", info.Orientation, "ms", time.Since(start).Milliseconds())
	return v, nil
}

// safeMake turns a decoder panic on hostile input into ErrCorrupt, so one bad
// upload cannot take the daemon down.
func safeMake(ctx context.Context, r io.ReaderAt, size int64, info Info) (v Variants, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("%w: decoder panic: %v\n%s", ErrCorrupt, x, debug.Stack())
		}
	}()
	return makeVariants(ctx, r, size, info)
}

// memoryEstimate is the working memory Make needs for info's image, in bytes:
// the decoded planes or image plus the smaller planes, buffers and encoder
// state that follow it.
func memoryEstimate(info Info) int64 {
	px := int64(info.storedW) * int64(info.storedH)
	const fixed = 16 << 20
	switch info.Format {
	case JPEG:
		if info.progressive {
			return fixed + 6*px // coefficients and a full-size image
		}
		dw, dh := planar.Fit(info.storedW, info.storedH, DisplayLong)
		denom := int64(1)
		for _, d := range []int{8, 4, 2} {
			if ceilDiv(info.storedW, d) >= dw && ceilDiv(info.storedH, d) >= dh {
				denom = int64(d)
				break
			}
		}
		return fixed + 3*px/(denom*denom)
	case HEIC:
		// Measured: 271 MiB peak for a 12 MP HEIC (WebAssembly memory, the
		// compiled decoder, planes and a copy), so one HEIC usually takes
		// the whole budget and runs alone.
		return fixed + 20*px
	case PNG:
		return fixed + 8*px // up to 16-bit RGBA, then planes
	default:
		return fixed + 6*px
	}
}
