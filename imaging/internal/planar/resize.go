package planar

import "math"

// Resampling weights are 14-bit fixed point: a row of weights sums to exactly
// weightOne, so flat areas stay flat and the sums fit an int32 with room for
// Catmull-Rom's negative lobes.
const (
	weightBits = 14
	weightOne  = 1 << weightBits
)

// Fit returns the size of a w×h picture scaled, keeping its aspect ratio, so
// that its longest side is long. A picture whose sides are both at most long
// keeps its own size: Fit never upscales. Each side of the result is at least 1.
func Fit(w, h, long int) (int, int) {
	if w <= long && h <= long {
		return w, h
	}
	if w >= h {
		return long, max(1, int(math.Round(float64(h)*float64(long)/float64(w))))
	}
	return max(1, int(math.Round(float64(w)*float64(long)/float64(h)))), long
}

// Resize returns m resampled to w×h pixels, with 4:2:0 chroma unless m is grey.
//
// The filter is a separable Catmull-Rom whose support is widened by the
// reduction factor, so a large reduction averages every source sample instead
// of skipping most of them (no aliasing). For a reduction of more than about
// 2×, Halve first is cheaper for nearly the same result. w and h must be
// positive.
func Resize(m Image, w, h int) Image {
	out := Image{W: w, H: h, SubX: 1, SubY: 1, Gray: m.Gray}
	sx := float64(m.W) / float64(w)
	sy := float64(m.H) / float64(h)
	out.Y = resizePlane(m.Y, w, h, sx, sy)
	if m.Gray {
		return out
	}
	out.SubX, out.SubY = 2, 2
	cw, ch := ceilDiv(w, 2), ceilDiv(h, 2)
	// A chroma sample of the result spans 2 output pixels; one of the source
	// spans SubX (SubY) source pixels.
	rx := 2 * sx / float64(m.SubX)
	ry := 2 * sy / float64(m.SubY)
	out.Cb = resizePlane(m.Cb, cw, ch, rx, ry)
	out.Cr = resizePlane(m.Cr, cw, ch, rx, ry)
	return out
}

// resizePlane resamples p to w×h, where rx and ry are the number of source
// samples per destination sample along each axis.
func resizePlane(p Plane, w, h int, rx, ry float64) Plane {
	if w == p.W && rx == 1 && h == p.H && ry == 1 {
		return copyPlane(p)
	}
	if w != p.W || rx != 1 {
		p = resampleRows(p, w, makeTaps(p.W, w, rx))
	}
	if h != p.H || ry != 1 {
		p = resampleCols(p, h, makeTaps(p.H, h, ry))
	}
	return p
}

func copyPlane(p Plane) Plane {
	d := NewPlane(p.W, p.H)
	for y := range p.H {
		copy(d.Row(y), p.Row(y))
	}
	return d
}

// taps holds, for each destination sample, the first source sample it reads
// and n fixed-point weights for n consecutive source samples.
type taps struct {
	n     int
	start []int
	w     []int16
}

// catmullRom is the cubic convolution kernel with a = -0.5.
func catmullRom(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x < 1:
		return (1.5*x-2.5)*x*x + 1
	case x < 2:
		return ((-0.5*x+2.5)*x-4)*x + 2
	}
	return 0
}

// makeTaps computes the weights that resample srcLen samples to dstLen, where
// ratio source samples make one destination sample. Samples are centred:
// destination j sits at source coordinate (j+0.5)*ratio-0.5. Taps that fall
// outside the source are folded onto the edge sample.
func makeTaps(srcLen, dstLen int, ratio float64) taps {
	fs := max(ratio, 1)
	radius := 2 * fs
	n := min(int(math.Ceil(2*radius))+1, srcLen)
	t := taps{n: n, start: make([]int, dstLen), w: make([]int16, n*dstLen)}
	fw := make([]float64, n)
	for j := range dstLen {
		c := (float64(j)+0.5)*ratio - 0.5
		lo := int(math.Floor(c-radius)) + 1
		hi := int(math.Floor(c + radius))
		st := min(max(lo, 0), srcLen-n)
		clear(fw)
		sum := 0.0
		for i := lo; i <= hi; i++ {
			wt := catmullRom((float64(i) - c) / fs)
			if wt == 0 {
				continue
			}
			fw[min(max(i, 0), srcLen-1)-st] += wt
			sum += wt
		}
		t.start[j] = st
		ws := t.w[j*n : j*n+n]
		total, big := 0, 0
		for k, f := range fw {
			v := int(math.Round(f / sum * weightOne))
			ws[k] = int16(v)
			total += v
			if fw[k] > fw[big] {
				big = k
			}
		}
		ws[big] += int16(weightOne - total)
	}
	return t.trim(srcLen)
}

