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

	"eventbox/imaging/internal/planar"
)

// PoolConfig configures a Pool. The zero value gives the documented defaults.
type PoolConfig struct {
	// Workers is how many images are decoded at once. Zero or less means
	// min(runtime.NumCPU()-1, 3), at least 1: one core stays free for the
	// HTTP server and the hotspot.
	Workers int
	// MemoryBytes bounds the estimated working memory of the images being
	// processed at once (see Pool.Make). Zero or less means
	// DefaultMemoryBytes, whatever the number of workers. An image whose
	// estimate exceeds the whole budget is refused by Check with
	// ErrTooLarge: it never runs.
	MemoryBytes int64
	// MaxPixels is the largest width × height accepted; zero or less means
	// DefaultMaxPixels.
	MaxPixels int
	// Logger receives one debug record per image made. Nil means no logging.
	Logger *slog.Logger
	// OutOfProcess, when not nil, makes the variants of the images whose
	// decoding would not fit MemoryBytes (Info.OutOfProcess, up to
	// MaxOutOfProcessPixels) in a process of its own, one at a time. Nil
	// means the pool refuses them with ErrTooLarge, as Check does.
	OutOfProcess OutOfProcessMaker
	// HEICCacheDir is where the HEIC decoder's machine code is kept between
	// runs (made if missing; the daemon uses DATA_DIR/cache/heic). Empty:
	// it is compiled once per process, in memory.
	HEICCacheDir string
}

// OutOfProcessMaker makes an image's variants in another process, whose
// memory is not the daemon's: package isolate's Runner, over MakeAlone in
// the child. The pool calls it for one image at a time.
type OutOfProcessMaker interface {
	// MakeOutOfProcess makes the variants of the image file of size
	// bytes in r. r must stay valid and unchanged until it returns.
	MakeOutOfProcess(ctx context.Context, r io.ReaderAt, size int64) (Variants, error)
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
	// out makes the images over the budget; alone holds its one slot.
	out   OutOfProcessMaker
	alone chan struct{}
	heif  *heifRuntimes
	// spare lends an image the budget no other image holds (spare.go).
	spare *spareCapacity
	// aside is MakeAside's one slot, beside the workers' slots.
	aside chan struct{}
}

