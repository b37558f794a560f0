package scenarios_test

import (
	"context"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/store"
)

// Markers stored as the secrets of the owner-only settings, so the audit
// can prove they never come back.
const (
	smtpPasswordMark  = "smtp-pass-Q7XW2"
	davPasswordMark   = "dav-pass-K3VR8"
	hookSecretMark    = "hook-secret-M4TZ9"
	hookURLPathMark   = "hook-path-J8NB5"
	organizerPassword = "organizer-password"
)

// scopeWant is what an organizer of another event must get.
type scopeWant int

const (
	outOfScope scopeWant = iota // 404 not_found
	ownerOnly                   // 403 forbidden, always
	ownRoute                    // the organizer's own business: a listed status
	public                      // no session needed: a listed status
)

// scopeRow is one request of the audit. path holds placeholders: {A} the
// organizer's event, {B} the other event, {spotA}/{spotB} their places,
// {photoB} B's photo, {owner} the owner's account, {inv} an invitation,
// {hook} and {share} ids of nothing, {token} a made-up token.
type scopeRow struct {
	name   string
	method string
	path   string
	body   any
	want   scopeWant
	// statuses are the answers allowed for ownRoute and public rows.
	statuses []int
	// spare runs the row as a second session of the organizer (logout).
	spare bool
}

