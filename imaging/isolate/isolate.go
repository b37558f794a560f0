// Package isolate decodes the photos whose decoding would not fit the
// daemon's memory budget in a process of their own: the same binary,
// started again with a hidden command (cmd/eventbox's "decode-image"),
// one image at a time, under a memory limit of its own.
//
// The parent (Runner, the daemon's imaging.OutOfProcessMaker) streams the
// file to the child's standard input and reads the two variants back from
// its standard output. The child (Serve) first limits itself: its data
// segment (RLIMIT_DATA) to MemoryBytes, the Go garbage collector's target
// under it, the kernel's out-of-memory killer pointed at it rather than at
// the daemon (oom_score_adj 1000), and a lower CPU priority, so the
// daemon's answers go first. A decoder that runs out of memory or panics
// ends the child alone: the daemon sees a failed attempt, and the photo's
// job is retried and then set aside as any other (docs/decisions/images.md,
// "Large photos in a process of their own").
package isolate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"eventbox/imaging"
)

// Command is the hidden command of cmd/eventbox that runs Serve.
const Command = "decode-image"

// DefaultMemoryBytes is the child's memory limit: its data segment, which
// bounds its resident memory. The largest accepted images measured (48 MP)
// peak at about 390 MiB resident (HEIC, progressive JPEG) and 465 MiB
// (16-bit PNG); the HEIC decoder reserves heicBytes of it up front.
// With the daemon's 400 MiB it stays under a 1 GB Pi's memory only while
// the daemon is not at its own peak, which is why the child is the
// out-of-memory killer's first choice.
const DefaultMemoryBytes = 640 << 20

// heicBytes is the HEIC decoder's module memory in the child: a 48 MP
// single-coded picture uses about 330 MiB of it.
const heicBytes = 448 << 20

// DefaultTimeout bounds one child's run.
const DefaultTimeout = 5 * time.Minute

// maxOutput bounds what the parent reads back: two JPEGs of at most
// 1920 px, far below.
const maxOutput = 32 << 20

// magic starts the child's answer.
const magic = "EBV1"

// exitRefused is the child's exit code for an image the checks refuse or
// the decoder finds corrupt; its standard error says why.
const exitRefused = 3

// Config configures a Runner.
type Config struct {
	// Command is the child's command line: the binary and its arguments,
	// usually os.Executable() and Command.
	Command []string
	// MemoryBytes is the child's memory limit; zero or less means
	// DefaultMemoryBytes.
	MemoryBytes int64
	// Timeout bounds one child's run; zero or less means DefaultTimeout.
	Timeout time.Duration
	// Logger gets one record per child: its time and peak memory. Nil
	// means no logging.
	Logger *slog.Logger
}

// Runner makes variants in child processes. It is safe for concurrent use;
// the imaging pool calls it for one image at a time.
type Runner struct {
	cfg Config
}

