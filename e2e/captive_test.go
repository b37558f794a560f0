package e2e

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
)

// uaCaptiveSheet is Android's captive portal login, a WebView.
const uaCaptiveSheet = "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.71 Mobile Safari/537.36"

// TestCaptiveSheetOnAPhone: a phone joins the hotspot and its sign-in
// sheet (Chromium with a captive portal login's user agent, at a phone's
// size, the probe's host resolved to the box as the hotspot's DNS does)
// opens the probe's address. It lands on the portal page, in the phone's
// language, which shows the event's address with a copy button and fits
// the screen; "continue" makes the box answer this phone's probes as
// online, and the page then says to close the sheet.
func TestCaptiveSheetOnAPhone(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	for _, tc := range []struct {
		lang, title, copied, done string
	}{
		{"en", "Welcome to the party’s Wi-Fi", "Paste it in your browser", "You are connected"},
		{"fr", "Bienvenue sur le Wi-Fi de la fête", "Collez-la dans votre navigateur", "C’est bon, le Wi-Fi est prêt"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			captiveSheet(t, tc.lang, tc.title, tc.copied, tc.done)
		})
	}
}

// captiveSheet plays TestCaptiveSheetOnAPhone in one language, on a box of
// its own (the phones of both languages come from the same address).
func captiveSheet(t *testing.T, lang, title, copied, done string) {
	box := startBox(t)
	ev := createEvent(t, box.Store, "Garden party", nil)
	u, err := url.Parse(box.URL)
	if err != nil {
		t.Fatal(err)
	}
	// probe is the phone's own connectivity check, from the same address
	// as its sheet.
	probe := func() (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, box.URL+"/generate_204", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "connectivitycheck.gstatic.com"
		c := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		_, _ = io.Copy(io.Discard, res.Body)
		return res.StatusCode, res.Header.Get("Location")
	}
	if code, loc := probe(); code != http.StatusFound || !strings.HasSuffix(loc, "/portal") {
		t.Fatalf("the phone's probe before continue: %d %q, want the portal page", code, loc)
	}
	b := newBrowserFlags(t, lang, phoneWidth, phoneHeight, map[string]any{
		"user-agent":          uaCaptiveSheet,
		"host-resolver-rules": "MAP connectivitycheck.gstatic.com " + u.Host,
	})
	b.do(t, "opening the sheet on the probe's address",
		chromedp.Navigate("http://connectivitycheck.gstatic.com/generate_204"),
		chromedp.WaitVisible(chromedp.CSS(`#portal-continue`)))
	var path string
	b.eval(t, `location.pathname`, &path)
	if path != "/portal" {
		t.Fatalf("the sheet opened %q, want /portal", path)
	}
	b.waitText(t, "h1", title)
	var address string
	b.eval(t, `document.querySelector('#portal-address').textContent`, &address)
	if want := box.URL + "/e/" + ev.Slug; address != want {
		t.Errorf("the page shows %q, want %q", address, want)
	}
	var overflow bool
	b.eval(t, `document.documentElement.scrollWidth > window.innerWidth`, &overflow)
	if overflow {
		t.Error("the portal page is wider than the phone's screen")
	}
	b.do(t, "copying the address", click(`#portal-copy`))
	b.waitText(t, "#portal-copied", copied)
	b.shotScreen(t, "portal-"+lang)

	b.do(t, "going on", click(`#portal-continue`), chromedp.WaitVisible(chromedp.CSS(`#portal-here`)))
	b.waitText(t, "h1", done)
	var here string
	b.eval(t, `document.querySelector('#portal-here').href`, &here)
	if here != address {
		t.Errorf("the page then links %q, want %q", here, address)
	}
	b.shotScreen(t, "portal-done-"+lang)
	b.axeCheck(t, "portal "+lang)
	if code, _ := probe(); code != http.StatusNoContent {
		t.Fatalf("the phone's probe after continue: %d, want 204", code)
	}
}
