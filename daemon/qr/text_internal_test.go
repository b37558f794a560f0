package qr

import (
	"slices"
	"testing"

	"golang.org/x/image/font/sfnt"

	"eventbox/assets"
)

func all(rune) bool { return true }

func TestShapeArabic(t *testing.T) {
	tests := []struct {
		name string
		in   string
		has  func(rune) bool
		want []rune
	}{
		{
			name: "a word takes initial, medial and final forms",
			in:   "بيت", // beh yeh teh
			has:  all,
			want: []rune{0xFE91, 0xFEF4, 0xFE96},
		},
		{
			name: "letters after a right-joining letter stand alone",
			in:   "دار", // dal alef reh: none of them joins the next letter
			has:  all,
			want: []rune{0xFEA9, 0xFE8D, 0xFEAD},
		},
		{
			name: "lam and alef become one ligature",
			in:   "لا",
			has:  all,
			want: []rune{0xFEFB},
		},
		{
			name: "lam-alef after a joining letter takes the final ligature",
			in:   "سلام", // seen lam alef meem
			has:  all,
			want: []rune{0xFEB3, 0xFEFC, 0xFEE1},
		},
		{
			name: "marks are looked through and kept",
			in:   "بِت", // beh kasra teh
			has:  all,
			want: []rune{0xFE91, 0x0650, 0xFE96},
		},
		{
			name: "a form without a glyph keeps the plain letter",
			in:   "بت",
			has:  func(r rune) bool { return r != 0xFE91 },
			want: []rune{0x0628, 0xFE96},
		},
		{
			name: "other scripts pass through",
			in:   "Zé 1",
			has:  all,
			want: []rune("Zé 1"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := shapeArabic([]rune(tt.in), tt.has)
			if string(got) != string(tt.want) {
				t.Errorf("shapeArabic(%q) = %U, want %U", tt.in, got, tt.want)
			}
		})
	}
}

func TestVisualOrder(t *testing.T) {
	rd, err := NewRendererFS(assets.Fonts(), assets.CaptionFonts()...)
	if err != nil {
		t.Fatal(err)
	}
	// rtl is an Arabic word as drawn: shaped, then reversed.
	rtl := func(s string) string {
		rs := shapeArabic([]rune(s), all)
		slices.Reverse(rs)
		return string(rs)
	}
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "left-to-right text is unchanged", in: "Salle des fêtes", want: "Salle des fêtes"},
		{name: "decomposed accents are composed", in: "fe\u0302tes", want: "fêtes"},
		{name: "line breaks become spaces", in: "Salle\nA\t", want: "Salle A"},
		{name: "an Arabic caption is shaped and reversed", in: "قاعة", want: rtl("قاعة")},
		{name: "two Arabic words swap places", in: "قاعة الاستقبال", want: rtl("الاستقبال") + " " + rtl("قاعة")},
		{
			name: "an Arabic word inside Latin text is reversed in place",
			in:   "Salle قاعة B",
			want: "Salle " + rtl("قاعة") + " B",
		},
		{
			name: "two Arabic words inside Latin text keep their right-to-left order",
			in:   "Salle قاعة الاستقبال B",
			want: "Salle " + rtl("الاستقبال") + " " + rtl("قاعة") + " B",
		},
		{
			// A number after Arabic letters belongs to the Arabic text
			// (rule W2), as in a browser.
			name: "a number after an Arabic word in Latin text reads with the Arabic",
			in:   "Salle قاعة 2",
			want: "Salle 2 " + rtl("قاعة"),
		},
		{
			// The brackets take the paragraph's direction and are
			// mirrored; the Latin text reads left to right.
			name: "a right-to-left caption puts its Latin text on the left and mirrors brackets",
			in:   "قاعة (A) Salle 12",
			want: "Salle 12 (A) " + rtl("قاعة"),
		},
		{
			name: "numbers in Arabic text stay left to right",
			in:   "قاعة 12",
			want: "12 " + rtl("قاعة"),
		},
		{
			name: "a Hebrew caption is reversed",
			in:   "אולם 3",
			want: "3 םלוא",
		},
		{
			name: "a mark stays after its base when reversed",
			in:   "בִּית",
			want: "תיבִּ",
		},
	}
	var buf sfnt.Buffer
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(rd.visual(&buf, tt.in)); got != tt.want {
				t.Errorf("visual(%q) = %q (%U), want %q (%U)", tt.in, got, []rune(got), tt.want, []rune(tt.want))
			}
		})
	}
}
