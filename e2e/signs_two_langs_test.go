package e2e

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/i18n"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// TestSignsInTwoLanguages: for a mixed party the Share tab's sign menu
// offers two languages, the console's first ("Français + English");
// picked, every sign's link asks for both (lang=fr,en) and the
// poster prints each fixed text in both. In English, French, Italian
// (it,en) and Spanish (es,fr) at phone, laptop and venue sizes (the quick
// cases: en and fr at laptop size); with -shots the A4 poster and the A6
// table cards of each pair are drawn as PNG pages too. Each language has
// a box of its own: a dozen sign-ins from one address would meet the
// sign-in limit.
func TestSignsInTwoLanguages(t *testing.T) {
	t.Parallel()
	sizes := screenSizes()
	for _, c := range []struct{ lang, other, pair, label, first, second string }{
		{"en", "fr", "en,fr", "English + Français", "Scan to share your photos", "Scannez pour partager vos photos"},
		{"fr", "en", "fr,en", "Français + English", "Scannez pour partager vos photos", "Scan to share your photos"},
		{"it", "en", "it,en", "Italiano + English", "Inquadra per condividere le foto", "Scan to share your photos"},
		{"es", "fr", "es,fr", "Español + Français", "Escanea para compartir tus fotos", "Scannez pour partager vos photos"},
	} {
		if !swept(c.lang+"-laptop", "en-laptop", "fr-laptop") {
			continue
		}
		box := startBox(t)
		ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
			e.DefaultLocale = ""
			e.AccessCode = "ROSE42"
		})
		admin := newClient(t, box.URL)
		admin.signIn(t)
		for _, sz := range sizes {
			name := c.lang + "-" + sz.name
			t.Run(name, func(t *testing.T) {
				if !swept(name, "en-laptop", "fr-laptop") {
					t.Skip("a sweep case: -sweep runs it")
				}
				b := newBrowserAt(t, c.lang, sz.w, sz.h)
				b.signIn(t, box.URL)
				b.do(t, "opening the Share tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"))
				b.settle(t, "#signage a[download]")
				var label string
				b.eval(t, `(document.querySelector('#sign-lang option[value="`+c.pair+`"]') || {}).textContent || ''`, &label)
				if label != c.label {
					t.Fatalf("the sign menu's %s option reads %q, want %q", c.pair, label, c.label)
				}
				b.do(t, "picking both languages", choose(`#sign-lang`, c.pair))
				var hrefs []string
				b.eval(t, `[...document.querySelectorAll('#signage a[download]')].map((a) => a.getAttribute('href'))`, &hrefs)
				for _, h := range hrefs {
					u, err := url.Parse(h)
					if err != nil || u.Query().Get("lang") != c.pair {
						t.Errorf("the sign link %s does not ask for lang=%s", h, c.pair)
					}
				}
				b.do(t, "scrolling to the signs", chromedp.ScrollIntoView(chromedp.CSS(`#signage`)))
				b.shotScreen(t, "signs-two-langs-"+name)
				if sz.name != "laptop" {
					return
				}
				for _, h := range hrefs {
					if strings.Contains(h, "kind=table") && strings.Contains(h, "size=a6") {
						pdfShot(t, admin, h, "signs-two-langs-"+strings.Replace(c.pair, ",", "-", 1)+"-table-a6")
					}
					if !strings.Contains(h, "kind=poster") || !strings.Contains(h, "size=a4") {
						continue
					}
					pdfShot(t, admin, h, "signs-two-langs-"+strings.Replace(c.pair, ",", "-", 1)+"-poster-a4")
					txt := strings.Join(strings.Fields(strings.Join(pdfText(t, admin, h), " ")), " ")
					for _, s := range []string{c.first, c.second} {
						if !strings.Contains(txt, s) {
							t.Errorf("the A4 poster in %s lacks %q; it says %q", c.pair, s, txt)
						}
					}
				}
			})
		}
	}
}

// pdfShot draws the first page of the PDF at path as DIR/name.png when
// -shots is set, to look at a printed sign.
func pdfShot(t *testing.T, c *client, path, name string) {
	t.Helper()
	if *shotDir == "" {
		return
	}
	testtool.Need(t, "pdftoppm")
	// With a Wi-Fi step, as at a party without the box's own hotspot.
	path += "&ssid=Anna%20%26%20Marco&wifiPassword=celebrate2026"
	in := c.pdfFile(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "pdftoppm", "-png", "-r", "90", "-singlefile", in, filepath.Join(*shotDir, name)).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, out)
	}
}

