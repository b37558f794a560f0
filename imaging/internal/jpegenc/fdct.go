package jpegenc

import "eventbox/imaging/internal/jpegspec"

// The forward DCT in integers: the Loeffler–Ligtenberg–Moschytz
// factorization (12 multiplications per 8 samples), first over rows then
// over columns, as the IJG library's "islow" method computes it. Its
// output is eight times the DCT coefficient; the quantizers' reciprocals
// take the eight out.

// descale divides x by 2^n, rounded.
func descale(x int32, n uint) int32 { return (x + 1<<(n-1)) >> n }

// odd is the odd half of the 8-point transform, from the differences of
// the mirrored samples (tmp4 = x3−x4, tmp5 = x2−x5, tmp6 = x1−x6,
// tmp7 = x0−x7): outputs 1, 3, 5 and 7, scaled by 2^ConstBits.
func odd(tmp4, tmp5, tmp6, tmp7 int32) (o1, o3, o5, o7 int32) {
	z1, z2 := tmp4+tmp7, tmp5+tmp6
	z3, z4 := tmp4+tmp6, tmp5+tmp7
	z5 := (z3 + z4) * jpegspec.Fix1_175875602
	z1 *= -jpegspec.Fix0_899976223
	z2 *= -jpegspec.Fix2_562915447
	z3 = z3*-jpegspec.Fix1_961570560 + z5
	z4 = z4*-jpegspec.Fix0_390180644 + z5
	return tmp7*jpegspec.Fix1_501321110 + z1 + z4, tmp6*jpegspec.Fix3_072711026 + z2 + z3,
		tmp5*jpegspec.Fix2_053119869 + z2 + z4, tmp4*jpegspec.Fix0_298631336 + z1 + z3
}

// fdct transforms b (samples less 128) in place.
func fdct(b *[64]int32) {
	// Rows: the results are scaled up by 2^jpegspec.Pass1Bits.
	for y := 0; y < 64; y += 8 {
		r := b[y : y+8 : y+8]
		tmp0, tmp7 := r[0]+r[7], r[0]-r[7]
		tmp1, tmp6 := r[1]+r[6], r[1]-r[6]
		tmp2, tmp5 := r[2]+r[5], r[2]-r[5]
		tmp3, tmp4 := r[3]+r[4], r[3]-r[4]

		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2
		r[0] = (tmp10 + tmp11) << jpegspec.Pass1Bits
		r[4] = (tmp10 - tmp11) << jpegspec.Pass1Bits
		z1 := (tmp12 + tmp13) * jpegspec.Fix0_541196100
		r[2] = descale(z1+tmp13*jpegspec.Fix0_765366865, jpegspec.ConstBits-jpegspec.Pass1Bits)
		r[6] = descale(z1-tmp12*jpegspec.Fix1_847759065, jpegspec.ConstBits-jpegspec.Pass1Bits)

		o1, o3, o5, o7 := odd(tmp4, tmp5, tmp6, tmp7)
		r[1] = descale(o1, jpegspec.ConstBits-jpegspec.Pass1Bits)
		r[3] = descale(o3, jpegspec.ConstBits-jpegspec.Pass1Bits)
		r[5] = descale(o5, jpegspec.ConstBits-jpegspec.Pass1Bits)
		r[7] = descale(o7, jpegspec.ConstBits-jpegspec.Pass1Bits)
	}
	// Columns: the pass-1 scale comes out; the result is 8× the
	// coefficient.
	for x := range 8 {
		tmp0, tmp7 := b[x]+b[56+x], b[x]-b[56+x]
		tmp1, tmp6 := b[8+x]+b[48+x], b[8+x]-b[48+x]
		tmp2, tmp5 := b[16+x]+b[40+x], b[16+x]-b[40+x]
		tmp3, tmp4 := b[24+x]+b[32+x], b[24+x]-b[32+x]

		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2
		b[x] = descale(tmp10+tmp11, jpegspec.Pass1Bits)
		b[32+x] = descale(tmp10-tmp11, jpegspec.Pass1Bits)
		z1 := (tmp12 + tmp13) * jpegspec.Fix0_541196100
		b[16+x] = descale(z1+tmp13*jpegspec.Fix0_765366865, jpegspec.ConstBits+jpegspec.Pass1Bits)
		b[48+x] = descale(z1-tmp12*jpegspec.Fix1_847759065, jpegspec.ConstBits+jpegspec.Pass1Bits)

		o1, o3, o5, o7 := odd(tmp4, tmp5, tmp6, tmp7)
		b[8+x] = descale(o1, jpegspec.ConstBits+jpegspec.Pass1Bits)
		b[24+x] = descale(o3, jpegspec.ConstBits+jpegspec.Pass1Bits)
		b[40+x] = descale(o5, jpegspec.ConstBits+jpegspec.Pass1Bits)
		b[56+x] = descale(o7, jpegspec.ConstBits+jpegspec.Pass1Bits)
	}
}