// trim drops the taps whose weight is zero for every destination sample:
// the window above is one sample wider than the kernel's support needs.
func (t taps) trim(srcLen int) taps {
	n, span := t.n, 1
	first := make([]int, len(t.start))
	for j := range t.start {
		ws := t.w[j*n : j*n+n]
		f, l := 0, n-1
		for f < l && ws[f] == 0 {
			f++
		}
		for l > f && ws[l] == 0 {
			l--
		}
		first[j] = f
		span = max(span, l-f+1)
	}
	if span == n {
		return t
	}
	out := taps{n: span, start: make([]int, len(t.start)), w: make([]int16, span*len(t.start))}
	for j, st := range t.start {
		s := min(st+first[j], srcLen-span)
		out.start[j] = s
		for k := range span {
			if i := s - st + k; i >= 0 && i < n {
				out.w[j*span+k] = t.w[j*n+i]
			}
		}
	}
	return out
}

func clamp8(v int32) byte {
	if uint32(v) <= 255 {
		return byte(v)
	}
	if v < 0 {
		return 0
	}
	return 255
}

// resampleRows resamples each row of p to w samples.
func resampleRows(p Plane, w int, t taps) Plane {
	d := NewPlane(w, p.H)
	n := t.n
	for y := range p.H {
		row := p.Row(y)
		out := d.Row(y)
		for x := range out {
			ws := t.w[x*n : x*n+n]
			s := row[t.start[x]:]
			s = s[:len(ws)]
			sum := int32(weightOne / 2)
			for k, wt := range ws {
				sum += int32(s[k]) * int32(wt)
			}
			out[x] = clamp8(sum >> weightBits)
		}
	}
	return d
}

// resampleCols resamples each column of p to h samples, a row at a time so
// the source is read sequentially.
func resampleCols(p Plane, h int, t taps) Plane {
	d := NewPlane(p.W, h)
	n := t.n
	acc := make([]int32, p.W)
	for y := range h {
		for i := range acc {
			acc[i] = weightOne / 2
		}
		ws := t.w[y*n : y*n+n]
		for k, wt := range ws {
			if wt == 0 {
				continue
			}
			row := p.Row(t.start[y] + k)
			row = row[:len(acc)]
			w32 := int32(wt)
			for x, v := range row {
				acc[x] += int32(v) * w32
			}
		}
		out := d.Row(y)
		for x, a := range acc[:len(out)] {
			out[x] = clamp8(a >> weightBits)
		}
	}
	return d
}

// Halve returns m reduced to ceil(W/2)×ceil(H/2) pixels by averaging 2×2
// blocks of every plane; the last row or column of an odd side is repeated.
// Chroma keeps its subsampling.
func Halve(m Image) Image {
	out := Image{W: ceilDiv(m.W, 2), H: ceilDiv(m.H, 2), SubX: m.SubX, SubY: m.SubY, Gray: m.Gray}
	out.Y = halvePlane(m.Y)
	if !m.Gray {
		out.Cb = halvePlane(m.Cb)
		out.Cr = halvePlane(m.Cr)
	}
	return out
}

func halvePlane(p Plane) Plane {
	d := NewPlane(ceilDiv(p.W, 2), ceilDiv(p.H, 2))
	pairs := p.W / 2
	for y := range d.H {
		r0 := p.Row(2 * y)
		r1 := r0
		if 2*y+1 < p.H {
			r1 = p.Row(2*y + 1)
		}
		out := d.Row(y)
		for x := range pairs {
			a := r0[2*x : 2*x+2 : 2*x+2]
			b := r1[2*x : 2*x+2 : 2*x+2]
			out[x] = byte((int(a[0]) + int(a[1]) + int(b[0]) + int(b[1]) + 2) >> 2)
		}
		if p.W%2 == 1 {
			out[pairs] = byte((int(r0[p.W-1]) + int(r1[p.W-1]) + 1) >> 1)
		}
	}
	return d
}
