package imaging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/internal/testtool"
)

// largeResult is what the child process of testLargePhotos
// reports about one Make.
type largeResult struct {
	Width, Height int   // as Check saw it
	Estimate      int64 // the budget share Make reserved, bytes
	PeakKiB       int64 // peak RSS during Make over the RSS before it
	Millis        int64
	DisplayW      int
	DisplayH      int
	Err           string
}

// largePhoto is one row of TestPhoneJPEGsUpTo200MP and
// TestPhoneGridHEICsUpTo200MP.
type largePhoto struct {
	name   string
	w, h   int
	dw, dh int // display
	tw, th int // thumb
}

// TestPhoneJPEGsUpTo200MP makes the variants of the largest JPEGs phones
// take in their full-resolution modes (50 MP: Pixel, Samsung; 108 MP and
// 200 MP: Samsung, Xiaomi) with the default pool: each is accepted, decoded
// at 1/4 or 1/8 scale, its display and thumb have the right sizes and show
// the picture, and the peak memory of its Make stays within the share of
// the budget the pool reserves for it (see testLargePhotos).
// The 108 and 200 MP rows take most of the time (about 15 s): make
// longtest runs them, make test the 50 MP one (TestPhoneJPEGsOf50MP).
func TestPhoneJPEGsUpTo200MP(t *testing.T) {
	testtool.Long(t, "JPEGs of 108 and 200 MP")
	testtool.Unraced(t, "decoding JPEGs")
	testLargePhotos(t, false, []largePhoto{
		{"a 108 MP JPEG", 12000, 9000, 1920, 1440, 400, 300},
		{"a 200 MP JPEG", 16320, 12240, 1920, 1440, 400, 300},
		{"a 200 MP JPEG in 16:9", 16320, 9180, 1920, 1080, 400, 225},
	})
}

// TestPhoneJPEGsOf50MP is TestPhoneJPEGsUpTo200MP's most common size, the
// 50 MP of a Pixel's or a Samsung's full-resolution mode, in make test.
func TestPhoneJPEGsOf50MP(t *testing.T) {
	testLargePhotos(t, false, []largePhoto{
		{"a 50 MP JPEG", 8160, 6120, 1920, 1440, 400, 300},
	})
}

// TestPhoneGridHEICsUpTo200MP is TestPhoneJPEGsUpTo200MP for grid HEICs
// of 512×512 tiles, decoded tile by tile (about 2 to 4 minutes here: make
// longtest runs it).
func TestPhoneGridHEICsUpTo200MP(t *testing.T) {
	testtool.Long(t, "grid HEICs up to 200 MP")
	testtool.Unraced(t, "decoding HEIC tiles")
	testLargePhotos(t, true, []largePhoto{
		{"a 50 MP grid HEIC", 8160, 6120, 1920, 1440, 400, 300},
		{"a 108 MP grid HEIC", 12000, 9000, 1920, 1440, 400, 300},
		{"a 200 MP grid HEIC", 16320, 12240, 1920, 1440, 400, 300},
	})
}

