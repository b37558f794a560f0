package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// TestConsoleFinish gives an event a logo, turns its booth on, then ends
// it: the console shows the gallery link made for the guests, and the
// guest page says the event is over but still shows the photos.
func TestConsoleFinish(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.AskGuestName = false })
	guestUploads(t, box, ev, "Lucia", 1)
	b := newBrowser(t)
	b.signIn(t, box.URL)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	// The console asks before it ends an event or replaces a link; say yes.
	yes := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(window.confirm = () => true, true)`)(ctx, tg)
		return err
	})

	run("a logo is added and shown to guests", func(t *testing.T) {
		b.do(t, "adding a logo",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/settings"),
			chromedp.WaitVisible(chromedp.CSS(`form.event-form`)),
			chromedp.SetUploadFiles(chromedp.CSS(`#tab input[type=file]`), []string{writeJPEG(t, "logo.jpg", 300, 120)}))
		b.waitJS(t, "the logo shows in the console", `(() => { const i = document.querySelector('#tab img[alt=Logo]'); return i && i.complete && i.naturalWidth > 0; })()`)
		b.do(t, "opening the guest page",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
		b.waitJS(t, "the logo shows to guests", `(() => { const i = document.querySelector('.hero img.logo'); return i && i.complete && i.naturalWidth > 0; })()`)
		b.shot(t, "guest-logo")
	})

	run("the booth is turned on and its link shown once", func(t *testing.T) {
		b.do(t, "turning the booth on",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"),
			chromedp.WaitVisible(chromedp.CSS(`#guest-url`)),
			yes,
			click(`#booth button.primary`))
		b.waitText(t, "#booth .banner", "?booth=")
		b.waitText(t, "#booth", "Booth on")
		b.waitJS(t, "the booth link's QR code shows", `(() => { const i = document.querySelector('#booth img.booth-qr'); return !!i && i.complete && i.naturalWidth > 0; })()`)
	})

	run("ending the event shows the gallery link it made", func(t *testing.T) {
		b.do(t, "ending the event",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/finish"),
			chromedp.WaitVisible(chromedp.CSS(`main .card:nth-of-type(3) button.danger`)),
			yes,
			click(`main .card:nth-of-type(3) button.danger`))
		b.waitText(t, "main .card:nth-of-type(3) .banner", "The event has ended.")
		b.waitText(t, "main .card:nth-of-type(3) .banner", "/g/")
		b.waitText(t, "#event-head", "Ended")
		b.shot(t, "admin-finish")
		e, err := box.Store.Events().Get(context.Background(), ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		if e.EndedAt == 0 {
			t.Error("the stored event has no end time")
		}
	})

	run("the guest page says the event is over", func(t *testing.T) {
		b.do(t, "opening the guest page",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#capture .banner`)))
		b.waitText(t, "#capture", "This event has ended.")
		b.do(t, "looking at everyone's photos",
			click(`#tab-all`),
			chromedp.WaitVisible(chromedp.CSS(`#all-photos .tile`)))
		b.shot(t, "guest-ended")
	})
}

// TestConsoleNewLinkAndCopy replaces an event's guest link, then
// duplicates its settings into a new event.
func TestConsoleNewLinkAndCopy(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.AccentColor = "#b03a5b" })
	b := newBrowser(t)
	b.signIn(t, box.URL)
	// Answer the console's questions: yes, and the copy's name.
	answers := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(window.confirm = () => true, window.prompt = () => 'Anna & Marco, the party', true)`)(ctx, tg)
		return err
	})
	b.do(t, "making a new guest link",
		chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/settings"),
		chromedp.WaitVisible(chromedp.CSS(`form.event-form`)),
		answers,
		click(`main .card:last-child button:first-child`))
	var rotated store.Event
	eventually(t, "the slug changes", func() bool {
		e, err := box.Store.Events().Get(context.Background(), ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		rotated = e
		return e.Slug != ev.Slug
	})
	b.waitText(t, "#event-head", "/e/"+rotated.Slug)

	b.do(t, "duplicating the settings", click(`main .card:last-child button:nth-child(2)`))
	b.waitText(t, "#event-head h1", "Anna & Marco, the party")
	events, err := box.Store.Events().List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("%d events; want the original and its copy", len(events))
	}
	for _, e := range events {
		if e.AccentColor != "#b03a5b" {
			t.Errorf("event %q has accent %q; want the copied #b03a5b", e.Name, e.AccentColor)
		}
	}
}

// TestEndCardSaysWhichLinkGuestsGet: on a box whose own address works
// only on its Wi-Fi (no public BASE_URL), the end card warns, before the
// end, that the box's link would not open from a guest's home and that the
// mails wait for a cloud copy; with the cloud export set up it says the
// guests get a link to the photos on the hosts' cloud. At phone, laptop
// and venue sizes, in English, French and Italian, without the warning
// running off the screen. Each language has a box of its own: a dozen
// sign-ins from one address would meet the sign-in limit.
func TestEndCardSaysWhichLinkGuestsGet(t *testing.T) {
	t.Parallel()
	newBox := func() (*box, store.Event) {
		box := startBox(t)
		return box, createEvent(t, box.Store, "Lia & Marco", func(e *store.Event) {
			e.CollectGuestEmails, e.EmailGuestsGallery = true, true
		})
	}
	warning := map[string]string{"en": "only opens on the box’s Wi-Fi", "fr": "ne s’ouvre que sur son Wi-Fi", "it": "si apre solo sul suo Wi-Fi"}
	for _, lang := range []string{"en", "fr", "it"} {
		box, ev := newBox()
		for _, size := range [][2]int{{390, 844}, {360, 740}, {1366, 768}, {1920, 1080}} {
			name := fmt.Sprintf("%s %dx%d", lang, size[0], size[1])
			if !swept(name, "fr 360x740", "en 1366x768") {
				continue
			}
			t.Run(name, func(t *testing.T) {
				b := newBrowserAt(t, lang, size[0], size[1])
				b.signIn(t, box.URL)
				b.do(t, "opening the end card",
					chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/finish"),
					chromedp.WaitVisible(chromedp.CSS(`.guest-link .banner.bad`)))
				b.waitText(t, ".guest-link .banner.bad", warning[lang])
				b.waitText(t, ".guest-link .banner.bad", box.URL)
				b.waitJS(t, "the warning fits the screen and comes before the end button", `(() => {
					const w = document.querySelector('.guest-link .banner.bad'), btn = w.closest('.card').querySelector('button.danger');
					const r = w.getBoundingClientRect();
					return r.left >= 0 && r.right <= innerWidth + 0.5 && document.documentElement.scrollWidth <= innerWidth
						&& (w.compareDocumentPosition(btn) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
				})()`)
				b.do(t, "scrolling to the warning", chromedp.Evaluate[chromedp.Void](`document.querySelector('.guest-link').scrollIntoView({block: 'center'})`))
				b.shotScreen(t, fmt.Sprintf("end-card-warning-%s-%dx%d", lang, size[0], size[1]))
			})
		}
	}
	t.Run("with the cloud export set up, guests get the cloud's link", func(t *testing.T) {
		box, ev := newBox()
		err := box.Store.Cloud().PutSettings(context.Background(), store.CloudSettings{
			URL: "https://cloud.example.org/remote.php/dav/files/lia/", User: "lia", Password: "x", Folder: "eventbox", AutoExport: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"en", "fr", "it"} {
			if !swept(lang, "en", "fr") {
				continue
			}
			b := newBrowserAt(t, lang, 390, 844)
			b.signIn(t, box.URL)
			b.do(t, "opening the end card",
				chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/finish"),
				chromedp.WaitVisible(chromedp.CSS(`.guest-link .banner.good`)))
			b.waitText(t, ".guest-link .banner.good", map[string]string{"en": "photos on your cloud", "fr": "photos sur votre cloud", "it": "foto sul tuo cloud"}[lang])
			b.do(t, "scrolling to the note", chromedp.Evaluate[chromedp.Void](`document.querySelector('.guest-link').scrollIntoView({block: 'center'})`))
			b.shotScreen(t, "end-card-cloud-"+lang)
		}
	})
}
