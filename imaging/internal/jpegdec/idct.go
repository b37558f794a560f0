package jpegdec

import "eventbox/imaging/internal/jpegspec"

// The inverse DCTs take dequantised coefficients in natural (row-major) order
// and write level-shifted, clamped samples. The 8×8 one is the classic
// integer "slow but accurate" factorisation (Loeffler, Ligtenberg and
// Moschytz) with 13-bit constants; the reduced ones rebuild an N×N block from
// the N×N lowest frequencies with the N-point cosine basis and the same
// normalisation, so a block's mean is preserved at every scale.

const (
	fix0_382683433 = 3135
	fix0_707106781 = 5793
	fix0_923879533 = 7568
)

func clampSample(v int32) byte {
	v += 128
	if uint32(v) <= 255 {
		return byte(v)
	}
	if v < 0 {
		return 0
	}
	return 255
}

// fill writes one value to an n×n block.
func fill(dst []byte, stride, n int, v byte) {
	for y := range n {
		row := dst[y*stride : y*stride+n]
		for x := range row {
			row[x] = v
		}
	}
}

// idct8 transforms a full block into 8×8 samples.
func idct8(in *[64]int32, dst []byte, stride int) {
	var ws [64]int32
	for c := range 8 {
		if in[8+c] == 0 && in[16+c] == 0 && in[24+c] == 0 && in[32+c] == 0 &&
			in[40+c] == 0 && in[48+c] == 0 && in[56+c] == 0 {
			dc := in[c] << jpegspec.Pass1Bits
			for r := range 8 {
				ws[r*8+c] = dc
			}
			continue
		}
		z2, z3 := in[16+c], in[48+c]
		z1 := (z2 + z3) * jpegspec.Fix0_541196100
		tmp2 := z1 - z3*jpegspec.Fix1_847759065
		tmp3 := z1 + z2*jpegspec.Fix0_765366865
		z2, z3 = in[c], in[32+c]
		tmp0 := (z2 + z3) << jpegspec.ConstBits
		tmp1 := (z2 - z3) << jpegspec.ConstBits
		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2

		t0, t1, t2, t3 := in[56+c], in[40+c], in[24+c], in[8+c]
		z1, z2, z3 = t0+t3, t1+t2, t0+t2
		z4 := t1 + t3
		z5 := (z3 + z4) * jpegspec.Fix1_175875602
		t0 *= jpegspec.Fix0_298631336
		t1 *= jpegspec.Fix2_053119869
		t2 *= jpegspec.Fix3_072711026
		t3 *= jpegspec.Fix1_501321110
		z1 *= -jpegspec.Fix0_899976223
		z2 *= -jpegspec.Fix2_562915447
		z3 = z3*-jpegspec.Fix1_961570560 + z5
		z4 = z4*-jpegspec.Fix0_390180644 + z5
		t0 += z1 + z3
		t1 += z2 + z4
		t2 += z2 + z3
		t3 += z1 + z4

		const sh, rnd = jpegspec.ConstBits - jpegspec.Pass1Bits, 1 << (jpegspec.ConstBits - jpegspec.Pass1Bits - 1)
		ws[c] = (tmp10 + t3 + rnd) >> sh
		ws[56+c] = (tmp10 - t3 + rnd) >> sh
		ws[8+c] = (tmp11 + t2 + rnd) >> sh
		ws[48+c] = (tmp11 - t2 + rnd) >> sh
		ws[16+c] = (tmp12 + t1 + rnd) >> sh
		ws[40+c] = (tmp12 - t1 + rnd) >> sh
		ws[24+c] = (tmp13 + t0 + rnd) >> sh
		ws[32+c] = (tmp13 - t0 + rnd) >> sh
	}
	for r := range 8 {
		w := ws[r*8 : r*8+8 : r*8+8]
		out := dst[r*stride : r*stride+8 : r*stride+8]
		const sh, rnd = jpegspec.ConstBits + jpegspec.Pass1Bits + 3, 1 << (jpegspec.ConstBits + jpegspec.Pass1Bits + 2)
		z2, z3 := w[2], w[6]
		z1 := (z2 + z3) * jpegspec.Fix0_541196100
		tmp2 := z1 - z3*jpegspec.Fix1_847759065
		tmp3 := z1 + z2*jpegspec.Fix0_765366865
		tmp0 := (w[0] + w[4]) << jpegspec.ConstBits
		tmp1 := (w[0] - w[4]) << jpegspec.ConstBits
		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2

		t0, t1, t2, t3 := w[7], w[5], w[3], w[1]
		z1, z2, z3 = t0+t3, t1+t2, t0+t2
		z4 := t1 + t3
		z5 := (z3 + z4) * jpegspec.Fix1_175875602
		t0 *= jpegspec.Fix0_298631336
		t1 *= jpegspec.Fix2_053119869
		t2 *= jpegspec.Fix3_072711026
		t3 *= jpegspec.Fix1_501321110
		z1 *= -jpegspec.Fix0_899976223
		z2 *= -jpegspec.Fix2_562915447
		z3 = z3*-jpegspec.Fix1_961570560 + z5
		z4 = z4*-jpegspec.Fix0_390180644 + z5
		t0 += z1 + z3
		t1 += z2 + z4
		t2 += z2 + z3
		t3 += z1 + z4

		out[0] = clampSample((tmp10 + t3 + rnd) >> sh)
		out[7] = clampSample((tmp10 - t3 + rnd) >> sh)
		out[1] = clampSample((tmp11 + t2 + rnd) >> sh)
		out[6] = clampSample((tmp11 - t2 + rnd) >> sh)
		out[2] = clampSample((tmp12 + t1 + rnd) >> sh)
		out[5] = clampSample((tmp12 - t1 + rnd) >> sh)
		out[3] = clampSample((tmp13 + t0 + rnd) >> sh)
		out[4] = clampSample((tmp13 - t0 + rnd) >> sh)
	}
}

