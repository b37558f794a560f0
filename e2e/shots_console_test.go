package e2e

import (
	"fmt"
	"testing"

	"eventbox/store"
)

// TestConsoleShots photographs the console's screens changed for phones
// (photos, backup and restore, updates, cloud, new event, share, finish)
// at two phones, a laptop and a venue screen, in English and French; run
// it with -shots DIR. None of them may scroll sideways at any size.
func TestConsoleShots(t *testing.T) {
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR")
	}
	box := startBox(t)
	chal := store.Challenge{ID: store.NewID(), Label: "A selfie with the couple"}
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.Moderation = "pre"
		e.Challenges = []store.Challenge{chal}
	})
	guestUploads(t, box, ev, "Lucia", 5)
	uploadForChallenge(t, box, ev, "Giorgio Bellandi-Santoro", chal.ID)
	all := consoleScreens(ev.ID)
	pick := map[string]bool{"photos": true, "backup and restore": true, "updates": true, "cloud": true, "new event": true, "share": true, "finish": true}
	for _, lang := range []string{"en-GB", "fr-FR"} {
		for _, sz := range []struct{ w, h int }{{360, 740}, {390, 844}, {1366, 768}, {1920, 1080}} {
			t.Run(fmt.Sprintf("%s %d", lang, sz.w), func(t *testing.T) {
				b := newBrowserAt(t, lang, sz.w, sz.h)
				b.signIn(t, box.URL)
				for _, s := range all {
					if !pick[s.name] {
						continue
					}
					b.openScreen(t, box.URL, s)
					b.eval(t, `(document.querySelectorAll('main details').forEach((d) => { d.open = false; }), scrollTo(0, 0), true)`, nil)
					var wide bool
					b.eval(t, `document.scrollingElement.scrollWidth > innerWidth`, &wide)
					if wide {
						t.Errorf("%s scrolls sideways at %d px", s.name, sz.w)
					}
					name := fmt.Sprintf("console-%s-%d-%s", lang[:2], sz.w, s.name)
					if s.name == "photos" {
						b.shotScreen(t, name) // what the first screen shows
					} else {
						b.shot(t, name)
					}
				}
			})
		}
	}
}
