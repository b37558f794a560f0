package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// TestConsoleEvents walks the host's first steps in the console: sign in,
// create an event (after fixing a bad accent colour), find it in the list,
// edit it, and sign out.
func TestConsoleEvents(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)

	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	b.do(t, "opening the console",
		chromedp.Navigate(box.URL+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#sign-in input[type=password]`)))
	b.shot(t, "admin-sign-in")

	run("a wrong password is refused with a message", func(t *testing.T) {
		b.do(t, "typing a wrong password",
			chromedp.SendKeys(chromedp.CSS(`#sign-in input[type=password]`), "not-the-password"),
			click(`#sign-in button[type=submit]`))
		b.waitText(t, ".form-err", "Wrong username or password")
	})

	run("the first owner signs in without a username", func(t *testing.T) {
		b.do(t, "typing the password",
			fill(`input[type=password]`, ownerPassword),
			click(`#sign-in button[type=submit]`),
			chromedp.WaitVisible(chromedp.CSS(`#events`)))
		b.waitText(t, "#events", "No event yet")
		b.shot(t, "admin-events-empty")
	})

	run("a bad accent colour shows the server's message next to the field", func(t *testing.T) {
		b.do(t, "opening the new event form",
			click(`a[href="/admin/events/new"]`),
			chromedp.WaitVisible(chromedp.CSS(`form.event-form input[name=name]`)),
			chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "Anna & Marco"),
			chromedp.SendKeys(chromedp.CSS(`input[name=accentColor]`), "blue"),
			click(`form.event-form button[type=submit]`))
		b.waitText(t, `.field[data-field=accentColor] .err`, "#rrggbb")
		b.shotScreen(t, "admin-event-form-error")
		if got := b.text(t, `.field[data-field=name] .err`); got != "" {
			t.Errorf("the name field shows %q; want no message", got)
		}
	})

	run("fixing the colour creates the event", func(t *testing.T) {
		b.do(t, "typing a valid colour",
			fill(`input[name=accentColor]`, "#336699"),
			click(`form.event-form button[type=submit]`),
			chromedp.WaitVisible(chromedp.CSS(`#guest-url`)))
		b.waitText(t, "h1", "Anna & Marco")
		b.waitText(t, "#guest-url", "/e/")
		b.shot(t, "admin-event-share")
		events, err := box.Store.Events().List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].AccentColor != "#336699" {
			t.Fatalf("stored events = %+v; want one with accent #336699", events)
		}
	})

	run("the new event is listed", func(t *testing.T) {
		b.do(t, "going back to the events",
			click(`nav a[href="/admin"]`),
			chromedp.WaitVisible(chromedp.CSS(`#events li[data-id]`)))
		b.waitText(t, "#events", "Anna & Marco")
		b.waitText(t, "#events", "0 photos")
		b.shot(t, "admin-events")
	})

	run("editing the event saves the change", func(t *testing.T) {
		b.do(t, "opening the settings",
			click(`#events a.title`),
			chromedp.WaitVisible(chromedp.CSS(`form.event-form`)),
			fill(`input[name=name]`, "Anna & Marco's wedding"),
			click(`form.event-form button[type=submit]`))
		b.waitText(t, "#event-head h1", "Anna & Marco's wedding")
		b.shot(t, "admin-event-settings")
	})

	run("guest settings, a challenge and a filter are saved from the form", func(t *testing.T) {
		b.do(t, "filling the guest settings",
			click(`details.section:nth-of-type(2) > summary`),
			chromedp.WaitVisible(chromedp.CSS(`input[name=accessCode]`)),
			chromedp.SendKeys(chromedp.CSS(`input[name=accessCode]`), "tulip"),
			choose(`select[name=moderation]`, "pre"),
			click(`.field[data-field=captureFilters] input[value=sepia]`),
			click(`.field[data-field=challenges] button`),
			chromedp.SendKeys(chromedp.CSS(`.field[data-field=challenges] input`), "The best dance move"),
			click(`form.event-form button[type=submit]`))
		var e store.Event
		eventually(t, "the settings are stored", func() bool {
			events, err := box.Store.Events().List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			e = events[0]
			return e.AccessCode != ""
		})
		if e.AccessCode != "tulip" || e.Moderation != "pre" || len(e.Challenges) != 1 || e.Challenges[0].Label != "The best dance move" ||
			len(e.CaptureFilters.Enabled) != 1 || e.CaptureFilters.Enabled[0] != "sepia" {
			t.Fatalf("stored event = code %q, moderation %q, challenges %+v, filters %v; want tulip, pre, one challenge, sepia",
				e.AccessCode, e.Moderation, e.Challenges, e.CaptureFilters.Enabled)
		}
		b.waitJS(t, "the saved form is drawn again", `(() => { const i = document.querySelector('input[name=accessCode]'); return i && i.value === 'tulip' && i.offsetParent !== null; })()`)
		b.do(t, "removing the access code",
			fill(`input[name=accessCode]`, ""),
			click(`form.event-form button[type=submit]`))
		var after store.Event
		eventually(t, "the access code is removed", func() bool {
			events, err := box.Store.Events().List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			after = events[0]
			return after.AccessCode == ""
		})
		if len(after.Challenges) != 1 || after.Challenges[0].ID != e.Challenges[0].ID {
			t.Fatalf("after clearing the code: challenges %+v; want the same challenge %+v", after.Challenges, e.Challenges)
		}
	})

	const newPassword = "a-new-password-42"
	run("the owner changes the password", func(t *testing.T) {
		b.do(t, "filling the password form",
			click(`#me`),
			chromedp.WaitVisible(chromedp.CSS(`input[name=current]`)),
			chromedp.SendKeys(chromedp.CSS(`input[name=current]`), "not-my-password"),
			chromedp.SendKeys(chromedp.CSS(`input[name=next]`), newPassword),
			chromedp.SendKeys(chromedp.CSS(`input[name=again]`), newPassword),
			click(`form:has(input[name=again]) button[type=submit]`))
		b.waitText(t, `.field[data-field=current] .err`, "not your current password")
		b.do(t, "typing the right current password",
			fill(`input[name=current]`, ownerPassword),
			click(`form:has(input[name=again]) button[type=submit]`))
		b.waitText(t, ".toasts", "Password changed")
		b.shot(t, "admin-account")
	})

	run("signing out shows the sign-in form again", func(t *testing.T) {
		b.do(t, "signing out",
			click(`header button`),
			chromedp.WaitVisible(chromedp.CSS(`#sign-in input[type=password]`)))
	})

	run("the new password signs in", func(t *testing.T) {
		b.do(t, "signing in with the new password",
			chromedp.SendKeys(chromedp.CSS(`#sign-in input[type=password]`), newPassword),
			click(`#sign-in button[type=submit]`),
			chromedp.WaitVisible(chromedp.CSS(`#events li[data-id]`)))
	})
}

// TestConsoleWarnsOfSeveralOpenEvents: with two events open at once the
// events list says that guests must pick theirs; with one it says nothing.
func TestConsoleWarnsOfSeveralOpenEvents(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	createEvent(t, box.Store, "Anna & Marco", nil)
	b.do(t, "signing in",
		chromedp.Navigate(box.URL+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#sign-in input[type=password]`)),
		fill(`input[type=password]`, ownerPassword),
		click(`#sign-in button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#events li[data-id]`)))
	var n int
	b.eval(t, `document.querySelectorAll('#several-open').length`, &n)
	if n != 0 {
		t.Fatal("one open event, yet the console warns of several")
	}
	createEvent(t, box.Store, "Office party", nil)
	b.do(t, "reloading the events", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#events li[data-id]`)))
	b.waitText(t, "#several-open", "2 events are open at once")
	b.shot(t, "admin-events-several-open")
}