// scopeRows names every admin route of the spec at least once, in the
// spec's order, plus the cross-event cases of sub-resources.
func scopeRows() []scopeRow {
	any200 := []int{200}
	return []scopeRow{
		// Sign-in and account.
		{name: "sign-in is public", method: "POST", path: "/api/admin/login", body: map[string]any{}, want: public, statuses: []int{400}},
		{name: "the code step is public", method: "POST", path: "/api/admin/login/code", body: map[string]any{}, want: public, statuses: []int{400}},
		{name: "own two-factor status", method: "GET", path: "/api/admin/me/two-factor", want: ownRoute, statuses: any200},
		{name: "own two-factor actions", method: "POST", path: "/api/admin/me/two-factor", body: map[string]any{"action": "nope"}, want: ownRoute, statuses: []int{400}},
		{name: "own two-factor removal", method: "DELETE", path: "/api/admin/me/two-factor", body: map[string]any{}, want: ownRoute, statuses: []int{400}},
		{name: "own sign-out", method: "POST", path: "/api/admin/logout", want: ownRoute, statuses: any200, spare: true},
		{name: "own password", method: "POST", path: "/api/admin/password", body: map[string]any{}, want: ownRoute, statuses: []int{400}},
		{name: "own account", method: "GET", path: "/api/admin/me", want: ownRoute, statuses: any200},
		{name: "own account update", method: "PATCH", path: "/api/admin/me", body: map[string]any{}, want: ownRoute, statuses: any200},

		// Accounts and invitations.
		{name: "account list", method: "GET", path: "/api/admin/accounts", want: ownerOnly},
		{name: "account creation", method: "POST", path: "/api/admin/accounts", body: map[string]any{"username": "sneaky", "role": "owner"}, want: ownerOnly},
		{name: "promoting the owner's account", method: "PATCH", path: "/api/admin/accounts/{owner}", body: map[string]any{"resetPassword": true}, want: ownerOnly},
		{name: "deleting the owner's account", method: "DELETE", path: "/api/admin/accounts/{owner}", want: ownerOnly},
		{name: "invitation list", method: "GET", path: "/api/admin/invitations", want: ownerOnly},
		{name: "invitation creation", method: "POST", path: "/api/admin/invitations", body: map[string]any{"email": "x@example.com", "role": "owner", "eventIds": []string{}}, want: ownerOnly},
		{name: "invitation revocation", method: "DELETE", path: "/api/admin/invitations/{inv}", want: ownerOnly},
		{name: "invitation use is public", method: "POST", path: "/api/admin/invite/{token}", body: map[string]any{}, want: public, statuses: []int{404}},

		// Events.
		{name: "event list", method: "GET", path: "/api/admin/events", want: ownRoute, statuses: any200},
		{name: "the event model", method: "GET", path: "/api/admin/event-model", want: ownRoute, statuses: any200},
		{name: "event creation", method: "POST", path: "/api/admin/events", body: map[string]any{"name": "Mine"}, want: ownerOnly},
		{name: "another event", method: "GET", path: "/api/admin/events/{B}", want: outOfScope},
		{name: "another event's update", method: "PATCH", path: "/api/admin/events/{B}", body: map[string]any{"name": "Taken"}, want: outOfScope},
		{name: "another event's deletion", method: "DELETE", path: "/api/admin/events/{B}", want: ownerOnly},
		{name: "own event's deletion", method: "DELETE", path: "/api/admin/events/{A}", want: ownerOnly},
		{name: "another event's slug rotation", method: "POST", path: "/api/admin/events/{B}/rotate", want: outOfScope},
		{name: "another event's logo upload", method: "POST", path: "/api/admin/events/{B}/logo", body: map[string]any{}, want: outOfScope},
		{name: "another event's logo removal", method: "DELETE", path: "/api/admin/events/{B}/logo", want: outOfScope},
		{name: "another event's QR code", method: "GET", path: "/api/admin/events/{B}/qr?format=svg", want: outOfScope},
		{name: "another event's place QR code through one's own event", method: "GET", path: "/api/admin/events/{A}/qr?format=svg&spot={spotB}", want: outOfScope},
		{name: "another event's duplication", method: "POST", path: "/api/admin/events/{B}/duplicate", body: map[string]any{}, want: ownerOnly},
		{name: "own event's duplication", method: "POST", path: "/api/admin/events/{A}/duplicate", body: map[string]any{}, want: ownerOnly},
		{name: "ending another event", method: "POST", path: "/api/admin/events/{B}/end", want: outOfScope},
		{name: "the link another event's guests will get", method: "GET", path: "/api/admin/events/{B}/guest-link", want: outOfScope},
		{name: "another event's booth", method: "POST", path: "/api/admin/events/{B}/booth", body: map[string]any{}, want: outOfScope},
		{name: "another event's booth removal", method: "DELETE", path: "/api/admin/events/{B}/booth", want: outOfScope},

		// Places.
		{name: "another event's places", method: "GET", path: "/api/admin/events/{B}/spots", want: outOfScope},
		{name: "a place in another event", method: "POST", path: "/api/admin/events/{B}/spots", body: map[string]any{"label": "Bar"}, want: outOfScope},
		{name: "renaming another event's place", method: "PATCH", path: "/api/admin/events/{B}/spots/{spotB}", body: map[string]any{"label": "Mine"}, want: outOfScope},
		{name: "renaming another event's place through one's own event", method: "PATCH", path: "/api/admin/events/{A}/spots/{spotB}", body: map[string]any{"label": "Mine"}, want: outOfScope},
		{name: "deleting another event's place", method: "DELETE", path: "/api/admin/events/{B}/spots/{spotB}", want: outOfScope},
		{name: "deleting another event's place through one's own event", method: "DELETE", path: "/api/admin/events/{A}/spots/{spotB}", want: outOfScope},

		// Photos.
		{name: "another event's photos", method: "GET", path: "/api/admin/events/{B}/photos", want: outOfScope},
		{name: "moderating another event's photos", method: "POST", path: "/api/admin/events/{B}/photos", body: map[string]any{"action": "delete", "ids": []string{"{photoB}"}}, want: outOfScope},
		{name: "importing into another event", method: "POST", path: "/api/admin/events/{B}/photos/import", body: map[string]any{}, want: outOfScope},
		{name: "another event's archive", method: "GET", path: "/api/admin/events/{B}/archive", want: outOfScope},
		{name: "another event's full archive", method: "GET", path: "/api/admin/events/{B}/archive?all=1", want: outOfScope},
		{name: "another event's album", method: "GET", path: "/api/admin/events/{B}/album?layout=1&scope=visible", want: outOfScope},
		{name: "another event's signage", method: "GET", path: "/api/admin/events/{B}/signage?kind=table", want: outOfScope},
		{name: "another event's live stream", method: "GET", path: "/api/admin/events/{B}/live", want: outOfScope},

		// Guestbook messages.
		{name: "another event's messages", method: "GET", path: "/api/admin/events/{B}/messages", want: outOfScope},
		{name: "moderating another event's messages", method: "POST", path: "/api/admin/events/{B}/messages", body: map[string]any{"action": "delete", "ids": []string{"{msgB}"}}, want: outOfScope},
		{name: "another event's guestbook archive", method: "GET", path: "/api/admin/events/{B}/messages/archive", want: outOfScope},

		// Gallery links.
		{name: "another event's gallery links", method: "GET", path: "/api/admin/events/{B}/shares", want: outOfScope},
		{name: "a gallery link for another event", method: "POST", path: "/api/admin/events/{B}/shares", body: map[string]any{"label": "x"}, want: outOfScope},
		{name: "revoking another event's gallery link", method: "DELETE", path: "/api/admin/events/{B}/shares/{share}", want: outOfScope},
		{name: "revoking another event's gallery link through one's own event", method: "DELETE", path: "/api/admin/events/{A}/shares/{share}", want: outOfScope},
		{name: "another event's guest addresses", method: "GET", path: "/api/admin/events/{B}/contacts", want: outOfScope},
		{name: "another event's guest addresses as CSV", method: "GET", path: "/api/admin/events/{B}/contacts?format=csv", want: outOfScope},
		{name: "one's own event's guest addresses", method: "GET", path: "/api/admin/events/{A}/contacts", want: ownRoute, statuses: []int{200}},

		// Wall links.
		{name: "another event's wall links", method: "GET", path: "/api/admin/events/{B}/walls", want: outOfScope},
		{name: "a wall link for another event", method: "POST", path: "/api/admin/events/{B}/walls", body: map[string]any{"label": "x"}, want: outOfScope},
		{name: "revoking another event's wall link", method: "DELETE", path: "/api/admin/events/{B}/walls/{wall}", want: outOfScope},
		{name: "revoking another event's wall link through one's own event", method: "DELETE", path: "/api/admin/events/{A}/walls/{wall}", want: outOfScope},

		// Printing.
		{name: "another event's print layout", method: "GET", path: "/api/admin/events/{B}/print-layout", want: outOfScope},
		{name: "its own event's print layout", method: "GET", path: "/api/admin/events/{A}/print-layout", want: ownRoute, statuses: []int{200}},
		{name: "another event's print layout update", method: "PUT", path: "/api/admin/events/{B}/print-layout", body: map[string]any{"photo": "crop", "frame": true, "qr": false}, want: outOfScope},
		{name: "printing another event's photo", method: "POST", path: "/api/admin/events/{B}/print", body: map[string]any{"photoId": "{photoB}"}, want: outOfScope},
		{name: "printing another event's photo through one's own event", method: "POST", path: "/api/admin/events/{A}/print", body: map[string]any{"photoId": "{photoB}"}, want: ownRoute, statuses: []int{400, 404}},
		{name: "print settings", method: "GET", path: "/api/admin/printing", want: ownerOnly},
		{name: "print settings update", method: "PUT", path: "/api/admin/printing", body: map[string]any{}, want: ownerOnly},
		{name: "printers", method: "GET", path: "/api/admin/printing/printers", want: ownerOnly},
		{name: "adding a printer", method: "POST", path: "/api/admin/printing/printers", body: map[string]any{"name": "p", "uri": "usb://x"}, want: ownerOnly},
		{name: "printers CUPS sees", method: "GET", path: "/api/admin/printing/devices", want: ownerOnly},
		{name: "test print", method: "POST", path: "/api/admin/printing/test", body: map[string]any{}, want: ownerOnly},
		{name: "print queue", method: "GET", path: "/api/admin/printing/queue", want: ownerOnly},
		{name: "cancelling a print", method: "DELETE", path: "/api/admin/printing/queue/{print}", want: ownerOnly},

		// Cloud export.
		{name: "another event's exports", method: "GET", path: "/api/admin/events/{B}/cloud", want: outOfScope},
		{name: "its own event's exports", method: "GET", path: "/api/admin/events/{A}/cloud", want: ownRoute, statuses: any200},
		{name: "exporting another event", method: "POST", path: "/api/admin/events/{B}/cloud", body: map[string]any{"scope": "visible"}, want: outOfScope},
		{name: "cloud settings", method: "GET", path: "/api/admin/cloud", want: ownerOnly},
		{name: "cloud settings update", method: "PUT", path: "/api/admin/cloud", body: map[string]any{}, want: ownerOnly},
		{name: "cloud settings removal", method: "DELETE", path: "/api/admin/cloud", want: ownerOnly},
		{name: "cloud test", method: "POST", path: "/api/admin/cloud/test", body: map[string]any{}, want: ownerOnly},

		// Webhooks.
		{name: "webhook list", method: "GET", path: "/api/admin/webhooks", want: ownerOnly},
		{name: "webhook creation", method: "POST", path: "/api/admin/webhooks", body: map[string]any{}, want: ownerOnly},
		{name: "webhook update", method: "PATCH", path: "/api/admin/webhooks/{hook}", body: map[string]any{}, want: ownerOnly},
		{name: "webhook deletion", method: "DELETE", path: "/api/admin/webhooks/{hook}", want: ownerOnly},
		{name: "webhook test", method: "POST", path: "/api/admin/webhooks/{hook}/test", want: ownerOnly},

		// Mail.
		{name: "mail settings", method: "GET", path: "/api/admin/mail", want: ownerOnly},
		{name: "mail settings update", method: "PUT", path: "/api/admin/mail", body: map[string]any{}, want: ownerOnly},
		{name: "mail test", method: "POST", path: "/api/admin/mail/test", body: map[string]any{}, want: ownerOnly},
		{name: "mail retry", method: "POST", path: "/api/admin/mail/retry", want: ownerOnly},
		// Added: the Network screen (daemon/network).
		{name: "network state", method: "GET", path: "/api/admin/network", want: ownerOnly},
		{name: "network qr", method: "GET", path: "/api/admin/network/qr", want: ownerOnly},
		{name: "network hotspot", method: "PUT", path: "/api/admin/network/hotspot", body: map[string]any{}, want: ownerOnly},
		{name: "network back to hotspot", method: "POST", path: "/api/admin/network/hotspot/back", want: ownerOnly},
		{name: "network scan", method: "GET", path: "/api/admin/network/wifi", want: ownerOnly},
		{name: "network join", method: "POST", path: "/api/admin/network/wifi/join", body: map[string]any{"ssid": "Home", "password": "letmein123"}, want: ownerOnly},
		{name: "network phones figure", method: "PUT", path: "/api/admin/network/phones", body: map[string]any{"capacity": 12}, want: ownerOnly},
		{name: "network ports", method: "PUT", path: "/api/admin/network/ports", body: map[string]any{"guestPort": ""}, want: ownerOnly},

		// Backup and updates.
		{name: "backup", method: "GET", path: "/api/admin/backup", want: ownerOnly},
		{name: "backup download", method: "GET", path: "/api/admin/backup?download=1", want: ownerOnly},
		{name: "restore", method: "POST", path: "/api/admin/backup/restore", body: "PK", want: ownerOnly},
		{name: "backup retention", method: "PUT", path: "/api/admin/backup/retention", body: map[string]any{"days": 0}, want: ownerOnly},
		{name: "set the clock", method: "POST", path: "/api/admin/clock", body: map[string]any{"now": 1781967600000}, want: ownerOnly},
		{name: "update status", method: "GET", path: "/api/admin/updates", want: ownerOnly},
		{name: "update check", method: "POST", path: "/api/admin/updates/check", want: ownerOnly},
		{name: "update apply", method: "POST", path: "/api/admin/updates/apply", body: map[string]any{"version": "9.9.9"}, want: ownerOnly},

		// Statistics.
		{name: "another event's statistics", method: "GET", path: "/api/admin/stats?eventId={B}", want: outOfScope},
		{name: "own statistics", method: "GET", path: "/api/admin/stats", want: ownRoute, statuses: []int{200}},
		{name: "the storage banner", method: "GET", path: "/api/admin/storage", want: ownRoute, statuses: []int{200}},
		{name: "the phones on the hotspot", method: "GET", path: "/api/admin/phones", want: ownRoute, statuses: []int{200}},
		{name: "the guests' unfinished uploads", method: "GET", path: "/api/admin/uploads", want: ownerOnly},
		{name: "removing a guest's unfinished upload", method: "DELETE", path: "/api/admin/uploads/{A}", want: ownerOnly},
		{name: "the About screen", method: "GET", path: "/api/admin/about", want: ownRoute, statuses: []int{200}},
	}
}

