//go:build linux

// Command imagebench proves the photo pipeline's speed and memory targets
// against libvips on phone-like photos made on the spot.
//
// It writes N synthetic 12 MP JPEGs (4032×3024, quality 90, EXIF with GPS,
// one in three turned by orientation 6), then runs, alternately, R rounds of
// our pipeline (one worker, GOMAXPROCS=1, in process: read the file, decode,
// orient, display 1920 px q85, thumb 400 px q80, write both) and of
// vipsthumbnail making the same two outputs with one thread
// (VIPS_CONCURRENCY=1; "-s 1920 …[Q=85,strip]" and "-s 400 …[Q=80,strip]",
// one process per size for all N files, so vips pays its start-up twice a
// round). It prints, for each round, ms/photo of wall time and of CPU time
// (user + system, from rusage; the steadier figure on a shared machine), the
// medians and the median of the per-round ratios. Then it runs the pipeline on one photo in a child
// process and prints that worker's peak memory: VmHWM from the child's
// /proc/self/status and the kernel's max RSS from its rusage. With -heic (or
// -only heic) it does the same, side by side, for a 12 MP grid HEIC
// (4032×3024 in 512×512 tiles, made with heif-enc, or -heic-file) against
// vipsthumbnail on libheif.
//
// Both sides run pinned to one CPU (taskset -c, -cpu): libheif decodes a
// grid's tiles on several threads whatever VIPS_CONCURRENCY says. With
// -cores N (and -cpu "") neither is pinned: GOMAXPROCS=N for ours, whose
// pool then decodes a grid's tiles side by side on the cores no other
// goroutine wants, and VIPS_CONCURRENCY=N for vips. With
// PROFILE=pi4 or pi3 the whole run, vips included, is in that Pi
// stand-in's control group (internal/piprofile).
//
// Run from the module root, on a quiet machine:
//
//	go run ./imaging/internal/imagebench -photos 6 -rounds 5
//	go run ./imaging/internal/imagebench -only heic -heic-file /tmp/grid.heic -rounds 3
//	go run ./imaging/internal/imagebench -only heic -heic-file /tmp/grid.heic -rounds 3 -cores 2 -cpu ""
//
// It needs vipsthumbnail (Debian package libvips-tools) and, for HEIC,
// heif-enc (libheif-examples). Targets: JPEG ratio at most 1.35, HEIC
// ratio at most 1.2, peak at most 96 MiB.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/imaging/internal/testimg"
	"eventbox/internal/piprofile"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("imagebench", flag.ContinueOnError)
	photos := fs.Int("photos", 6, "number of 12 MP photos")
	rounds := fs.Int("rounds", 5, "alternating rounds of ours and vips")
	child := fs.String("child", "", "internal: run the pipeline once on this file and report memory")
	measure := fs.String("measure", "", "internal: run -child on this file and report its rusage")
	withHEIC := fs.Bool("heic", false, "also measure a 12 MP grid HEIC side by side (needs heif-enc)")
	only := fs.String("only", "", "jpeg or heic: measure only that format")
	heicFile := fs.String("heic-file", "", "the grid HEIC to measure: made there if missing (default: a temporary one)")
	cpus := fs.String("cpu", "0", "the CPU both sides are pinned to (taskset -c), so libheif's threads count as one; \"\" for none")
	cores := fs.Int("cores", 1, "the cores each side may use (GOMAXPROCS, VIPS_CONCURRENCY); above 1 nothing is pinned, so libheif's threads and our tile decoders use them all")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if p, ok, err := piprofile.FromEnv(); err != nil {
		fmt.Fprintln(os.Stderr, "imagebench:", err)
		return 2
	} else if ok {
		code, err := piprofile.Reexec(p, "imagebench")
		if err != nil {
			fmt.Fprintln(os.Stderr, "imagebench:", err)
			return 1
		}
		return code
	}
	if *cores < 1 {
		*cores = 1
	}
	if *cpus != "" && *cores == 1 && os.Getenv("IMAGEBENCH_PINNED") == "" {
		return pin(*cpus)
	}
	runtime.GOMAXPROCS(*cores)
	if *child != "" {
		return runChild(*child)
	}
	if *measure != "" {
		return runMeasure(*measure)
	}
	if err := bench(*photos, *rounds, *cores, *only != "heic", *withHEIC || *only == "heic", *heicFile); err != nil {
		fmt.Fprintln(os.Stderr, "imagebench:", err)
		return 1
	}
	return 0
}

