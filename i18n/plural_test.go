package i18n

import (
	"testing"
	"testing/fstest"
)

func TestFormatPicksThePluralForm(t *testing.T) {
	files := fstest.MapFS{
		"en.json": {Data: []byte(`{"meta":{"name":"English"},"signs":{"photos":"{n, plural, =0 {no photo} one {# photo} other {# photos}} by {who}"}}`)},
		"fr.json": {Data: []byte(`{"meta":{"name":"Français"},"signs":{"photos":"{n, plural, one {# photo} other {# photos}} de {who}"}}`)},
		"it.json": {Data: []byte(`{"meta":{"name":"Italiano"},"signs":{"photos":"{n, plural, one {# foto caricata} other {# foto caricate}} da {who}"}}`)},
	}
	c, err := Load(files)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ lang, n, want string }{
		{"en", "0", "no photo by Ada"},
		{"en", "1", "1 photo by Ada"},
		{"en", "2", "2 photos by Ada"},
		{"fr", "0", "0 photo de Ada"},
		{"fr", "1", "1 photo de Ada"},
		{"fr", "2", "2 photos de Ada"},
		{"it", "1", "1 foto caricata da Ada"},
		{"it", "0", "0 foto caricate da Ada"},
		{"en", "x", "{n, plural, =0 {no photo} one {# photo} other {# photos}} by Ada"},
	}
	for _, tt := range tests {
		if got := c.Lang(tt.lang).Format("signs.photos", "n", tt.n, "who", "Ada"); got != tt.want {
			t.Errorf("%s, n=%s: %q, want %q", tt.lang, tt.n, got, tt.want)
		}
	}
}
