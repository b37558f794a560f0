package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/daemon/printing/cupstest"
	"eventbox/store"
)

// printingBox is a box printing through a private CUPS with a cups-pdf
// queue, with an event and a guest's photo.
func printingBox(t *testing.T) (*box, *cupstest.Server, store.Event, []string) {
	t.Helper()
	srv := cupstest.Start(t)
	bx := startBox(t, func(c *daemon.Config) { c.CUPS = srv.Socket; c.PrintPoll = 100 * time.Millisecond })
	ev := createEvent(t, bx.Store, "Anna & Marco", func(e *store.Event) { e.AskGuestName = false; e.EventDate = "2026-06-20" })
	ids := guestUploads(t, bx, ev, "Lucia", 1)
	return bx, srv, ev, ids
}

// TestConsolePrinting sets printing up on the console's Printing screen
// (the printer listed from CUPS, the paper, the booth's copies), prints a
// test page and follows it in the queue to "printed", then shows a
// stopped printer's reason and a waiting print, and cancels it; an
// event's layout is saved and a photo printed from moderation. Screens
// at phone, laptop and venue sizes, in English and French.
func TestConsolePrinting(t *testing.T) {
	t.Parallel()
	bx, srv, ev, ids := printingBox(t)
	b := newBrowserAt(t, "en-US", 1366, 768)
	b.signIn(t, bx.URL)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	run("the printer is chosen from CUPS and a test page prints", func(t *testing.T) {
		b.do(t, "opening the Printing screen",
			chromedp.Navigate(bx.URL+"/admin/settings/printing"),
			chromedp.WaitVisible(chromedp.CSS(`#printing-form select[name=printer]`)))
		b.waitJS(t, "the private printer is listed", fmt.Sprintf(`!![...document.querySelectorAll('select[name=printer] option')].find((o) => o.value === %q)`, srv.Printer))
		b.do(t, "choosing the printer and saving",
			choose(`select[name=printer]`, srv.Printer),
			choose(`select[name=paper]`, "postcard"),
			choose(`select[name=boothCopies]`, "2"),
			click(`#printing-form button[type=submit]`))
		b.waitJS(t, "the printer shown ready", `!!document.querySelector('#printer-state.good')`)
		s, err := bx.Store.Printing().Settings(context.Background())
		if err != nil || s.Printer != srv.Printer || s.BoothCopies != 2 || s.Paper != store.PaperPostcard {
			t.Fatalf("stored settings %+v, %v", s, err)
		}
		b.do(t, "printing a test page", click(`#print-test`))
		b.waitJS(t, "the test page printed", `!!document.querySelector('#print-queue li[data-status=done]')`)
		srv.WaitPDFs(1, 90*time.Second)
	})
	run("a stopped printer shows why, and a waiting print is cancelled", func(t *testing.T) {
		srv.Stop("Out of paper")
		admin := newClient(t, bx.URL)
		admin.signIn(t)
		var queued struct {
			Print struct {
				ID string `json:"id"`
			} `json:"print"`
		}
		if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/print", map[string]any{"photoId": ids[0]}, &queued); st != http.StatusAccepted {
			t.Fatalf("printing: status %d", st)
		}
		b.waitJS(t, "the printer shown stopped", `(() => { const e = document.querySelector('#printer-state.bad'); return !!e && e.textContent.includes('Out of paper'); })()`)
		b.waitJS(t, "the print waiting", `!!document.querySelector('#print-queue li[data-status=waiting] button.danger')`)
		if v := b.axeViolations(t); len(v) > 0 {
			t.Errorf("the Printing screen: %d WCAG 2.1 A/AA violations:\n%s", len(v), strings.Join(v, "\n"))
		}
		for _, lang := range []string{"en-US", "fr-FR"} {
			for _, sz := range [][2]int{{390, 844}, {360, 740}, {1366, 768}, {1920, 1080}} {
				v := newBrowserAt(t, lang, sz[0], sz[1])
				v.signIn(t, bx.URL)
				v.do(t, "opening the Printing screen", chromedp.Navigate(bx.URL+"/admin/settings/printing"))
				v.waitJS(t, "the waiting print", `!!document.querySelector('#print-queue li[data-status=waiting]') && !!document.querySelector('#printer-state.bad')`)
				v.shot(t, fmt.Sprintf("printing-%s-%dx%d", lang[:2], sz[0], sz[1]))
				v.do(t, "opening the event's finish tab",
					chromedp.Navigate(bx.URL+"/admin/events/"+ev.ID+"/finish"),
					chromedp.WaitVisible(chromedp.CSS(`#print-layout select[name=photo]`)),
					chromedp.ScrollIntoView(chromedp.CSS(`#event-printing`)))
				v.shotScreen(t, fmt.Sprintf("printing-layout-%s-%dx%d", lang[:2], sz[0], sz[1]))
				v.do(t, "opening the event's share tab",
					chromedp.Navigate(bx.URL+"/admin/events/"+ev.ID+"/share"),
					chromedp.WaitVisible(chromedp.CSS(`#print-signs`)),
					chromedp.ScrollIntoView(chromedp.CSS(`#print-signs`)))
				v.shotScreen(t, fmt.Sprintf("printing-signs-%s-%dx%d", lang[:2], sz[0], sz[1]))
			}
		}
		b.do(t, "cancelling it", click(`#print-queue li[data-status=waiting] button.danger`))
		b.waitJS(t, "the queue without it", `!document.querySelector('#print-queue li[data-status=waiting]')`)
		srv.Resume()
		time.Sleep(time.Second)
		for _, p := range srv.PDFs() {
			if strings.Contains(p, queued.Print.ID) {
				t.Fatalf("the cancelled print came out: %s", p)
			}
		}
	})
	run("the event's layout and a print from moderation", func(t *testing.T) {
		b.do(t, "opening the event's finish tab",
			chromedp.Navigate(bx.URL+"/admin/events/"+ev.ID+"/finish"),
			chromedp.WaitVisible(chromedp.CSS(`#print-layout select[name=photo]`)))
		b.do(t, "saving a layout with the code",
			choose(`#print-layout select[name=photo]`, "fit"),
			click(`#print-layout input[name=qr]`),
			click(`#print-layout button[type=submit]`))
		eventually(t, "the layout stored", func() bool {
			l, err := bx.Store.Printing().Layout(context.Background(), ev.ID)
			return err == nil && l.Fit && l.QR && l.Frame
		})
		b.shot(t, "printing-event-layout")
		if v := b.axeViolations(t); len(v) > 0 {
			t.Errorf("the finish tab: %d WCAG 2.1 A/AA violations:\n%s", len(v), strings.Join(v, "\n"))
		}
		b.do(t, "printing from moderation",
			chromedp.Navigate(bx.URL+"/admin/events/"+ev.ID+"/photos"),
			chromedp.WaitVisible(chromedp.CSS(`.tile`)),
			click(`.tile .acts button:last-child`))
		b.do(t, "the lightbox's print button", click(`[data-action=print]`))
		srv.WaitPDFs(2, 90*time.Second)
		b.do(t, "printing the A4 poster from the share tab",
			chromedp.Navigate(bx.URL+"/admin/events/"+ev.ID+"/share"),
			chromedp.WaitVisible(chromedp.CSS(`#print-signs`)),
			choose(`select[name=signPrint]`, "poster:a4"),
			click(`#print-signs`))
		srv.WaitPDFs(3, 120*time.Second)
	})
}

