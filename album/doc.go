// Package album writes the printable album of an event: an A4 PDF with a
// cover page (title, date, logo) followed by the photos, one, two or four
// to a page, each with its caption.
//
// The PDF is streamed: every object is written as soon as it is made and
// only the byte offsets of the objects are remembered, for the
// cross-reference table at the end. Photos are embedded as the JPEG bytes
// they already are (/DCTDecode), copied from their file to the output and
// never decoded, so the memory a Writer needs does not grow with the
// number of photos. Text is laid out by package eventbox/text (font
// fallback per character, bidirectional order, OpenType shaping: Arabic
// joined, Devanagari conjuncts) and drawn glyph by glyph with TrueType
// fonts embedded in the PDF (CIDFontType2, Identity-H), written at the end
// with only the widths of the glyphs used. A ToUnicode map, and ActualText
// spans where a glyph cannot say its characters alone, keep the text
// searchable and copyable in logical order (docs/decisions.md, "One text
// stack").
package album
