package scenarios_test

import (
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/daemon/mail/mailtest"
)

// TestGuestsOpenTheEndGallery follows the guests to the gallery link made
// when an event with an access code ends (docs/decisions/gallery.md, "The
// end's gallery password"): a guest who left an address opens it with the
// password their mail carries, a guest who did not with the one the hosts
// read again on the Share tab, long after they closed the end's notice.
func TestGuestsOpenTheEndGallery(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.TLS)
	// The box is published at an address guests reach from home, so its
	// own link goes in their mails.
	h := newHarness(t, withMailServer(srv), func(c *daemon.Config) { c.BaseURL = "https://photos.party-box.example.org" })
	owner := h.owner()
	setUpMail(t, owner, srv, nil)
	// The event's settings as a new event has them, but the code and the
	// guests' addresses.
	ev := h.createEvent(owner, map[string]any{"name": "Nozze", "accessCode": "rose-garden", "collectGuestEmails": true})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.client()
	g.do("POST", "/api/e/"+slug+"/unlock", map[string]any{"code": "rose-garden"}).expect(t, 200, "")
	g.do("POST", "/api/e/"+slug+"/contact", map[string]any{"email": "lucia@guest.example"}).expect(t, 200, "")
	res := owner.do("POST", "/api/admin/events/"+id+"/end", nil).expect(t, 200, "")
	result := res.JSON["result"].(map[string]any)
	shareURL, _ := result["shareUrl"].(string)
	if result["share"] == nil || result["share"].(map[string]any)["hasPassword"] != true || shareURL == "" {
		t.Fatalf("the end made no link with a password: %v", result)
	}
	api := "/api/g/" + shareURL[strings.LastIndex(shareURL, "/g/")+3:]
	opens := func(t *testing.T, password string) {
		t.Helper()
		c := h.client()
		c.do("GET", api+"/photos", nil).expect(t, 403, "forbidden")
		c.do("POST", api+"/unlock", map[string]any{"password": password}).expect(t, 200, "")
		c.do("GET", api+"/photos", nil).expect(t, 200, "")
	}

	t.Run("the guest's mail carries the password, which opens the gallery", func(t *testing.T) {
		owner.do("POST", "/api/admin/mail/retry", nil).expect(t, 200, "")
		var text string
		for _, rc := range srv.Wait(t, 2, 30*time.Second) { // the guest's and the hosts' summary
			if rc.To[0] == "lucia@guest.example" {
				_, text, _ = mailParts(t, rc)
			}
		}
		if !strings.Contains(text, shareURL) {
			t.Fatalf("no gallery mail with the link reached the guest:\n%s", text)
		}
		password := ""
		for _, f := range strings.Fields(text) {
			if f == result["sharePassword"] {
				password = f
			}
		}
		if password == "" {
			t.Fatalf("the guest's mail leaves the password out:\n%s", text)
		}
		opens(t, password)
	})
	t.Run("the Share tab shows the hosts the password again, which opens the gallery", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/events/"+id+"/shares", nil).expect(t, 200, "")
		var password string
		for _, s := range r.JSON["shares"].([]any) {
			if s := s.(map[string]any); s["url"] == shareURL {
				password, _ = s["password"].(string)
			}
		}
		if password == "" {
			t.Fatalf("the Share tab does not show the end link's password: %v", r.JSON["shares"])
		}
		opens(t, password)
	})
	t.Run("a password the hosts typed is never shown", func(t *testing.T) {
		owner.do("POST", "/api/admin/events/"+id+"/shares", map[string]any{"password": "family-only"}).expect(t, 201, "")
		r := owner.do("GET", "/api/admin/events/"+id+"/shares", nil).expect(t, 200, "")
		if strings.Contains(string(r.Body), "family-only") {
			t.Fatalf("a typed password is shown: %s", r.Body)
		}
	})
}
