// Package jpegspec holds what the JPEG decoder and encoder share from the
// standard (ITU T.81) and its usual integer transform: the zig-zag order
// and the fixed-point constants of the Loeffler–Ligtenberg–Moschytz DCT
// the IJG library calls "islow".
package jpegspec

// Unzig maps the zig-zag index of a coefficient to its natural
// (row-major) index.
var Unzig = [64]uint8{
	0, 1, 8, 16, 9, 2, 3, 10,
	17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34,
	27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36,
	29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46,
	53, 60, 61, 54, 47, 55, 62, 63,
}

// The transform's fixed point: each FixN_NNN is round(N.NNN · 2^ConstBits);
// the first pass keeps Pass1Bits more bits than its input.
const (
	ConstBits = 13
	Pass1Bits = 2

	Fix0_298631336 = 2446
	Fix0_390180644 = 3196
	Fix0_541196100 = 4433
	Fix0_765366865 = 6270
	Fix0_899976223 = 7373
	Fix1_175875602 = 9633
	Fix1_501321110 = 12299
	Fix1_847759065 = 15137
	Fix1_961570560 = 16069
	Fix2_053119869 = 16819
	Fix2_562915447 = 20995
	Fix3_072711026 = 25172
)
