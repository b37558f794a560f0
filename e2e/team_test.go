package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"
)

// TestConsoleTwoFactor turns two-step sign-in on from the account page
// with an authenticator code, then signs in again with a recovery code.
func TestConsoleTwoFactor(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	b := newBrowser(t)
	b.signIn(t, box.URL)

	b.do(t, "starting two-step sign-in",
		chromedp.Navigate(box.URL+"/admin/account"),
		chromedp.WaitVisible(chromedp.CSS(`#tf-start`)),
		click(`#tf-start`),
		chromedp.WaitVisible(chromedp.CSS(`#tf-confirm img`)))
	b.waitJS(t, "the QR code shows", `document.querySelector('#tf-confirm img').naturalWidth > 0`)
	b.shot(t, "admin-two-factor")
	secret := b.text(t, "#tf-secret")
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatalf("making a code from %q: %v", secret, err)
	}
	b.do(t, "confirming with the app's code",
		chromedp.SendKeys(chromedp.CSS(`#tf-confirm input`), code),
		click(`#tf-confirm button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#recovery-codes`)))
	recovery := strings.Fields(b.text(t, "#recovery-codes"))
	if len(recovery) < 5 {
		t.Fatalf("recovery codes %q; want several", recovery)
	}
	b.do(t, "signing out and in with the password",
		click(`header button`),
		chromedp.WaitVisible(chromedp.CSS(`#sign-in input[type=password]`)),
		chromedp.SendKeys(chromedp.CSS(`#sign-in input[type=password]`), ownerPassword),
		click(`#sign-in button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#sign-in-code input`)))
	b.do(t, "typing a wrong code",
		chromedp.SendKeys(chromedp.CSS(`#sign-in-code input`), "000000"),
		click(`#sign-in-code button[type=submit]`))
	b.waitText(t, "#sign-in-code .form-err", "not right")
	b.shot(t, "admin-sign-in-code")
	b.do(t, "typing a recovery code",
		fill(`#sign-in-code input`, recovery[0]),
		click(`#sign-in-code button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#events`)))
}

// TestConsoleInvitation invites an organizer for one event; the invitee
// opens the link in another browser, creates the account and sees only
// that event.
func TestConsoleInvitation(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	shared := createEvent(t, box.Store, "Anna & Marco", nil)
	createEvent(t, box.Store, "Another wedding", nil)

	owner := newBrowser(t)
	owner.signIn(t, box.URL)
	owner.do(t, "inviting an organizer",
		chromedp.Navigate(box.URL+"/admin/team"),
		chromedp.WaitVisible(chromedp.CSS(`main .card:nth-of-type(2) details.section > summary`)),
		click(`main .card:nth-of-type(2) details.section > summary`),
		chromedp.SendKeys(chromedp.CSS(`main .card:nth-of-type(2) input[type=email]`), "giulia@example.com"),
		click(`main .card:nth-of-type(2) input[value="`+shared.ID+`"]`),
		click(`main .card:nth-of-type(2) form button[type=submit]`))
	owner.waitText(t, "main .card:nth-of-type(2) .banner", "/invite/")
	owner.waitText(t, "main .card:nth-of-type(2) .list", "giulia@example.com")
	owner.shot(t, "admin-team")
	link := owner.text(t, "main .card:nth-of-type(2) .banner code")
	i := strings.Index(link, "/invite/")
	if i < 0 {
		t.Fatalf("invitation link %q", link)
	}

	invitee := newBrowser(t)
	invitee.do(t, "opening the invitation",
		chromedp.Navigate(box.URL+link[i:]),
		chromedp.WaitVisible(chromedp.CSS(`input[name=username]`)))
	invitee.shot(t, "admin-invite")
	invitee.do(t, "creating the account",
		chromedp.SendKeys(chromedp.CSS(`input[name=username]`), "giulia"),
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "Giulia"),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "giulia-password-1"),
		click(`form button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#events li[data-id]`)))
	invitee.waitText(t, "#events", "Anna & Marco")
	if got := invitee.text(t, "#events"); strings.Contains(got, "Another wedding") {
		t.Errorf("the organizer sees %q; want only the shared event", got)
	}
	var newButton bool
	invitee.eval(t, `!!document.querySelector('a[href="/admin/events/new"]')`, &newButton)
	if newButton {
		t.Error("an organizer is offered to create events")
	}
	invitee.do(t, "using the link again",
		chromedp.Navigate(box.URL+link[i:]),
		chromedp.WaitVisible(chromedp.CSS(`input[name=username]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=username]`), "giulia2"),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "giulia-password-2"),
		click(`form button[type=submit]`))
	invitee.waitText(t, ".form-err", "already used")
}
