// Package jpegdec decodes sequential (baseline and extended) Huffman-coded
// JPEG images straight into planes, optionally scaled down by 2, 4 or 8 inside
// the inverse DCT.
//
// Scaling in the DCT domain is what keeps a 12 MP photo cheap: at 1/2 scale
// each 8×8 block is rebuilt from its 4×4 lowest frequencies into 4×4 pixels,
// so the full-size image never exists in memory and three quarters of the IDCT
// work is skipped. Blocks are decoded and transformed one at a time, so memory
// is the output planes plus a small read buffer.
//
// Progressive, arithmetic-coded, lossless, hierarchical and 12-bit JPEGs, CMYK
// and RGB-coded JPEGs, and unusual chroma layouts are refused with
// ErrUnsupported: callers fall back to image/jpeg for those rare files. The
// package has no state of its own; concurrent calls are independent.
package jpegdec
