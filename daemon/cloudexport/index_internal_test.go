package cloudexport

import (
	"regexp"
	"strings"
	"testing"

	"eventbox/store"
)

// TestIndexNamesItsLanguageAndEveryLink: the exported index.html says its
// language and gives every link a name a screen reader can read (a link
// around a picture or a video has none of its own).
func TestIndexNamesItsLanguageAndEveryLink(t *testing.T) {
	shown := []indexEntry{
		{name: "20260620-150405-Ana-p1.jpg", who: "Ana", at: 1},
		{name: "20260620-150406-p2.mp4", video: true, at: 2},
		{name: "20260620-150407-p3.jpg", original: "20260620-150407-p3.heic", at: 3},
	}
	for _, tc := range []struct{ locale, lang string }{{"fr", "fr"}, {"", "en"}} {
		page := string(indexHTML(store.Event{Name: "Anna & Ben", DefaultLocale: tc.locale}, shown, true))
		if !strings.Contains(page, `<html lang="`+tc.lang+`">`) {
			t.Errorf("locale %q: the page does not say its language %q:\n%.200s", tc.locale, tc.lang, page)
		}
		links := regexp.MustCompile(`<a ([^>]*)>(.*?)</a>`).FindAllStringSubmatch(page, -1)
		if len(links) != 5 {
			t.Fatalf("%d links, want 5 (guestbook, three files, one HEIC original)", len(links))
		}
		for _, l := range links {
			text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(l[2], "")
			if strings.TrimSpace(text) == "" && !strings.Contains(l[1], `aria-label="2026`) {
				t.Errorf("a link with no name: <a %s>%s</a>", l[1], l[2])
			}
		}
	}
}