// idct4 rebuilds 4×4 samples from the 4×4 lowest frequencies of a block.
func idct4(in *[64]int32, dst []byte, stride int) {
	var ws [16]int32
	for c := range 4 {
		f0, f1, f2, f3 := in[c], in[8+c], in[16+c], in[24+c]
		e0 := (f0 + f2) * fix0_707106781
		e1 := (f0 - f2) * fix0_707106781
		o0 := f1*fix0_923879533 + f3*fix0_382683433
		o1 := f1*fix0_382683433 - f3*fix0_923879533
		const sh, rnd = jpegspec.ConstBits - jpegspec.Pass1Bits, 1 << (jpegspec.ConstBits - jpegspec.Pass1Bits - 1)
		ws[c] = (e0 + o0 + rnd) >> sh
		ws[4+c] = (e1 + o1 + rnd) >> sh
		ws[8+c] = (e1 - o1 + rnd) >> sh
		ws[12+c] = (e0 - o0 + rnd) >> sh
	}
	for r := range 4 {
		w := ws[r*4 : r*4+4 : r*4+4]
		out := dst[r*stride : r*stride+4 : r*stride+4]
		e0 := (w[0] + w[2]) * fix0_707106781
		e1 := (w[0] - w[2]) * fix0_707106781
		o0 := w[1]*fix0_923879533 + w[3]*fix0_382683433
		o1 := w[1]*fix0_382683433 - w[3]*fix0_923879533
		// The 2-D basis carries a factor 1/4 on top of the two passes.
		const sh, rnd = jpegspec.ConstBits + jpegspec.Pass1Bits + 2, 1 << (jpegspec.ConstBits + jpegspec.Pass1Bits + 1)
		out[0] = clampSample((e0 + o0 + rnd) >> sh)
		out[1] = clampSample((e1 + o1 + rnd) >> sh)
		out[2] = clampSample((e1 - o1 + rnd) >> sh)
		out[3] = clampSample((e0 - o0 + rnd) >> sh)
	}
}

// idct2 rebuilds 2×2 samples from the 2×2 lowest frequencies of a block.
func idct2(in *[64]int32, dst []byte, stride int) {
	f00, f01, f10, f11 := in[0], in[1], in[8], in[9]
	a, b := f00+f10, f00-f10 // top and bottom halves
	dst[0] = clampSample((a + f01 + f11 + 4) >> 3)
	dst[1] = clampSample((a - f01 - f11 + 4) >> 3)
	dst[stride] = clampSample((b + f01 - f11 + 4) >> 3)
	dst[stride+1] = clampSample((b - f01 + f11 + 4) >> 3)
}
