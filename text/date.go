package text

import (
	"strconv"
	"time"

	"eventbox/i18n"
)

// Date writes the calendar day of t the way the language of locale reads
// it, from the "dates" section of the catalogue (i18n; English for
// a language it lacks): "20 June 2026", "1er juin 2026", "20 giugno
// 2026", "20 de junio de 2026". The first of a month is written with
// dates.dateFirst, any other day with dates.date. It does not change t's
// time zone.
func Date(t time.Time, locale string) string {
	l := i18n.Embedded().Lang(locale)
	month := l.Text("dates.month" + strconv.Itoa(int(t.Month())))
	key := "dates.date"
	if t.Day() == 1 {
		key = "dates.dateFirst"
	}
	return l.Format(key, "day", strconv.Itoa(t.Day()), "month", month, "year", strconv.Itoa(t.Year()))
}

// DateTime writes the day of t as [Date] does, then its clock time on 24
// hours, as dates.dateTime says: "20 June 2026, 15:04", "20 de junio de
// 2026, 15:04".
func DateTime(t time.Time, locale string) string {
	return i18n.Embedded().Lang(locale).Format("dates.dateTime", "date", Date(t, locale), "time", t.Format("15:04"))
}
