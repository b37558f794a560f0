package imagingtest

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"os/exec"
)

// LargeJPEG writes to path a w×h baseline JPEG (4:2:0, quality 90, made by
// cjpeg from Debian's libjpeg-turbo-progs, as a phone's full-resolution
// mode writes one) of a picture computed row by row and never held: colour
// gradients and broad waves with a little noise, so its scan data is not
// trivially small. It returns the picture reduced by reduce (each pixel is
// the picture at the centre of a reduce×reduce block, without the noise),
// to compare a decoding with LumaError without holding the full size.
func LargeJPEG(path string, w, h, reduce int) (*image.YCbCr, error) {
	bin, err := exec.LookPath("cjpeg")
	if err != nil {
		return nil, fmt.Errorf("cjpeg (Debian package libjpeg-turbo-progs): %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(bin, "-quality", "90", "-sample", "2x2")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := newLargePicture(w, h)
	werr := p.writePPM(in)
	in.Close()
	if err := cmd.Wait(); err != nil || werr != nil {
		return nil, fmt.Errorf("cjpeg: %v %v: %s", err, werr, stderr.Bytes())
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	rw, rh := w/reduce, h/reduce
	ref := image.NewYCbCr(image.Rect(0, 0, rw, rh), image.YCbCrSubsampleRatio420)
	for y := range rh {
		for x := range rw {
			r, g, b := p.at(x*reduce+reduce/2, y*reduce+reduce/2)
			ref.Y[y*ref.YStride+x], _, _ = color.RGBToYCbCr(r, g, b)
		}
	}
	return ref, nil
}

// largePicture is LargeJPEG's picture: red across, green down, blue in
// waves, from tables of one row and one column.
type largePicture struct {
	w, h         int
	red, blueCol []float64
	green, wave  []float64
}

func newLargePicture(w, h int) *largePicture {
	p := &largePicture{w: w, h: h, red: make([]float64, w), blueCol: make([]float64, w),
		green: make([]float64, h), wave: make([]float64, h)}
	for x := range w {
		u := float64(x) / float64(w)
		p.red[x] = 30 + 200*u
		p.blueCol[x] = 90 * math.Sin(2*math.Pi*3*u)
	}
	for y := range h {
		v := float64(y) / float64(h)
		p.green[y] = 30 + 200*v
		p.wave[y] = math.Cos(2 * math.Pi * 2 * v)
	}
	return p
}

func (p *largePicture) at(x, y int) (r, g, b uint8) {
	return uint8(p.red[x]), uint8(p.green[y]), uint8(128 + p.blueCol[x]*p.wave[y])
}

func (p *largePicture) writePPM(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "P6\n%d %d\n255\n", p.w, p.h)
	row := make([]byte, 3*p.w)
	for y := range p.h {
		for x := range p.w {
			r, g, b := p.at(x, y)
			// A little noise, -4 to 3, from a hash of the position.
			n := uint32(x)*0x9e3779b1 ^ uint32(y)*0x85ebca77
			n ^= n >> 15
			d := int(n&7) - 4
			row[3*x], row[3*x+1], row[3*x+2] = clamp(int(r)+d), clamp(int(g)+d), clamp(int(b)+d)
		}
		if _, err := bw.Write(row); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func clamp(v int) byte { return byte(min(max(v, 0), 255)) }
