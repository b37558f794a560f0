package e2e

import (
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// localeFetches lists the language files (/locales/…json) the page's
// document has requested so far, from the browser's own record of its
// requests (Resource Timing: every fetch, cached or not).
func (b *browser) localeFetches(t *testing.T) []string {
	t.Helper()
	var got []string
	b.eval(t, `performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)
		.filter((p) => p.startsWith('/locales/') && p.endsWith('.json'))`, &got)
	return got
}

// TestEnglishConsoleFetchesNoCatalogue: the console's texts are keyed by
// their English, so the English console asks for no language file, on
// its sign-in screen or once signed in, and still reads in English; the
// French console asks for its own file only (not the English one too) and
// reads in French.
func TestEnglishConsoleFetchesNoCatalogue(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	tests := []struct {
		browser, signIn, events string
		want                    []string
	}{
		{"en-US", "Sign in", "Events", nil},
		{"fr-FR", "Se connecter", "Événements", []string{"/locales/fr/console.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.browser, func(t *testing.T) {
			b := newBrowserAt(t, tt.browser, 1366, 768)
			b.do(t, "opening the console",
				chromedp.Navigate(box.URL+"/admin"),
				chromedp.WaitVisible(chromedp.CSS(`#sign-in input[type=password]`)))
			b.waitText(t, "#sign-in button[type=submit]", tt.signIn)
			if got := b.localeFetches(t); !slices.Equal(got, tt.want) {
				t.Errorf("the sign-in screen fetched the language files %q, want %q", got, tt.want)
			}
			b.signIn(t, box.URL)
			b.waitText(t, "nav.tabs", tt.events)
			if got := b.localeFetches(t); !slices.Equal(got, tt.want) {
				t.Errorf("the signed-in console fetched the language files %q, want %q", got, tt.want)
			}
		})
	}
}