// NewPool returns a Pool configured by cfg, with defaults for zero fields.
func NewPool(cfg PoolConfig) *Pool {
	if cfg.Workers <= 0 {
		cfg.Workers = max(min(runtime.NumCPU()-1, 3), 1)
	}
	if cfg.MemoryBytes <= 0 {
		cfg.MemoryBytes = DefaultMemoryBytes
	}
	if cfg.MaxPixels <= 0 {
		cfg.MaxPixels = DefaultMaxPixels
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	mem := semaphore.NewWeighted(cfg.MemoryBytes)
	return &Pool{
		slots:     make(chan struct{}, cfg.Workers),
		mem:       mem,
		memBytes:  cfg.MemoryBytes,
		maxPixels: cfg.MaxPixels,
		log:       cfg.Logger.With("component", "imaging"),
		out:       cfg.OutOfProcess,
		alone:     make(chan struct{}, 1),
		heif:      newHEIFRuntimes(cfg.HEICCacheDir),
		spare:     &spareCapacity{mem: mem},
		aside:     make(chan struct{}, 1),
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
// pool's MaxPixels, or a decoding estimated to need more than the pool's
// whole memory budget), wrapped, or with the read error. A file that passes
// may still fail to decode in Make. A pool with an OutOfProcess maker
// accepts, as CheckUpload does, the images it decodes there.
func (p *Pool) Check(r io.ReaderAt, size int64) (Info, error) {
	return check(r, size, p.maxPixels, p.memBytes, p.out != nil, nil)
}

// Make checks the file of size bytes in r, then decodes it and makes its
// display and thumb variants. It blocks until a worker slot and the image's
// share of the memory budget are free: memoryEstimate's figure for its
// decoder path and pixel count (docs/decisions.md, "Image memory"). It
// honours ctx while waiting and between the pipeline's stages, returning
// ctx's error. Errors are those of Check, ErrCorrupt when decoding fails (a
// decoder panic included), and read errors. r must stay valid and unchanged
// until Make returns.
func (p *Pool) Make(ctx context.Context, r io.ReaderAt, size int64) (Variants, error) {
	return p.make(ctx, r, size, p.slots)
}

// MakeAside is Make in a slot of its own, beside the workers' slots, one
// image at a time: for work that must not hold back the workers, such as
// the sharp variants of a photo that has rough ones already, which runs
// when the workers have nothing to do but may still be at it when a new
// photo comes. It shares the workers' memory budget.
func (p *Pool) MakeAside(ctx context.Context, r io.ReaderAt, size int64) (Variants, error) {
	return p.make(ctx, r, size, p.aside)
}

func (p *Pool) make(ctx context.Context, r io.ReaderAt, size int64, slots chan struct{}) (Variants, error) {
	info, err := p.Check(r, size)
	if err != nil {
		return Variants{}, err
	}
	ctx = withHEIFRuntimes(ctx, p.heif)
	if info.outOfProcess {
		return p.makeOutOfProcess(ctx, r, size, info)
	}
	need := memoryEstimate(info) // at most p.memBytes: Check refuses more
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return Variants{}, ctx.Err()
	}
	defer func() { <-slots }()
	if err := p.mem.Acquire(ctx, need); err != nil {
		return Variants{}, err
	}
	defer p.mem.Release(need)

	start := time.Now()
	v, err := safeMake(withSpare(ctx, p.spare), r, size, info, nil)
	if err != nil {
		return Variants{}, err
	}
	p.log.DebugContext(ctx, "made variants",
		"format", info.Format, "width", info.Width, "height", info.Height,
		"orientation", info.Orientation, "ms", time.Since(start).Milliseconds())
	return v, nil
}

// makeOutOfProcess makes the variants of an image over the memory budget in
// the OutOfProcess maker, one image at a time and in a worker slot. The
// daemon holds only the variants it gets back: the fixed share of the
// budget covers them.
func (p *Pool) makeOutOfProcess(ctx context.Context, r io.ReaderAt, size int64, info Info) (Variants, error) {
	select {
	case p.alone <- struct{}{}:
	case <-ctx.Done():
		return Variants{}, ctx.Err()
	}
	defer func() { <-p.alone }()
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return Variants{}, ctx.Err()
	}
	defer func() { <-p.slots }()
	if err := p.mem.Acquire(ctx, estFixed); err != nil {
		return Variants{}, err
	}
	defer p.mem.Release(estFixed)
	start := time.Now()
	v, err := p.out.MakeOutOfProcess(ctx, r, size)
	if err != nil {
		return Variants{}, fmt.Errorf("making the variants of a %dx%d %s in a process of its own: %w",
			info.Width, info.Height, info.Format, err)
	}
	p.log.InfoContext(ctx, "made variants in a process of its own",
		"format", info.Format, "width", info.Width, "height", info.Height,
		"ms", time.Since(start).Milliseconds())
	return v, nil
}

// MakeAlone checks the image file of size bytes in r as CheckUpload does and
// makes its variants at once, with no pool and no budget: it is what the
// process of its own runs (package isolate), whose memory the operating
// system bounds. A single-coded HEIC is decoded in a module whose memory,
// at most heicBytes, is reserved whole at its start, so that it never
// grows by copying (heifwasm.CompileReserved). Its errors are those of
// Pool.Make.
func MakeAlone(ctx context.Context, r io.ReaderAt, size int64, heicBytes int64) (Variants, error) {
	info, err := check(r, size, DefaultMaxPixels, DefaultMemoryBytes, true, nil)
	if err != nil {
		return Variants{}, err
	}
	var alone *aloneHEIC
	if info.Format == HEIC && info.heifTile == 0 && heicSupported {
		if alone, err = newAloneHEIC(ctx, heicBytes); err != nil {
			return Variants{}, err
		}
	}
	return safeMake(ctx, r, size, info, alone)
}

// safeMake turns a decoder panic on hostile input into ErrCorrupt, so one bad
// upload cannot take the daemon down.
func safeMake(ctx context.Context, r io.ReaderAt, size int64, info Info, alone *aloneHEIC) (v Variants, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("%w: decoder panic: %v\n%s", ErrCorrupt, x, debug.Stack())
		}
	}()
	return makeVariants(ctx, r, size, info, alone)
}

// DefaultMemoryBytes is the memory budget shared by the images being
// decoded at once, whatever the number of workers. With the daemon's own
// live heap (about 15 MiB) it stays under half the 384 MiB soft heap limit,
// so the garbage collector's usual doubling keeps the heap near 350 MiB and
// the process, with the decoder's machine code and stacks, under the
// 400 MiB budget (docs/design.md, "Memory budget"; docs/decisions.md, "Image memory").
const DefaultMemoryBytes = 160 << 20

