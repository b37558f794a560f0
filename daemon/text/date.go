package text

import (
	"fmt"
	"time"
)

// monthNames returns the month names of a language the box writes dates
// in, and false for any other.
func monthNames(locale string) ([12]string, bool) {
	switch locale {
	case "en":
		return [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}, true
	case "fr":
		return [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"}, true
	case "it":
		return [12]string{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"}, true
	case "es":
		return [12]string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}, true
	}
	return [12]string{}, false
}

// Date writes the calendar day of t the way the language of locale (en,
// fr, it, es; English for any other) reads it: "20 June 2026", "1er juin
// 2026", "20 giugno 2026", "20 de junio de 2026". It does not change t's
// time zone.
func Date(t time.Time, locale string) string {
	names, ok := monthNames(locale)
	if !ok {
		locale = "en"
		names, _ = monthNames(locale)
	}
	month := names[t.Month()-1]
	switch {
	case locale == "es":
		return fmt.Sprintf("%d de %s de %d", t.Day(), month, t.Year())
	case locale == "fr" && t.Day() == 1:
		return fmt.Sprintf("1er %s %d", month, t.Year())
	}
	return fmt.Sprintf("%d %s %d", t.Day(), month, t.Year())
}

// DateTime writes the day of t as [Date] does, then its clock time on 24
// hours: "20 June 2026, 15:04", "20 de junio de 2026, 15:04".
func DateTime(t time.Time, locale string) string {
	return Date(t, locale) + ", " + t.Format("15:04")
}