// TestBoothPrinting shows the booth's printing line while the printer is
// stopped ("2 in the queue" and why), and its print button after a photo:
// on a tablet and a phone, in English and French.
func TestBoothPrinting(t *testing.T) {
	t.Parallel()
	bx, srv, ev, ids := printingBox(t)
	admin := newClient(t, bx.URL)
	admin.signIn(t)
	if st := admin.json(t, "PUT", "/api/admin/printing", map[string]any{"printer": srv.Printer, "paper": "postcard",
		"autoBooth": false, "boothCopies": 2, "hostPrint": true}, nil); st != http.StatusOK {
		t.Fatalf("settings: status %d", st)
	}
	var on struct {
		BoothKey string `json:"boothKey"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/booth", map[string]any{}, &on); st != http.StatusOK {
		t.Fatalf("turning the booth on: status %d", st)
	}
	srv.Stop("Out of paper")
	for range 3 {
		if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/print", map[string]any{"photoId": ids[0]}, nil); st != http.StatusAccepted {
			t.Fatalf("printing: status %d", st)
		}
	}
	link := bx.URL + "/e/" + ev.Slug + "?booth=" + on.BoothKey
	for _, lang := range []string{"en-US", "fr-FR"} {
		for _, sz := range [][2]int{{1024, 768}, {390, 844}} {
			b := newBrowserAt(t, lang, sz[0], sz[1])
			b.do(t, "opening the booth",
				chromedp.Navigate(link),
				chromedp.WaitVisible(chromedp.CSS(`#booth-start`)),
				click(`#booth-start`),
				chromedp.WaitVisible(chromedp.CSS(`.booth video`)))
			b.waitJS(t, "the booth listens", `!!document.querySelector('.booth[data-ready=true]')`)
			want := map[string]string{"en": "The printer is paused", "fr": "L’imprimante est en pause"}[lang[:2]]
			b.waitJS(t, "the printing line says why", fmt.Sprintf(`(() => { const e = document.querySelector('#booth-printing.bad'); return !!e && !e.hidden && e.textContent.includes(%q); })()`, want))
			if lang == "en-US" && sz[0] == 1024 {
				var text string
				b.eval(t, `document.querySelector('#booth-printing').textContent`, &text)
				if !strings.Contains(text, "in the print queue") && !strings.Contains(text, "in the queue") {
					t.Errorf("printing line %q says nothing of the queue", text)
				}
			}
			b.shotScreen(t, fmt.Sprintf("booth-printing-%s-%dx%d", lang[:2], sz[0], sz[1]))
			if lang == "en-US" && sz[0] == 1024 {
				b.do(t, "taking a photo", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
					_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: " ", Code: "Space", Text: " "})
					return err
				}))
				b.waitJS(t, "the print button", `(() => { const e = document.querySelector('#booth-print'); return !!e && !e.hidden && e.querySelectorAll('button').length === 2; })()`)
				b.shotScreen(t, "booth-print-button-en-1024x768")
				if v := b.axeViolations(t); len(v) > 0 {
					t.Errorf("the booth page: %d WCAG 2.1 A/AA violations:\n%s", len(v), strings.Join(v, "\n"))
				}
				b.do(t, "asking for two copies", click(`#booth-print button:nth-of-type(2)`))
				eventually(t, "the booth's print queued", func() bool {
					js, err := bx.Store.Jobs().Unfinished(context.Background(), store.PrintJobKind, 100)
					if err != nil {
						return false
					}
					for _, j := range js {
						if strings.Contains(string(j.Payload), `"by":"booth"`) && strings.Contains(string(j.Payload), `"copies":2`) {
							return true
						}
					}
					return false
				})
			}
		}
	}
	srv.Resume()
	srv.WaitPDFs(4, 120*time.Second)
}

