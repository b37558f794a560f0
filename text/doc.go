// Package text is the box's one text stack: it lays out the short texts the
// box draws itself (a place's name under its QR code, titles and guest
// names in the PDF album) and formats the dates its outputs show.
//
// Layout is built on github.com/go-text/typesetting: the Unicode
// bidirectional algorithm splits a text into runs of one direction, each
// run is split again by script and by font (the first font of a [Fonts]
// list that has the character), and each piece is shaped with the font's
// own OpenType tables by a port of HarfBuzz. So Arabic letters take their
// joined forms, Devanagari forms its conjuncts and places its vowel signs,
// and brackets in right-to-left text are mirrored. The result is a [Line]
// of glyphs in visual order, left to right, that each output draws in its
// own way (pixels for a PNG, glyph ids for a PDF); every glyph keeps the
// characters it stands for, so that a PDF can map it back to text.
//
// Characters that no font covers are left out. A [Fonts] value is safe for
// concurrent use; a [Shaper] is not: it keeps the caches shaping needs, and
// is made for one user ([Fonts.NewShaper]) or lent for one drawing
// ([Fonts.WithShaper]).
package text