func bench(n, rounds, cores int, withJPEG, withHEIC bool, heicFile string) error {
	vips, err := exec.LookPath("vipsthumbnail")
	if err != nil {
		return fmt.Errorf("vipsthumbnail not found (install libvips-tools): %w", err)
	}
	dir, err := os.MkdirTemp("", "imagebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o700); err != nil {
		return err
	}
	if withJPEG {
		var files []string
		var total int
		for i := range n {
			o := 1
			if i%3 == 1 {
				o = 6
			}
			b, err := testimg.JPEG(testimg.Photo(4032, 3024, uint64(i+1)), 90, testimg.EXIF(o, true))
			if err != nil {
				return err
			}
			f := filepath.Join(dir, fmt.Sprintf("p%02d.jpg", i))
			if err := os.WriteFile(f, b, 0o600); err != nil {
				return err
			}
			files = append(files, f)
			total += len(b)
		}
		fmt.Printf("%d photos 4032x3024 q90, mean %.2f MB; GOMAXPROCS=%d, one worker; vips with VIPS_CONCURRENCY=%d\n", n, float64(total)/float64(n)/1e6, cores, cores)
		if err := sideBySide(vips, files, out, rounds, cores); err != nil {
			return err
		}
		if err := peak("jpeg", files[min(1, len(files)-1)], cores); err != nil {
			return err
		}
	}
	if withHEIC {
		return benchHEIC(vips, dir, out, heicFile, rounds, cores)
	}
	return nil
}

// sideBySide runs, alternately, rounds of our pipeline and of vipsthumbnail
// on files (after one warm-up of each) and prints each round's times, the
// medians and the median of the per-round ratios.
func sideBySide(vips string, files []string, out string, rounds, cores int) error {
	n := len(files)
	pool := imaging.NewPool(imaging.PoolConfig{Workers: 1})
	// Each run returns wall time and CPU time (user + system) per photo.
	// On a shared machine the CPU time is the steadier measure: other
	// processes stretch the wall time, not the CPU a job needs.
	runOurs := func() (time.Duration, time.Duration, error) {
		cpu0 := selfCPU()
		start := time.Now()
		for _, f := range files {
			if err := makeFile(pool, f, out); err != nil {
				return 0, 0, err
			}
		}
		return time.Since(start) / time.Duration(n), (selfCPU() - cpu0) / time.Duration(n), nil
	}
	runVips := func() (time.Duration, time.Duration, error) {
		var cpu time.Duration
		start := time.Now()
		for _, size := range []struct{ s, o string }{{"1920", "%s_vd.jpg[Q=85,strip]"}, {"400", "%s_vt.jpg[Q=80,strip]"}} {
			cmd := exec.Command(vips, append([]string{"-s", size.s, "-o", filepath.Join(out, size.o)}, files...)...)
			cmd.Env = append(os.Environ(), fmt.Sprintf("VIPS_CONCURRENCY=%d", cores))
			if b, err := cmd.CombinedOutput(); err != nil {
				return 0, 0, fmt.Errorf("vipsthumbnail: %w: %s", err, b)
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		return time.Since(start) / time.Duration(n), cpu / time.Duration(n), nil
	}
	if _, _, err := runOurs(); err != nil { // warm-up
		return err
	}
	if _, _, err := runVips(); err != nil {
		return err
	}
	var ours, theirs, ratios, oursCPU, theirsCPU, cpuRatios []float64
	for r := range rounds {
		a, acpu, err := runOurs()
		if err != nil {
			return err
		}
		b, bcpu, err := runVips()
		if err != nil {
			return err
		}
		ours, theirs, ratios = append(ours, ms(a)), append(theirs, ms(b)), append(ratios, ms(a)/ms(b))
		oursCPU, theirsCPU, cpuRatios = append(oursCPU, ms(acpu)), append(theirsCPU, ms(bcpu)), append(cpuRatios, ms(acpu)/ms(bcpu))
		fmt.Printf("round %d: wall ours %6.1f, vips %6.1f ms/photo, ratio %.2f | CPU ours %6.1f, vips %6.1f ms/photo, ratio %.2f\n",
			r+1, ms(a), ms(b), ms(a)/ms(b), ms(acpu), ms(bcpu), ms(acpu)/ms(bcpu))
	}
	fmt.Printf("median wall: ours %.1f ms/photo, vipsthumbnail %.1f ms/photo; ratio (median of rounds) %.2f, range %.2f-%.2f\n",
		median(ours), median(theirs), median(ratios), slices.Min(ratios), slices.Max(ratios))
	fmt.Printf("median CPU:  ours %.1f ms/photo, vipsthumbnail %.1f ms/photo; ratio (median of rounds) %.2f, range %.2f-%.2f\n",
		median(oursCPU), median(theirsCPU), median(cpuRatios), slices.Min(cpuRatios), slices.Max(cpuRatios))
	return checkOutputs(out, files)
}

// pin runs this program again on one CPU (taskset), children included.
func pin(cpu string) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "imagebench:", err)
		return 1
	}
	cmd := exec.Command("taskset", append([]string{"-c", cpu, self}, os.Args[1:]...)...)
	cmd.Env = append(os.Environ(), "IMAGEBENCH_PINNED=1")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	fmt.Printf("both sides pinned to CPU %s\n", cpu)
	if err := cmd.Run(); err != nil {
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "imagebench: taskset:", err)
		return 1
	}
	return 0
}

