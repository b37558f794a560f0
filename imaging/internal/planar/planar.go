package planar

import (
	"fmt"
	"image"
)

// Plane is a W×H rectangle of 8-bit samples: sample (x, y) is Pix[y*Stride+x].
// Stride is at least W; the bytes past W in a row are padding.
type Plane struct {
	Pix    []byte
	Stride int
	W, H   int
}

// NewPlane returns a zeroed w×h plane whose stride is w.
func NewPlane(w, h int) Plane {
	return Plane{Pix: make([]byte, w*h), Stride: w, W: w, H: h}
}

// Row returns row y of p, W samples long, sharing p's memory.
func (p Plane) Row(y int) []byte {
	o := y * p.Stride
	return p.Pix[o : o+p.W : o+p.W]
}

// Image is a picture of W×H pixels held as planes.
//
// Y always holds W×H luma (or grey) samples. When Gray is false, Cb and Cr hold
// ceil(W/SubX)×ceil(H/SubY) chroma samples each, centred on the block of luma
// pixels they cover, as in JPEG (4:2:0 is SubX = SubY = 2, 4:4:4 is 1 and 1).
// When Gray is true, Cb and Cr are empty and SubX, SubY are 1.
type Image struct {
	W, H       int
	Y, Cb, Cr  Plane
	SubX, SubY int
	Gray       bool
}

// NewImage returns a zeroed w×h image with chroma subsampled subX×subY, or a
// grey image when gray is true (subX and subY are then ignored).
func NewImage(w, h, subX, subY int, gray bool) Image {
	m := Image{W: w, H: h, Y: NewPlane(w, h), SubX: 1, SubY: 1, Gray: gray}
	if !gray {
		m.SubX, m.SubY = subX, subY
		cw, ch := ceilDiv(w, subX), ceilDiv(h, subY)
		m.Cb, m.Cr = NewPlane(cw, ch), NewPlane(cw, ch)
	}
	return m
}

// Bytes returns the number of sample bytes m's planes hold.
func (m Image) Bytes() int {
	return len(m.Y.Pix) + len(m.Cb.Pix) + len(m.Cr.Pix)
}

// Validate reports whether m's planes have the sizes its W, H, SubX, SubY and
// Gray promise and hold enough bytes for their strides.
func (m Image) Validate() error {
	if m.W <= 0 || m.H <= 0 {
		return fmt.Errorf("empty image %dx%d", m.W, m.H)
	}
	if err := checkPlane(m.Y, m.W, m.H); err != nil {
		return fmt.Errorf("luma: %w", err)
	}
	if m.Gray {
		return nil
	}
	if m.SubX < 1 || m.SubY < 1 || m.SubX > 4 || m.SubY > 4 {
		return fmt.Errorf("subsampling %dx%d out of range", m.SubX, m.SubY)
	}
	cw, ch := ceilDiv(m.W, m.SubX), ceilDiv(m.H, m.SubY)
	if err := checkPlane(m.Cb, cw, ch); err != nil {
		return fmt.Errorf("cb: %w", err)
	}
	if err := checkPlane(m.Cr, cw, ch); err != nil {
		return fmt.Errorf("cr: %w", err)
	}
	return nil
}

func checkPlane(p Plane, w, h int) error {
	if p.W != w || p.H != h {
		return fmt.Errorf("plane is %dx%d, want %dx%d", p.W, p.H, w, h)
	}
	if p.Stride < p.W || len(p.Pix) < (p.H-1)*p.Stride+p.W {
		return fmt.Errorf("plane of %dx%d with stride %d has only %d bytes", p.W, p.H, p.Stride, len(p.Pix))
	}
	return nil
}

// Std returns m as a standard library image sharing m's memory: *image.Gray
// for grey, *image.YCbCr for 4:2:0 Y'CbCr. Other subsamplings are refused,
// since image/jpeg's encoder writes 4:2:0 and Resize always produces it.
func (m Image) Std() (image.Image, error) {
	r := image.Rect(0, 0, m.W, m.H)
	if m.Gray {
		return &image.Gray{Pix: m.Y.Pix, Stride: m.Y.Stride, Rect: r}, nil
	}
	if m.SubX != 2 || m.SubY != 2 {
		return nil, fmt.Errorf("chroma subsampling %dx%d is not 4:2:0", m.SubX, m.SubY)
	}
	if m.Cb.Stride != m.Cr.Stride {
		return nil, fmt.Errorf("chroma strides differ: %d and %d", m.Cb.Stride, m.Cr.Stride)
	}
	return &image.YCbCr{
		Y: m.Y.Pix, Cb: m.Cb.Pix, Cr: m.Cr.Pix,
		YStride: m.Y.Stride, CStride: m.Cb.Stride,
		SubsampleRatio: image.YCbCrSubsampleRatio420,
		Rect:           r,
	}, nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