// testLargePhotos makes each photo in a scratch directory (a JPEG row by
// row with cjpeg, a grid HEIC from a few tiles reused with heif-enc, never
// holding the picture), then has a process of its own make its variants
// with a default pool (largeChild), so that its peak RSS, with GOGC 5, is
// about the peak live memory of that Make alone; the HEIC decoder is
// compiled there beforehand, as in a running daemon. Each photo must be
// accepted, its display and thumb must have the right sizes and show the
// picture, and the peak must stay within the share of the budget the pool
// reserved, itself within the budget.
func testLargePhotos(t *testing.T, heic bool, tests []largePhoto) {
	if f := os.Getenv("IMAGING_LARGE_CHILD"); f != "" {
		largeChild(f)
		return
	}
	if testing.Short() {
		t.Skip("makes and decodes photos of up to 200 MP")
	}
	if heic {
		testtool.Need(t, "libheif-examples", "heif-enc")
		if !imaging.HEICSupported() {
			t.Skip("no HEIC in this build")
		}
	} else {
		testtool.Need(t, "libjpeg-turbo-progs", "cjpeg")
	}
	self := t.Name()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "photo")
			var ref *image.YCbCr
			began := time.Now()
			if heic {
				b, m, err := imagingtest.GridPictureReduced(dir, tt.w, tt.h, 4, 0, 4)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
				ref = m
			} else {
				m, err := imagingtest.LargeJPEG(path, tt.w, tt.h, 8)
				if err != nil {
					t.Fatal(err)
				}
				ref = m
			}
			made := time.Since(began)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			c := exec.Command(os.Args[0], "-test.run=^"+self+"$")
			c.Env = append(os.Environ(), "IMAGING_LARGE_CHILD="+path, "IMAGING_LARGE_HEIC="+strconv.FormatBool(heic))
			out, err := c.CombinedOutput()
			var res largeResult
			for _, l := range strings.Split(string(out), "\n") {
				if j, ok := strings.CutPrefix(l, "LARGE "); ok {
					if err := json.Unmarshal([]byte(j), &res); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err != nil || res.Width == 0 && res.Err == "" {
				t.Fatalf("child: %v\n%s", err, out)
			}
			t.Logf("%dx%d, %.1f MB (made in %v): Make took %d ms, peak RSS +%.1f MiB, budget share %.1f MiB of %d MiB",
				tt.w, tt.h, float64(st.Size())/1e6, made.Round(time.Millisecond), res.Millis,
				float64(res.PeakKiB)/1024, float64(res.Estimate)/(1<<20), imaging.DefaultMemoryBytes>>20)
			if res.Err != "" {
				t.Fatalf("Make: %s", res.Err)
			}
			if res.Width != tt.w || res.Height != tt.h {
				t.Errorf("Check saw %dx%d, want %dx%d", res.Width, res.Height, tt.w, tt.h)
			}
			for _, v := range []struct {
				name string
				w, h int
			}{{"display", tt.dw, tt.dh}, {"thumb", tt.tw, tt.th}} {
				b, err := os.ReadFile(path + "." + v.name)
				if err != nil {
					t.Fatal(err)
				}
				m, err := jpeg.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", v.name, err)
				}
				if got := m.Bounds().Size(); got.X != v.w || got.Y != v.h {
					t.Errorf("%s is %dx%d, want %dx%d", v.name, got.X, got.Y, v.w, v.h)
				}
				if e := imagingtest.LumaError(m, ref); e > 3 {
					t.Errorf("the %s's luma is off by %.1f on average, want at most 3", v.name, e)
				}
			}
			if res.DisplayW != tt.dw || res.DisplayH != tt.dh {
				t.Errorf("Variants say %dx%d, want %dx%d", res.DisplayW, res.DisplayH, tt.dw, tt.dh)
			}
			if res.Estimate > imaging.DefaultMemoryBytes {
				t.Errorf("budget share %d MiB, over the %d MiB budget", res.Estimate>>20, imaging.DefaultMemoryBytes>>20)
			}
			if res.PeakKiB<<10 > res.Estimate {
				t.Errorf("peak RSS +%.1f MiB, over the %.1f MiB the pool reserved", float64(res.PeakKiB)/1024, float64(res.Estimate)/(1<<20))
			}
		})
	}
}

// largeChild makes the variants of the photo at path with a default pool,
// writes them beside it (.display, .thumb) and prints a LARGE line.
func largeChild(path string) {
	res := largeResult{}
	defer func() {
		b, _ := json.Marshal(res)
		fmt.Printf("LARGE %s\n", b)
	}()
	debug.SetGCPercent(5)
	ctx := context.Background()
	pool := imaging.NewPool(imaging.PoolConfig{Workers: 1})
	if os.Getenv("IMAGING_LARGE_HEIC") == "true" {
		// The decoder's machine code is made once per process, before
		// any photo of a running daemon: not part of the peak.
		b, err := os.ReadFile("testdata/quadrants.heic")
		if err == nil {
			_, err = pool.Make(ctx, bytes.NewReader(b), int64(len(b)))
		}
		if err != nil {
			res.Err = "warming the HEIC decoder: " + err.Error()
			return
		}
	}
	f, err := os.Open(path)
	if err != nil {
		res.Err = err.Error()
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		res.Err = err.Error()
		return
	}
	info, err := pool.Check(f, st.Size())
	if err != nil {
		res.Err = err.Error()
		return
	}
	res.Width, res.Height, res.Estimate = info.Width, info.Height, imaging.MemoryEstimate(info)
	runtime.GC()
	debug.FreeOSMemory()
	// Reset the peak RSS to the current RSS (clear_refs 5).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		res.Err = "resetting the peak RSS: " + err.Error()
		return
	}
	before := statusKiB("VmRSS")
	start := time.Now()
	v, err := pool.Make(ctx, f, st.Size())
	res.Millis = time.Since(start).Milliseconds()
	res.PeakKiB = statusKiB("VmHWM") - before
	if err != nil {
		res.Err = err.Error()
		return
	}
	res.DisplayW, res.DisplayH = v.Width, v.Height
	if err := errors.Join(os.WriteFile(path+".display", v.Display, 0o600), os.WriteFile(path+".thumb", v.Thumb, 0o600)); err != nil {
		res.Err = err.Error()
	}
}

func statusKiB(field string) int64 {
	n, _ := strconv.ParseInt(status(field), 10, 64)
	return n
}