// New returns a Runner with cfg, defaults for its zero fields.
func New(cfg Config) *Runner {
	if cfg.MemoryBytes <= 0 {
		cfg.MemoryBytes = DefaultMemoryBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{cfg: cfg}
}

// MakeOutOfProcess makes the variants of the image file of size bytes in
// r in a child process. An image the child refuses is ErrCorrupt (wrapped,
// with its reason); a child that dies (out of memory, killed, timed out)
// is an error naming how.
func (r *Runner) MakeOutOfProcess(ctx context.Context, ra io.ReaderAt, size int64) (imaging.Variants, error) {
	if len(r.cfg.Command) == 0 {
		return imaging.Variants{}, errors.New("no command for the decoding process")
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	args := append(append([]string(nil), r.cfg.Command[1:]...), "-memory", strconv.FormatInt(r.cfg.MemoryBytes, 10))
	cmd := exec.CommandContext(ctx, r.cfg.Command[0], args...)
	// One core: the other stays with the daemon's answers.
	cmd.Env = []string{"GOMAXPROCS=1"}
	cmd.Stdin = io.NewSectionReader(ra, 0, size)
	var out bytes.Buffer
	stderr := &tail{max: 4 << 10}
	cmd.Stdout = &limitedWriter{w: &out, n: maxOutput}
	cmd.Stderr = stderr
	start := time.Now()
	err := cmd.Run()
	if st := cmd.ProcessState; st != nil {
		peak := int64(0)
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			peak = int64(ru.Maxrss) // KiB on Linux
		}
		r.cfg.Logger.InfoContext(ctx, "decoding process ended", "state", st.String(),
			"ms", time.Since(start).Milliseconds(), "peak_rss_kib", peak)
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return imaging.Variants{}, fmt.Errorf("decoding process stopped: %w", context.Cause(ctx))
	case errors.As(err, &exit) && exit.ExitCode() == exitRefused:
		return imaging.Variants{}, fmt.Errorf("%w: %s", imaging.ErrCorrupt, bytes.TrimSpace(stderr.buf))
	case errors.As(err, &exit):
		return imaging.Variants{}, fmt.Errorf("decoding process ended (%v, limit %d MiB): %s",
			exit.ProcessState, r.cfg.MemoryBytes>>20, bytes.TrimSpace(stderr.buf))
	case err != nil:
		return imaging.Variants{}, fmt.Errorf("running the decoding process: %w", err)
	}
	return readVariants(out.Bytes())
}

// Serve is the child: it limits its own memory to memoryBytes, reads the
// image from in, makes its variants and writes them to out. It returns the
// process's exit code; errors go to errOut.
func Serve(ctx context.Context, in io.Reader, out, errOut io.Writer, memoryBytes int64) int {
	if memoryBytes <= 0 {
		memoryBytes = DefaultMemoryBytes
	}
	if err := limitSelf(memoryBytes); err != nil {
		// Without the limit the child is still alone and the
		// out-of-memory killer's first choice.
		fmt.Fprintf(errOut, "eventbox %s: no memory limit: %v\n", Command, err)
	}
	// The collector works harder as the limit nears, well before it.
	debug.SetMemoryLimit(memoryBytes - memoryBytes/8)
	data, err := io.ReadAll(io.LimitReader(in, memoryBytes))
	if err != nil {
		fmt.Fprintf(errOut, "reading the image: %v\n", err)
		return 1
	}
	v, err := imaging.MakeAlone(ctx, bytes.NewReader(data), int64(len(data)), min(heicBytes, memoryBytes/2))
	data = nil
	if err != nil {
		fmt.Fprintln(errOut, err)
		if errors.Is(err, imaging.ErrCorrupt) || errors.Is(err, imaging.ErrUnsupported) || errors.Is(err, imaging.ErrTooLarge) {
			return exitRefused
		}
		return 1
	}
	bw := bufio.NewWriter(out)
	bw.WriteString(magic)
	for _, n := range []int{v.Width, v.Height, len(v.Display), len(v.Thumb)} {
		_ = binary.Write(bw, binary.BigEndian, uint32(n))
	}
	bw.Write(v.Display)
	bw.Write(v.Thumb)
	if err := bw.Flush(); err != nil {
		fmt.Fprintf(errOut, "writing the variants: %v\n", err)
		return 1
	}
	return 0
}

// readVariants reads the child's answer.
func readVariants(b []byte) (imaging.Variants, error) {
	const head = len(magic) + 16
	if len(b) < head || string(b[:len(magic)]) != magic {
		return imaging.Variants{}, fmt.Errorf("decoding process answered %d bytes without its header", len(b))
	}
	n := func(i int) int { return int(binary.BigEndian.Uint32(b[len(magic)+4*i:])) }
	w, h, nd, nt := n(0), n(1), n(2), n(3)
	if len(b) != head+nd+nt {
		return imaging.Variants{}, fmt.Errorf("decoding process answered %d bytes, its header says %d", len(b), head+nd+nt)
	}
	return imaging.Variants{Width: w, Height: h, Display: b[head : head+nd], Thumb: b[head+nd:]}, nil
}

// tail keeps the first max bytes written to it.
type tail struct {
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	if room := t.max - len(t.buf); room > 0 {
		t.buf = append(t.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// limitedWriter fails past n bytes.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, fmt.Errorf("the decoding process wrote more than %d bytes", maxOutput)
	}
	l.n -= len(p)
	return l.w.Write(p)
}
