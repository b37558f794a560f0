package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// eveningSamples stores three hours of counts, one a minute on a radio of
// 8: a slow start, a peak, two phones let go, and the last twelve minutes
// at 7 or 8, nearly full long enough for the notice. They end a few
// minutes ahead, so that the last is still recent for the box (the notice
// wants it) while the four languages' pages are looked at.
func eveningSamples(t *testing.T, st *store.Store) {
	t.Helper()
	now := time.Now().Add(4 * time.Minute)
	for m := 180; m >= 1; m-- {
		n := min(8, 1+(180-m)/20)
		if m <= 12 {
			n = 7 + m%2
		}
		letGo := 0
		if m == 40 || m == 8 {
			letGo = 1
		}
		s := store.PhoneSample{At: now.Add(-time.Duration(m) * time.Minute).UnixMilli(), Phones: n, Capacity: 8, LetGo: letGo}
		if err := st.Network().AddPhoneSample(context.Background(), s, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPhonesEvening: at phone size, in the four languages, the Network
// screen and the event's page show the phones on the Wi-Fi of about how
// many the radio holds, the evening's chart (the phones and the radio's
// figure as lines, with its text alternative) within the phone's width,
// the idle phones let go, and every console page the notice that the
// Wi-Fi has stayed nearly full, with what to do.
func TestPhonesEvening(t *testing.T) {
	t.Parallel()
	box, _ := networkBox(t)
	eveningSamples(t, box.Store)
	ev := createEvent(t, box.Store, "Noces de Léa", nil)
	for _, c := range []struct{ lang, count, crowd, letGo string }{
		{"en-US", "Phones on the Wi-Fi: 7 of about 8", "A party of this size wants an extra access point.", "2 in the last 24 hours"},
		{"fr-FR", "Téléphones sur le Wi-Fi\u00a0: 7 sur 8 environ", "Une fête de cette taille demande un point d’accès de plus.", "2 sur 24 heures"},
		{"it-IT", "7", "Una festa di queste dimensioni richiede un access point in più.", "2 nelle ultime 24 ore"},
		{"es-ES", "7", "Una fiesta de este tamaño necesita un punto de acceso más.", "2 en las últimas 24 horas"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			b := newBrowserAt(t, c.lang, phoneWidth, phoneHeight)
			b.signIn(t, box.URL)
			for _, page := range []struct{ path, card, count string }{
				{"/admin/settings/network", "#net-evening", "#net-phones"},
				{"/admin/events/" + ev.ID + "/settings", "#event-phones", "#event-phones-count"},
			} {
				b.do(t, "opening "+page.path, chromedp.Navigate(box.URL+page.path), chromedp.WaitVisible(chromedp.CSS(page.card+` svg path.phones`)))
				b.waitText(t, page.count, c.count)
				b.waitText(t, page.card+"-letgo", c.letGo)
				b.waitText(t, "#crowd-banner", c.crowd)
				var chart struct {
					Capacity bool    `json:"capacity"`
					Label    string  `json:"label"`
					Alt      string  `json:"alt"`
					Width    float64 `json:"width"`
					Font     float64 `json:"font"`
				}
				b.eval(t, fmt.Sprintf(`(() => { const s = document.querySelector(%q); const r = s.getBoundingClientRect();
					const txt = s.querySelector('text'); return { capacity: !!s.querySelector('path.capacity'), label: s.getAttribute('aria-label'),
					alt: document.getElementById(s.getAttribute('aria-describedby')).textContent, width: r.width,
					font: txt.getBoundingClientRect().height }; })()`, page.card+" svg"), &chart)
				if !chart.Capacity || chart.Label == "" || len(chart.Alt) < 20 {
					t.Errorf("%s: the chart lacks its capacity line, label or text alternative: %+v", page.path, chart)
				}
				if chart.Width > phoneWidth || chart.Font < 9 {
					t.Errorf("%s: the chart is %.0f px wide with %.1f px labels on a %d px phone", page.path, chart.Width, chart.Font, phoneWidth)
				}
				var wide bool
				b.eval(t, `document.documentElement.scrollWidth > window.innerWidth + 1`, &wide)
				if wide {
					t.Errorf("%s is wider than the phone", page.path)
				}
			}
		})
	}
}

// TestShotsPhonesEvening saves the Network screen and the event's page
// with the evening's chart and the nearly-full notice, in English and
// French, at phone, laptop and venue-screen sizes.
func TestShotsPhonesEvening(t *testing.T) {
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR")
	}
	box, _ := networkBox(t)
	eveningSamples(t, box.Store)
	ev := createEvent(t, box.Store, "Noces de Léa", nil)
	for _, lang := range []string{"en-GB", "fr-FR"} {
		for _, sz := range []struct{ w, h int }{{phoneWidth, phoneHeight}, {1366, 768}, {1920, 1080}} {
			b := newBrowserAt(t, lang, sz.w, sz.h)
			b.signIn(t, box.URL)
			for _, page := range []struct{ name, path, card string }{
				{"network", "/admin/settings/network", "#net-evening"},
				{"event", "/admin/events/" + ev.ID + "/settings", "#event-phones"},
			} {
				b.do(t, "opening "+page.path, chromedp.Navigate(box.URL+page.path), chromedp.WaitVisible(chromedp.CSS(page.card+` svg path.phones`)),
					chromedp.WaitVisible(chromedp.CSS(`#crowd-banner`)))
				b.shotScreen(t, fmt.Sprintf("phones-%s-%d-%s", lang[:2], sz.w, page.name))
				b.eval(t, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView(), true)`, page.card), nil)
				b.shotScreen(t, fmt.Sprintf("phones-%s-%d-%s-chart", lang[:2], sz.w, page.name))
			}
		}
	}
}