// Measured peak live memory per decoder path, in bytes per stored pixel, over
// a fixed part for buffers, encoders and the variants (docs/decisions.md,
// "Image memory", gives the measurements). Check refuses an image whose
// estimate is over the budget, so these are also the per-format pixel caps.
const (
	estFixed = 16 << 20
	// Baseline JPEG through internal/jpegdec, per pixel decoded at the
	// chosen DCT scale.
	bppJPEGScaled = 3
	// Progressive JPEG through image/jpeg: every coefficient as an int32,
	// then the full-size picture and its planes (measured 8.3); also
	// used for the baseline JPEGs jpegdec refuses (CMYK, RGB, unusual
	// chroma), which image/jpeg decodes at full size.
	bppJPEGProgressive = 9
	// PNG through image/png: the full-size picture (4 or 8 bytes a
	// pixel) and the planes it becomes (measured 5.9 and 10.6).
	bppPNG8, bppPNG16 = 6, 11
	// Interlaced PNG keeps a pass image as well: up to half the picture.
	bppPNGInterlaced8, bppPNGInterlaced16 = 2, 4
	// WebP through golang.org/x/image/webp: lossy gives Y'CbCr (plus
	// alpha; measured 2.4), lossless an RGBA image and its ARGB working
	// copy (measured 5.9).
	bppWebPLossy, bppWebPLossless = 3, 7
	// GIF: the paletted frame, an RGBA screen when the frame does not
	// cover it, the planes (measured 2.9 without the screen).
	bppGIF = 7
	// HEVC decoded by libheif/libde265 in WebAssembly (measured 23.8 for
	// a single-coded picture), and each decoder instance's own memory.
	bppHEIC           = 24
	heicInstanceBytes = 24 << 20
)

// memoryEstimate is the working memory Make needs for info's image, in
// bytes: the decoded planes or image plus the smaller planes, buffers and
// encoder state that follow it.
func memoryEstimate(info Info) int64 { return memoryEstimateFor(info, DisplayLong) }

// memoryEstimateFor is memoryEstimate for a decoding whose result keeps
// its longest side at least long px (Pool.Fit).
func memoryEstimateFor(info Info, long int) int64 {
	px := int64(info.storedW) * int64(info.storedH)
	switch info.Format {
	case JPEG:
		if info.progressive || info.fullJPEG {
			return fullJPEGEstimate(info)
		}
		denom := int64(dctScaleFor(info.storedW, info.storedH, long))
		return estFixed + bppJPEGScaled*px/(denom*denom)
	case HEIC:
		if info.heifTile > 0 {
			// One tile decoded whole at a time, and the output planes
			// at the reduced scale.
			s := int64(dctScaleFor(info.storedW, info.storedH, long))
			return estFixed + heicInstanceBytes + bppHEIC*int64(info.heifTile) + 3*px/(s*s)
		}
		return estFixed + heicInstanceBytes + bppHEIC*px
	case PNG:
		bpp := int64(bppPNG8)
		switch {
		case info.deep && info.interlaced:
			bpp = bppPNG16 + bppPNGInterlaced16
		case info.deep:
			bpp = bppPNG16
		case info.interlaced:
			bpp += bppPNGInterlaced8
		}
		return estFixed + bpp*px
	case WebP:
		if info.lossless {
			return estFixed + bppWebPLossless*px
		}
		return estFixed + bppWebPLossy*px
	default:
		return estFixed + bppGIF*px
	}
}

// fullJPEGEstimate is the working memory of a JPEG decoded at full size by
// image/jpeg, the fallback for what internal/jpegdec refuses.
func fullJPEGEstimate(info Info) int64 {
	return estFixed + bppJPEGProgressive*int64(info.storedW)*int64(info.storedH)
}

// dctScaleFor is the reduction (8, 4, 2 or 1) at which a w×h picture is
// decoded when the format allows: the largest that keeps it at least as
// large as a result whose longest side is long px (DisplayLong for the
// variants, a print's size for Pool.Fit).
func dctScaleFor(w, h, long int) int {
	dw, dh := planar.Fit(w, h, long)
	for _, d := range []int{8, 4, 2} {
		if ceilDiv(w, d) >= dw && ceilDiv(h, d) >= dh {
			return d
		}
	}
	return 1
}
