package text

import (
	"testing"
	"time"
)

func TestDatesReadInTheEventsLanguage(t *testing.T) {
	day := time.Date(2026, 6, 20, 15, 4, 0, 0, time.UTC)
	first := time.Date(2026, 6, 1, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name   string
		t      time.Time
		locale string
		date   string
		full   string
	}{
		{"English", day, "en", "20 June 2026", "20 June 2026, 15:04"},
		{"French", day, "fr", "20 juin 2026", "20 juin 2026, 15:04"},
		{"French writes the first of the month 1er", first, "fr", "1er juin 2026", "1er juin 2026, 09:30"},
		{"Italian", day, "it", "20 giugno 2026", "20 giugno 2026, 15:04"},
		{"Spanish", day, "es", "20 de junio de 2026", "20 de junio de 2026, 15:04"},
		{"Spanish September", time.Date(2026, 9, 5, 0, 0, 0, 0, time.UTC), "es", "5 de septiembre de 2026", "5 de septiembre de 2026, 00:00"},
		{"another language reads English", day, "de", "20 June 2026", "20 June 2026, 15:04"},
		{"no language reads English", day, "", "20 June 2026", "20 June 2026, 15:04"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Date(tt.t, tt.locale); got != tt.date {
				t.Errorf("Date = %q, want %q", got, tt.date)
			}
			if got := DateTime(tt.t, tt.locale); got != tt.full {
				t.Errorf("DateTime = %q, want %q", got, tt.full)
			}
		})
	}
}
