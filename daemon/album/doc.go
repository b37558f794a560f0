// Package album writes the printable album of an event: an A4 PDF with a
// cover page (title, date, logo) followed by the photos, one, two or four
// to a page, each with its caption.
//
// The PDF is streamed: every object is written as soon as it is made and
// only the byte offsets of the objects are remembered, for the
// cross-reference table at the end. Photos are embedded as the JPEG bytes
// they already are (/DCTDecode), copied from their file to the output and
// never decoded, so the memory a Writer needs does not grow with the
// number of photos. Captions are drawn with TrueType fonts embedded in the
// PDF (CIDFontType2, Identity-H, with a ToUnicode map so text can be
// searched and copied), picked per character from a list of fonts, and
// written at the end with only the widths of the glyphs used.
//
// Text is put in visual order by a small bidirectional pass, so Hebrew and
// Arabic names read right to left; Arabic letters are not joined
// (docs/decisions.md, "Printable album").
package album
