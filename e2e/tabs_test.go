package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestLentTabsStartFresh: a tab a test gave back is lent to the next one
// with nothing of the first left: no cookie (the owner's session), no
// local storage or IndexedDB (the guest's upload queue), no history, as a
// new tab has.
func TestLentTabsStartFresh(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	// A Chromium of this test's own, so no other test borrows the tab
	// between the two below.
	flags := map[string]any{"eventbox-lent-tabs-test": true}
	const state = `(async () => {
		const dbs = await indexedDB.databases();
		const me = await fetch('/api/admin/me');
		return { cookie: document.cookie, stored: localStorage.length, dbs: dbs.length, history: history.length, signedIn: me.ok };
	})()`
	type seen struct {
		Cookie   string `json:"cookie"`
		Stored   int    `json:"stored"`
		DBs      int    `json:"dbs"`
		History  int    `json:"history"`
		SignedIn bool   `json:"signedIn"`
	}
	var fresh, used, lent seen
	var first *tab
	t.Run("a new tab", func(t *testing.T) {
		b := newBrowserFlags(t, "en-US", phoneWidth, phoneHeight, flags)
		first = b.tab
		b.do(t, "opening the console", chromedp.Navigate(box.URL+"/admin"))
		b.eval(t, state, &fresh)
		b.signIn(t, box.URL)
		b.eval(t, `(async () => {
			localStorage.setItem('left', 'behind');
			document.cookie = 'left=behind; path=/';
			await new Promise((ok, fail) => { const r = indexedDB.open('left-behind', 1); r.onsuccess = ok; r.onerror = fail; });
			return true;
		})()`, nil)
		b.eval(t, state, &used)
	})
	if used.Cookie == "" || used.Stored == 0 || used.DBs == 0 || !used.SignedIn {
		t.Fatalf("the first test left nothing to wipe: %+v", used)
	}
	t.Run("the same tab lent again", func(t *testing.T) {
		b := newBrowserFlags(t, "en-US", phoneWidth, phoneHeight, flags)
		if b.tab != first {
			t.Fatal("the second browser is a new tab, not the one given back")
		}
		b.do(t, "opening the console", chromedp.Navigate(box.URL+"/admin"))
		b.eval(t, state, &lent)
	})
	if lent != fresh {
		t.Errorf("a lent tab shows %+v, a new one %+v", lent, fresh)
	}
}
