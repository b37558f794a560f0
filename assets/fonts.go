package assets

import (
	"embed"
	"io/fs"
)

//go:embed fonts/*.ttf fonts/LICENSE-*.txt
var fonts embed.FS

// The embedded caption fonts, by file name in [Fonts].
const (
	// FontSans covers Latin, Greek, Cyrillic, Arabic, Hebrew and more.
	FontSans = "DejaVuSans.ttf"
	// FontCJK covers common Han ideographs, kana and bopomofo.
	FontCJK = "EventboxCJK.ttf"
	// FontHangul covers Korean Hangul.
	FontHangul = "EventboxHangul.ttf"
	// FontDevanagari covers Devanagari (Hindi, Marathi, Nepali...), with
	// the shaping tables its conjuncts and vowel signs need.
	FontDevanagari = "EventboxDevanagari.ttf"
)

// Fonts returns the embedded fonts folder: the TrueType files named by
// FontSans, FontCJK, FontHangul and FontDevanagari, and their licences (LICENSE-*.txt).
// The result is read-only and safe for concurrent use.
func Fonts() fs.FS {
	sub, err := fs.Sub(fonts, "fonts")
	if err != nil {
		// fs.Sub fails only for an invalid path; "fonts" is a constant.
		panic(err)
	}
	return sub
}

// CaptionFonts returns the caption fonts' file names in [Fonts], in the
// order a renderer should try them for each character. It returns a new
// slice on every call.
func CaptionFonts() []string {
	return []string{FontSans, FontCJK, FontHangul, FontDevanagari}
}