// selfCPU returns the CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// makeFile runs the pipeline on one file and writes both variants, as the
// daemon would.
func makeFile(pool *imaging.Pool, path, out string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	v, err := pool.Make(context.Background(), f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	base := filepath.Join(out, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if err := os.WriteFile(base+"_d.jpg", v.Display, 0o600); err != nil {
		return err
	}
	return os.WriteFile(base+"_t.jpg", v.Thumb, 0o600)
}

// checkOutputs makes sure both tools made the same sizes, so the comparison
// is of the same work, and reports how close the pictures are: the mean
// PSNR of our luma against vips's (Lanczos3) for each variant.
func checkOutputs(out string, files []string) error {
	var psnrs [2]float64
	for _, f := range files {
		base := filepath.Join(out, strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)))
		for i, pair := range [][2]string{{"_d.jpg", "_vd.jpg"}, {"_t.jpg", "_vt.jpg"}} {
			a, err := decodeFile(base + pair[0])
			if err != nil {
				return err
			}
			b, err := decodeFile(base + pair[1])
			if err != nil {
				return err
			}
			if a.Bounds() != b.Bounds() {
				return fmt.Errorf("%s: ours %v, vips %v", base+pair[0], a.Bounds(), b.Bounds())
			}
			psnrs[i] += lumaPSNR(a, b) / float64(len(files))
		}
	}
	fmt.Printf("outputs: same sizes as vipsthumbnail's for every photo and variant; luma PSNR ours vs vips: display %.1f dB, thumb %.1f dB\n", psnrs[0], psnrs[1])
	return nil
}

func decodeFile(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := jpeg.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func lumaPSNR(a, b image.Image) float64 {
	var se float64
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ya := color.GrayModel.Convert(a.At(x, y)).(color.Gray).Y
			yb := color.GrayModel.Convert(b.At(x, y)).(color.Gray).Y
			d := float64(ya) - float64(yb)
			se += d * d
		}
	}
	mse := se / float64(r.Dx()*r.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

// peak runs the pipeline on one file in a child process and reports its
// memory. Linux carries a process's max RSS over from its parent across
// exec, so the child is started by a small intermediate process (-measure)
// whose own RSS is far below the child's, and the child also reads its
// VmHWM, which belongs to its own address space only.
func peak(label, file string, cores int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-measure", file, "-cores", strconv.Itoa(cores))
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", cores))
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("measuring: %w", err)
	}
	fmt.Printf("peak memory, one worker, GOMAXPROCS=%d, %s: %s\n", cores, label, strings.TrimSpace(stdout.String()))
	return nil
}

func runMeasure(file string) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd := exec.Command(self, "-child", file, "-cores", strconv.Itoa(runtime.GOMAXPROCS(0)))
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	maxrss := int64(0)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxrss = int64(ru.Maxrss) // KiB on Linux
	}
	fmt.Printf("%s; max RSS (rusage) %.1f MiB", strings.TrimSpace(stdout.String()), float64(maxrss)/1024)
	return 0
}

func runChild(file string) int {
	pool := imaging.NewPool(imaging.PoolConfig{Workers: 1})
	start := time.Now()
	if err := makeFile(pool, file, os.TempDir()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	elapsed := time.Since(start)
	hwm := "?"
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
				hwm = fmt.Sprintf("%.1f MiB", float64(kb)/1024)
			}
		}
	}
	fmt.Printf("VmHWM %s (one Make in %.0f ms, first run in a fresh process)", hwm, ms(elapsed))
	return 0
}

// benchHEIC measures a 12 MP grid HEIC (4032×3024 in 8×6 tiles of
// 512×512, the iPhone's layout, every tile coded apart) side by side with
// vipsthumbnail (libheif), and the first Make in a fresh process, which
// compiles the WebAssembly decoder.
func benchHEIC(vips, dir, out, file string, rounds, cores int) error {
	if file == "" {
		file = filepath.Join(dir, "grid.heic")
	}
	if _, err := os.Stat(file); err != nil {
		if _, err := exec.LookPath("heif-enc"); err != nil {
			return fmt.Errorf("heif-enc not found (install libheif-examples): %w", err)
		}
		tmp, err := os.MkdirTemp("", "imagebench-tiles")
		if err != nil {
			return err
		}
		b, _, err := imagingtest.GridPictureThumbWith(imagingtest.Medium, tmp, 4032, 3024, 48, 0, 0, 0)
		os.RemoveAll(tmp)
		if err != nil {
			return fmt.Errorf("making the grid HEIC: %w", err)
		}
		if err := os.WriteFile(file, b, 0o600); err != nil {
			return err
		}
	}
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	fmt.Printf("heic: %s, 4032x3024 grid of 512x512 tiles, %.2f MB; GOMAXPROCS=%d, one worker, decoder compiled before the rounds; vips with VIPS_CONCURRENCY=%d\n", file, float64(st.Size())/1e6, cores, cores)
	if err := sideBySide(vips, []string{file}, out, rounds, cores); err != nil {
		return err
	}
	return peak("heic", file, cores)
}
