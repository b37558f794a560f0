package qr

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
)

// MinContrast is the lowest WCAG 2 contrast ratio accepted between a code's
// foreground and background. Phone scanners read codes with a ratio of
// about 3 in good light; 4 leaves room for dim rooms and glossy prints.
// Black on white is 21.
const MinContrast = 4.0

// Colour validation errors. [ValidateColors] wraps them with the figures.
var (
	// ErrTranslucent: a colour is not fully opaque.
	ErrTranslucent = errors.New("colours must be opaque")
	// ErrInverted: the foreground is lighter than the background; many
	// scanners do not read light-on-dark codes.
	ErrInverted = errors.New("foreground must be darker than background")
	// ErrLowContrast: the contrast ratio is below MinContrast.
	ErrLowContrast = errors.New("contrast between foreground and background is too low")
)

// ValidateColors reports whether fg on bg makes a code that phones can
// read: both opaque, fg darker than bg, and a contrast ratio of at least
// [MinContrast]. The error wraps [ErrTranslucent], [ErrInverted] or
// [ErrLowContrast] and reads well as a validation message.
func ValidateColors(fg, bg color.RGBA) error {
	if fg.A != 0xff || bg.A != 0xff {
		return ErrTranslucent
	}
	if luminance(fg) >= luminance(bg) {
		return ErrInverted
	}
	if r := ContrastRatio(fg, bg); r < MinContrast {
		return fmt.Errorf("%w: %.1f, at least %.0f needed", ErrLowContrast, math.Floor(r*10)/10, MinContrast)
	}
	return nil
}

// ContrastRatio returns the WCAG 2 contrast ratio of two opaque colours,
// from 1 (same luminance) to 21 (black and white). Alpha is ignored.
func ContrastRatio(a, b color.RGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is the WCAG 2 relative luminance of an sRGB colour.
func luminance(c color.RGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// ParseColor parses "#rrggbb" or "#rgb" (case-insensitive) into an opaque
// colour.
func ParseColor(s string) (color.RGBA, error) {
	if len(s) != 7 && len(s) != 4 || s[0] != '#' {
		return color.RGBA{}, fmt.Errorf("colour %q: want #rrggbb", s)
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.RGBA{}, fmt.Errorf("colour %q: want #rrggbb", s)
	}
	if len(s) == 4 {
		r, g, b := uint8(v>>8&0xf), uint8(v>>4&0xf), uint8(v&0xf)
		return color.RGBA{R: r * 17, G: g * 17, B: b * 17, A: 0xff}, nil
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}, nil
}

// hex formats an opaque colour as "#rrggbb".
func hex(c color.RGBA) string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}