// TestSignMenuOffersWhatTheRouteTakes: the Share tab's sign menu offers
// exactly the languages the sign route prints, one or any two in either
// order: asked with every language the box speaks and one it does not,
// alone and in every pair (the same one twice too), the route's 200s are
// the menu's options, in every console language, the console's own
// language first ("Français" then "Français + English"…), each pair
// named by the languages' own names ("Français + Italiano" on an English
// console). The quick case: the English console.
func TestSignMenuOffersWhatTheRouteTakes(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.DefaultLocale = "" })
	admin := newClient(t, box.URL)
	admin.signIn(t)
	cat, err := i18n.Load(os.DirFS(filepath.Join("..", "assets", "web", "locales")))
	if err != nil {
		t.Fatalf("reading the catalogue: %v", err)
	}
	codes := cat.Codes()
	name := func(code string) string { return cat.Lang(code).Text("meta.name") }
	candidates := append(slices.Clone(codes), "de")
	var tried []string
	for _, a := range candidates {
		tried = append(tried, a)
		for _, b := range candidates {
			tried = append(tried, a+","+b)
		}
	}
	// What the route takes, asked of the route.
	takes := map[string]bool{}
	for _, v := range tried {
		res, err := admin.http.Get(box.URL + "/api/admin/events/" + ev.ID + "/signage?kind=poster&size=a4&wifi=0&lang=" + url.QueryEscape(v))
		if err != nil {
			t.Fatalf("GET the sign in %s: %v", v, err)
		}
		res.Body.Close()
		switch res.StatusCode {
		case http.StatusOK:
			takes[v] = true
		case http.StatusBadRequest:
		default:
			t.Fatalf("the sign in %s: status %d", v, res.StatusCode)
		}
	}
	if want := len(codes) * len(codes); len(takes) != want {
		t.Errorf("the route takes %d of the languages tried, want %d (each of %v alone and every two of them)", len(takes), want, codes)
	}
	for _, lang := range codes {
		t.Run(lang, func(t *testing.T) {
			if !swept(lang, "en") {
				t.Skip("a sweep case: -sweep runs it")
			}
			b := newBrowserAt(t, lang, 1366, 768)
			b.signIn(t, box.URL)
			b.do(t, "opening the Share tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"))
			b.settle(t, "#signage a[download]")
			var options []struct{ Value, Label string }
			b.eval(t, `[...document.querySelectorAll('#sign-lang option')].map((o) => ({ value: o.value, label: o.textContent }))`, &options)
			offered := map[string]bool{}
			for _, o := range options {
				if offered[o.Value] {
					t.Errorf("the menu offers %s twice", o.Value)
				}
				offered[o.Value] = true
				a, second, two := strings.Cut(o.Value, ",")
				want := name(a)
				if two {
					want += " + " + name(second)
				}
				if o.Label != want {
					t.Errorf("the menu's %s reads %q, want %q", o.Value, o.Label, want)
				}
				if !takes[o.Value] {
					t.Errorf("the menu offers %s (%q), which the route refuses", o.Value, o.Label)
				}
			}
			for _, v := range tried {
				if takes[v] && !offered[v] {
					t.Errorf("the route prints signs in %s but the menu does not offer it", v)
				}
			}
			if len(options) == 0 || options[0].Value != lang {
				t.Errorf("the menu's first option is %v, want the console's language %s", options[:min(1, len(options))], lang)
			}
			var picked string
			b.eval(t, `document.getElementById('sign-lang').value`, &picked)
			if picked != lang {
				t.Errorf("the menu starts on %q, want the console's language %s", picked, lang)
			}
			if *shotDir != "" {
				// A native menu is not drawn in a screenshot: shown as a
				// list box, its groups and options are.
				b.eval(t, `(() => { const s = document.getElementById('sign-lang'); s.size = s.options.length + 2; s.scrollIntoView({ block: 'center' }); return true; })()`, nil)
				b.shotScreen(t, "sign-menu-"+lang)
			}
			for _, o := range options {
				if strings.Contains(o.Value, ",") {
					if !strings.HasPrefix(o.Value, lang+",") {
						t.Errorf("the first pair is %s, want one that starts with the console's language %s", o.Value, lang)
					}
					break
				}
			}
		})
	}
}
