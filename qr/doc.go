// Package qr draws the event's QR codes as PNG and SVG.
//
// The module matrix comes from github.com/skip2/go-qrcode; the drawing is
// the package's own, so that both formats share one layout: a size×size
// square in the background colour holding the code with a quiet zone of
// four modules, optionally a logo in the centre, and optionally a caption
// (a place's name) in a band below the code.
//
// Error correction is level M (15%), or level H (30%) when a logo covers
// the centre. The
// logo box covers at most 16% of the symbol and is cleared to the
// background colour around the logo, so the code still scans.
//
// Colours must be dark on light with enough contrast for phone cameras
// ([ValidateColors]).
//
// Captions are real text in the SVG. In the PNG they are laid out by
// package eventbox/text with the fonts given to [NewRenderer]:
// falling back font by font for each character, shaped with the fonts'
// OpenType tables (Arabic joined, Devanagari conjuncts) and in visual order
// for right-to-left text. Characters that no font covers are skipped.
package qr