// TestConsoleAddsAPrinter adds, from the console's Printing screen, a
// printer the print server sees but has no queue for: the private CUPS's
// cups-pdf backend offers one device per cups-pdf settings file, and each
// run makes its own (cups-pdf:/NAME, whose PDFs land in the harness's
// folder). It is listed under "Add a printer", the Add makes its queue,
// which is then in the printer list, picked, saved as the box's printer,
// and prints the test page as a PDF; the list no longer offers it. On a
// phone and a laptop, in English and French; the screens before and
// after at phone, laptop and venue sizes.
func TestConsoleAddsAPrinter(t *testing.T) {
	t.Parallel()
	srv := cupstest.Start(t)
	bx := startBox(t, func(c *daemon.Config) {
		c.CUPS = srv.Socket
		c.PrintPoll = 100 * time.Millisecond
		c.PrintDevices = []string{"usb", "ipp", "ipps", "dnssd", "cups-pdf"}
	})
	pdfs := 0
	for _, lang := range []string{"en-US", "fr-FR"} {
		for _, sz := range [][2]int{{390, 844}, {360, 740}, {1366, 768}, {1920, 1080}} {
			adds := sz[0] == 390 || sz[0] == 1366
			t.Run(fmt.Sprintf("%s %dx%d", lang, sz[0], sz[1]), func(t *testing.T) {
				dev := fmt.Sprintf("photo%s%d", lang[:2], sz[0])
				uri := srv.PDFDevice(dev)
				device := fmt.Sprintf(`#devices li[data-uri=%q] button`, uri)
				b := newBrowserAt(t, lang, sz[0], sz[1])
				b.signIn(t, bx.URL)
				b.do(t, "opening the Printing screen",
					chromedp.Navigate(bx.URL+"/admin/settings/printing"),
					chromedp.WaitVisible(chromedp.CSS(`#printing-form select[name=printer]`)))
				b.waitJS(t, "the printer CUPS sees, with its Add", fmt.Sprintf(`!!document.querySelector(%q)`, device))
				b.do(t, "showing the Add card", chromedp.ScrollIntoView(chromedp.CSS(`#printer-devices`)))
				b.shotScreen(t, fmt.Sprintf("printer-add-%s-%dx%d", lang[:2], sz[0], sz[1]))
				if sz[0] == 1366 && lang == "en-US" {
					if v := b.axeViolations(t); len(v) > 0 {
						t.Errorf("the Printing screen with a printer to add: %d WCAG 2.1 A/AA violations:\n%s", len(v), strings.Join(v, "\n"))
					}
				}
				if !adds {
					return
				}
				b.do(t, "adding it", click(device))
				var name string
				b.waitJS(t, "the new printer picked in the list", fmt.Sprintf(`(() => { const s = document.querySelector('#printing-form select[name=printer]'); return !!s && s.value.includes(%q) && !document.querySelector('#printer-devices [role=status]'); })()`, dev))
				b.eval(t, `document.querySelector('#printing-form select[name=printer]').value`, &name)
				b.waitJS(t, "the device no longer offered", fmt.Sprintf(`!document.querySelector(%q) && !!document.querySelector('#devices-again')`, device))
				b.do(t, "showing the list", chromedp.ScrollIntoView(chromedp.CSS(`#printing-form select[name=printer]`)))
				b.shotScreen(t, fmt.Sprintf("printer-added-%s-%dx%d", lang[:2], sz[0], sz[1]))
				var marked bool
				b.eval(t, `(() => { document.querySelector('#printing-form').dataset.before = '1'; return true; })()`, &marked)
				b.do(t, "saving it as the box's printer", click(`#printing-form button[type=submit]`))
				b.waitJS(t, "the screen drawn again with the printer ready", `!document.querySelector('#printing-form[data-before]') && !!document.querySelector('#printer-state.good') && !document.querySelector('#print-test').disabled`)
				s, err := bx.Store.Printing().Settings(context.Background())
				if err != nil || s.Printer != name {
					t.Fatalf("stored settings %+v, %v; want printer %q", s, err, name)
				}
				b.do(t, "printing a test page on it", click(`#print-test`))
				pdfs++
				srv.WaitPDFs(pdfs, 90*time.Second)
			})
		}
	}
}
