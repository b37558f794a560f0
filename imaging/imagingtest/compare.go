package imagingtest

import (
	"image"
	"math"
)

// LumaError is the mean absolute difference between the luma of 8×8 blocks
// of got and of the same areas of want (which may be larger: the blocks are
// scaled onto it). Noise averages out, while a misplaced or wrongly turned
// tile stands out by tens of levels. got must be an *image.YCbCr or an
// *image.Gray (what image/jpeg decodes); any other type gives NaN.
func LumaError(got image.Image, want *image.YCbCr) float64 {
	var luma func(x, y int) float64
	switch g := got.(type) {
	case *image.YCbCr:
		luma = func(x, y int) float64 { return float64(g.Y[(y-g.Rect.Min.Y)*g.YStride+x-g.Rect.Min.X]) }
	case *image.Gray:
		luma = func(x, y int) float64 { return float64(g.Pix[(y-g.Rect.Min.Y)*g.Stride+x-g.Rect.Min.X]) }
	default:
		return math.NaN()
	}
	gw, gh := got.Bounds().Dx(), got.Bounds().Dy()
	ww, wh := want.Rect.Dx(), want.Rect.Dy()
	var sum float64
	n := 0
	for by := 0; by+8 <= gh; by += 8 {
		for bx := 0; bx+8 <= gw; bx += 8 {
			var g float64
			for y := by; y < by+8; y++ {
				for x := bx; x < bx+8; x++ {
					g += luma(x, y)
				}
			}
			x0, x1 := bx*ww/gw, (bx+8)*ww/gw
			y0, y1 := by*wh/gh, (by+8)*wh/gh
			var w float64
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					w += float64(want.Y[y*want.YStride+x])
				}
			}
			sum += math.Abs(g/64 - w/float64((x1-x0)*(y1-y0)))
			n++
		}
	}
	return sum / float64(n)
}