// patternOf turns a row's path back into the route pattern of routes.go.
func patternOf(path string) string {
	path, _, _ = strings.Cut(path, "?")
	return strings.NewReplacer(
		"{A}", ":id", "{B}", ":id", "{owner}", ":id", "{inv}", ":id", "{hook}", ":id",
		"{spotA}", ":spotId", "{spotB}", ":spotId", "{share}", ":shareId", "{wall}", ":wallId", "{token}", ":token", "{print}", ":printId",
	).Replace(path)
}

// adminRoutes reads every admin route registered in routes.go.
func adminRoutes(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("../routes.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`h\("([A-Z]+)", "(/api/admin[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
		out = append(out, m[1]+" "+m[2])
	}
	if len(out) < 60 {
		t.Fatalf("found only %d admin routes in routes.go", len(out))
	}
	return out
}

func TestScopeRowsCoverEveryAdminRoute(t *testing.T) {
	covered := map[string]bool{}
	for _, row := range scopeRows() {
		covered[row.method+" "+patternOf(row.path)] = true
	}
	var missing []string
	for _, route := range adminRoutes(t) {
		if !covered[route] {
			missing = append(missing, route)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("admin routes without a scope row:\n%s", strings.Join(missing, "\n"))
	}
}

// scopeWorld is the data of the audit: two events with a photo and a place
// each, an organizer of A with two-factor on, and secrets stored wherever
// the product keeps them.
type scopeWorld struct {
	h                    *harness
	owner, org, orgSpare *client
	vars                 map[string]string
	secrets              []string
	logSecrets           []string // secrets that only the log must not carry
	bodies               *[]string
}

func newScopeWorld(t *testing.T, logs *logBuffer) *scopeWorld {
	h := newHarness(t, withLogs(logs))
	ctx := context.Background()
	owner := h.owner()
	evA := h.createEvent(owner, map[string]any{"name": "Ana and Ben"})
	evB := h.createEvent(owner, map[string]any{"name": "Chloe and Dan"})
	photoB := h.guest(evB["slug"].(string)).upload(evB["slug"].(string), photoJPEG(t, 60, 40, 0, false, 1), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	voice, err := os.ReadFile("../../probe/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	msgB := h.guest(evB["slug"].(string)).postMessage(evB["slug"].(string), "Bravo", voice, "0.8").expect(t, 201, "").JSON["message"].(map[string]any)["id"].(string)
	spots := map[string]string{}
	for name, ev := range map[string]string{"spotA": evA["id"].(string), "spotB": evB["id"].(string)} {
		sp := store.Spot{EventID: ev, Label: "Terrace " + name}
		if err := h.st.Spots().Create(ctx, &sp); err != nil {
			t.Fatal(err)
		}
		spots[name] = sp.ID
	}
	created, token := invite(t, owner, map[string]any{"email": "x@example.com", "role": "owner"})
	ownerID := owner.do("GET", "/api/admin/me", nil).JSON["account"].(map[string]any)["id"].(string)
	ownerSecret, ownerCodes := enrol(t, h, owner)

	org := h.organizer("planner", evA["id"].(string))
	orgSecret, orgCodes := enrol(t, h, org)
	orgSpare := h.client()
	orgSpare.do("POST", "/api/admin/login", map[string]any{"username": "planner", "password": organizerPassword}).expect(t, 200, "")
	h.clock.Advance(30 * time.Second) // a fresh authenticator code
	orgSpare.do("POST", "/api/admin/login/code", map[string]any{"code": totpAt(t, orgSecret, h.clock.Now())}).expect(t, 200, "")

	w := &scopeWorld{h: h, owner: owner, org: org, orgSpare: orgSpare, bodies: &[]string{}}
	w.vars = map[string]string{
		"{A}": evA["id"].(string), "{B}": evB["id"].(string), "{spotA}": spots["spotA"], "{spotB}": spots["spotB"],
		"{photoB}": photoB, "{msgB}": msgB, "{owner}": ownerID, "{inv}": created["invitation"].(map[string]any)["id"].(string),
		"{hook}": store.NewID(), "{share}": store.NewID(), "{token}": store.NewToken(),
	}
	w.secrets = append([]string{ownerSecret, orgSecret, token, w.vars["{token}"], store.HashToken(token), ownerPassword, organizerPassword,
		smtpPasswordMark, davPasswordMark, hookSecretMark, hookURLPathMark}, append(ownerCodes, orgCodes...)...)

	// Secrets of the other areas, stored through their own routes. A
	// route that is not built yet stores nothing, which proves nothing
	// but costs nothing either.
	w.call(owner, "PUT", "/api/admin/mail", map[string]any{
		"smtp":       map[string]any{"host": "smtp.example.com", "port": 587, "username": "box", "password": smtpPasswordMark, "from": "box@example.com", "security": "starttls"},
		"adminEmail": "owner@example.com",
	})
	w.call(owner, "PUT", "/api/admin/cloud", map[string]any{
		"url": "https://dav.example.com/remote.php/dav/files/box", "user": "box", "password": davPasswordMark, "folder": "eventbox", "autoExport": false,
	})
	// The organizer's webhook rows then name a real webhook.
	if r := w.call(owner, "POST", "/api/admin/webhooks", map[string]any{
		"name": "Phone", "type": "json", "url": "https://hooks.example.com/" + hookURLPathMark, "kinds": []string{"photo.uploaded"},
		"secret": hookSecretMark, "enabled": true,
	}); r.Status == 201 {
		w.vars["{hook}"] = r.JSON["webhook"].(map[string]any)["id"].(string)
	}
	// A real gallery link of B, when that part is built.
	if r := w.call(owner, "POST", "/api/admin/events/{B}/shares", map[string]any{"label": "Family"}); r.Status == 201 {
		w.vars["{share}"] = r.JSON["share"].(map[string]any)["id"].(string)
		// Hosts see a link's token in their answers; the log must not.
		w.logSecrets = append(w.logSecrets, r.JSON["share"].(map[string]any)["token"].(string))
	}
	// A real wall link of B; its url holds the token, which only the
	// answers to the hosts may carry.
	r := w.call(owner, "POST", "/api/admin/events/{B}/walls", map[string]any{"label": "Screen"}).expect(w.h.t, 201, "")
	wall := r.JSON["wall"].(map[string]any)
	w.vars["{wall}"] = wall["id"].(string)
	w.vars["{print}"] = "aaaaaaaaaaaaaaaa" // no such print: the owner-only gate answers first
	w.logSecrets = append(w.logSecrets, strings.TrimPrefix(wall["url"].(string), w.h.srv.URL+"/wall/"))
	return w
}

// call sends a request with the placeholders filled in and keeps the
// answer for the leak scan.
func (w *scopeWorld) call(c *client, method, path string, body any) response {
	w.h.t.Helper()
	for k, v := range w.vars {
		path = strings.ReplaceAll(path, k, v)
	}
	if m, ok := body.(map[string]any); ok {
		if ids, ok := m["ids"].([]string); ok {
			filled := make([]string, len(ids))
			for i, id := range ids {
				filled[i] = w.vars[id]
				if filled[i] == "" {
					filled[i] = id
				}
			}
			m["ids"] = filled
		}
	}
	r := c.do(method, path, body)
	*w.bodies = append(*w.bodies, method+" "+path+"\n"+string(r.Body))
	return r
}

func TestOrganizerScope(t *testing.T) {
	logs := &logBuffer{}
	w := newScopeWorld(t, logs)
	for _, row := range scopeRows() {
		t.Run(row.name, func(t *testing.T) {
			c := w.org
			if row.spare {
				c = w.orgSpare
			}
			r := w.call(c, row.method, row.path, row.body)
			switch row.want {
			case outOfScope:
				r.expect(t, 404, "not_found")
			case ownerOnly:
				r.expect(t, 403, "forbidden")
			default:
				for _, s := range row.statuses {
					if r.Status == s {
						return
					}
				}
				t.Fatalf("got %d, want one of %v; body: %s", r.Status, row.statuses, r.Body)
			}
		})
	}
	t.Run("the event list shows only the organizer's event", func(t *testing.T) {
		r := w.call(w.org, "GET", "/api/admin/events", nil).expect(t, 200, "")
		list := r.JSON["events"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["id"] != w.vars["{A}"] {
			t.Fatalf("events = %s", r.Body)
		}
	})
	t.Run("the organizer's statistics count only the organizer's event", func(t *testing.T) {
		r := w.call(w.org, "GET", "/api/admin/stats", nil)
		totals := r.expect(t, 200, "").JSON["totals"].(map[string]any)
		if totals["events"] != 1.0 || totals["photos"] != 0.0 || totals["messages"] != 0.0 {
			t.Fatalf("totals = %v (B has a photo and a message)", totals)
		}
	})
	t.Run("the owner's webhook is still there, untouched", func(t *testing.T) {
		r := w.call(w.owner, "GET", "/api/admin/webhooks", nil)
		list := r.expect(t, 200, "").JSON["webhooks"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["id"] != w.vars["{hook}"] || list[0].(map[string]any)["enabled"] != true {
			t.Fatalf("webhooks = %s", r.Body)
		}
	})
	t.Run("another event's gallery link is still there", func(t *testing.T) {
		r := w.call(w.owner, "GET", "/api/admin/events/{B}/shares", nil)
		list := r.expect(t, 200, "").JSON["shares"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["id"] != w.vars["{share}"] {
			t.Fatalf("shares of B = %s", r.Body)
		}
	})
	t.Run("another event's photo is still there, and its media is not the organizer's", func(t *testing.T) {
		if _, err := w.h.st.Photos().Get(context.Background(), w.vars["{photoB}"]); err != nil {
			t.Fatalf("photo of B: %v", err)
		}
		for _, v := range []string{"thumb", "display", "original", "play"} {
			w.call(w.org, "GET", "/api/media/{photoB}?v="+v, nil).expect(t, 404, "not_found")
		}
		w.call(w.owner, "GET", "/api/media/{photoB}?v=original", nil).expect(t, 200, "")
	})
	for _, tt := range []struct {
		name, path, id string
		stillThere     func() error
	}{
		{"moderating through one's own event does not reach another's photo", "/api/admin/events/{A}/photos", "{photoB}",
			func() error { _, err := w.h.st.Photos().Get(context.Background(), w.vars["{photoB}"]); return err }},
		{"moderating through one's own event does not reach another's message", "/api/admin/events/{A}/messages", "{msgB}",
			func() error { _, err := w.h.st.Messages().Get(context.Background(), w.vars["{msgB}"]); return err }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := w.call(w.org, "POST", tt.path, map[string]any{"action": "delete", "ids": []string{tt.id}}).expect(t, 200, "")
			if r.JSON["changed"] != 0.0 {
				t.Fatalf("changed = %v", r.JSON["changed"])
			}
			if err := tt.stillThere(); err != nil {
				t.Fatalf("%s is gone: %v", tt.id, err)
			}
		})
	}
	t.Run("another event's voice note is not the organizer's to hear", func(t *testing.T) {
		w.call(w.org, "GET", "/api/messages/{msgB}/audio", nil).expect(t, 404, "not_found")
		w.call(w.org, "GET", "/api/messages/{msgB}/audio?download=1", nil).expect(t, 404, "not_found")
		w.call(w.owner, "GET", "/api/messages/{msgB}/audio", nil).expect(t, 200, "")
	})
	t.Run("the other event and its place are unchanged", func(t *testing.T) {
		ev := w.call(w.owner, "GET", "/api/admin/events/{B}", nil).expect(t, 200, "").JSON["event"].(map[string]any)
		if ev["name"] != "Chloe and Dan" {
			t.Fatalf("event B = %v", ev)
		}
		if sp, err := w.h.st.Spots().Get(context.Background(), w.vars["{B}"], w.vars["{spotB}"]); err != nil || sp.Label != "Terrace spotB" {
			t.Fatalf("spot of B = %+v, %v", sp, err)
		}
	})

	t.Run("every admin route but sign-in and invitation use needs a session", func(t *testing.T) {
		anon := w.h.client()
		for _, row := range scopeRows() {
			if row.want == public {
				continue
			}
			r := w.call(anon, row.method, row.path, row.body)
			if r.Status != 401 || r.code() != "unauthorized" {
				t.Errorf("%s %s without a session: %d %s", row.method, row.path, r.Status, r.Body)
			}
		}
	})
	t.Run("the owner's readings carry no secret either", func(t *testing.T) {
		for _, row := range scopeRows() {
			// The backup download is the database itself, hashes included:
			// that is what a backup is for. A live stream does not end; what
			// it carries is checked in live_test.go.
			if row.method != "GET" || strings.Contains(row.path, "download=1") || strings.HasSuffix(row.path, "/live") {
				continue
			}
			for _, ev := range []string{"{A}", "{B}"} {
				w.call(w.owner, row.method, strings.ReplaceAll(row.path, "{B}", ev), nil)
			}
		}
	})
	t.Run("no answer carries a hash, a secret or a password", func(t *testing.T) {
		for _, body := range *w.bodies {
			where, text, _ := strings.Cut(body, "\n")
			if strings.Contains(text, "$2a$") || strings.Contains(text, "passwordHash") || strings.Contains(text, "totpSecret") {
				t.Errorf("%s leaks a hash: %.300s", where, text)
			}
			assertNoSecret(t, where, text, w.secrets...)
		}
	})
	t.Run("no log line carries a password, a token, a code or a secret", func(t *testing.T) {
		text := logs.String()
		if !strings.Contains(text, "request") {
			t.Fatalf("the log captured nothing:\n%s", text)
		}
		assertNoSecret(t, "the log", text, append(w.secrets, w.logSecrets...)...)
		for _, c := range []*client{w.owner, w.org, w.orgSpare} {
			for _, ck := range c.hc.Jar.Cookies(mustURL(t, w.h.srv.URL)) {
				assertNoSecret(t, "the log", text, ck.Value)
			}
		}
		if strings.Contains(text, "$2a$") {
			t.Error("the log carries a password hash")
		}
	})
}

// TestGuestScope checks that a guest of one event cannot reach another's
// content through media ids, photo ids, message ids or a rotated slug.
func TestGuestScope(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	evA := h.createEvent(owner, map[string]any{"name": "A"})
	evB := h.createEvent(owner, map[string]any{"name": "B"})
	slugA, slugB := evA["slug"].(string), evB["slug"].(string)
	guestA, guestB := h.guest(slugA), h.guest(slugB)
	photoA := guestA.upload(slugA, photoJPEG(t, 60, 40, 0, false, 2), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	photoB := guestB.upload(slugB, photoJPEG(t, 60, 40, 0, false, 3), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	voice, err := os.ReadFile("../../probe/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	msgB := guestB.postMessage(slugB, "Bravo", voice, "0.8").expect(t, 201, "").JSON["message"].(map[string]any)["id"].(string)

	rows := []struct {
		name   string
		method string
		path   string
		status int
		code   string
	}{
		{"another event's photo by media id", "GET", "/api/media/" + photoB + "?v=thumb", 404, "not_found"},
		{"another event's original by media id", "GET", "/api/media/" + photoB + "?v=original&download=1", 404, "not_found"},
		{"another event's photo deleted through one's own event", "DELETE", "/api/e/" + slugA + "/photos/" + photoB, 404, "not_found"},
		{"another event's photo deleted through its own slug", "DELETE", "/api/e/" + slugB + "/photos/" + photoB, 403, "forbidden"},
		{"another event's photo list", "GET", "/api/e/" + slugB + "/photos?scope=all", 403, "forbidden"},
		{"another event's guestbook", "GET", "/api/e/" + slugB + "/messages", 403, "forbidden"},
		{"a message of another event deleted through one's own", "DELETE", "/api/e/" + slugA + "/messages/" + msgB, 404, "not_found"},
		{"a message of another event deleted through its own slug", "DELETE", "/api/e/" + slugB + "/messages/" + msgB, 403, "forbidden"},
		{"another event's voice note by message id", "GET", "/api/messages/" + msgB + "/audio", 404, "not_found"},
		{"another event's voice note as a download", "GET", "/api/messages/" + msgB + "/audio?download=1", 404, "not_found"},
	}
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			guestA.do(tt.method, tt.path, nil).expect(t, tt.status, tt.code)
		})
	}
	t.Run("the shared album lists only the event's own photos", func(t *testing.T) {
		r := guestA.do("GET", "/api/e/"+slugA+"/photos?scope=all", nil).expect(t, 200, "")
		for _, p := range r.JSON["photos"].([]any) {
			if id := p.(map[string]any)["id"]; id != photoA {
				t.Errorf("guest of A sees %v", id)
			}
		}
		guestB.do("GET", "/api/media/"+photoB+"?v=thumb", nil).expect(t, 200, "")
	})
	t.Run("the author still has the message and its voice note", func(t *testing.T) {
		guestB.do("GET", "/api/messages/"+msgB+"/audio", nil).expect(t, 200, "")
		r := guestB.do("GET", "/api/e/"+slugB+"/messages", nil).expect(t, 200, "")
		if list := r.JSON["messages"].([]any); len(list) != 1 || list[0].(map[string]any)["id"] != msgB {
			t.Fatalf("messages = %s", r.Body)
		}
	})
	t.Run("after a slug rotation the old slug reaches nothing", func(t *testing.T) {
		rotated := owner.do("POST", "/api/admin/events/"+evA["id"].(string)+"/rotate", nil).expect(t, 200, "").JSON["event"].(map[string]any)
		newSlug := rotated["slug"].(string)
		if newSlug == slugA {
			t.Fatal("the slug did not change")
		}
		for _, p := range []struct{ method, path string }{
			{"GET", "/api/e/" + slugA},
			{"GET", "/api/e/" + slugA + "/photos"},
			{"POST", "/api/e/" + slugA + "/join"},
			{"DELETE", "/api/e/" + slugA + "/photos/" + photoA},
			{"POST", "/api/e/" + slugA + "/contact"},
		} {
			guestA.do(p.method, p.path, nil).expect(t, 404, "not_found")
			h.client().do(p.method, p.path, nil).expect(t, 404, "not_found")
		}
		guestA.do("GET", "/api/e/"+newSlug+"/photos", nil).expect(t, 200, "")
		if _, err := h.st.Photos().Get(context.Background(), photoA); err != nil {
			t.Fatalf("photo of A: %v", err)
		}
	})
}

// TestGeneratedPasswordIsLoggedOnce: the generated first password is the
// one secret the log may carry, once.
func TestGeneratedPasswordIsLoggedOnce(t *testing.T) {
	logs := &logBuffer{}
	h := newHarness(t, withLogs(logs), func(c *daemon.Config) { c.AdminPassword = "" })
	raw, err := os.ReadFile(h.cfg.DataDir + "/initial-password")
	if err != nil {
		t.Fatal(err)
	}
	pw := strings.TrimSpace(string(raw))
	c := h.client()
	c.do("POST", "/api/admin/login", map[string]any{"password": pw}).expect(t, 200, "")
	c.do("POST", "/api/admin/password", map[string]any{"current": pw, "next": "a-chosen-password"}).expect(t, 200, "")
	if n := strings.Count(logs.String(), pw); n != 1 {
		t.Fatalf("the generated password appears %d times in the log, want 1", n)
	}
	assertNoSecret(t, "the log", logs.String(), "a-chosen-password")
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
