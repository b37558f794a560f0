package daemon

import (
	"net/http"

	"eventbox/daemon/web"
	"eventbox/store"

	"github.com/julienschmidt/httprouter"
)

// routes registers every route of the spec, in the spec's order, so the
// two can be read side by side. Each line states the route's whole access
// rule: admin (signed in), owner (owners only), event (the :id event
// within the account's scope, handed to the handler), rate (a limiter),
// guestUpload and consoleUpload (upload bodies: at most a few at once,
// paced).
func (s *Server) routes() http.Handler {
	rt := httprouter.New()
	rt.RedirectTrailingSlash = false
	rt.RedirectFixedPath = false
	rt.HandleMethodNotAllowed = true
	rt.HandleOPTIONS = false
	rt.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, web.ErrMethod)
	})
	rt.NotFound = http.HandlerFunc(s.serveUI)
	rt.PanicHandler = func(w http.ResponseWriter, r *http.Request, v any) {
		if v == http.ErrAbortHandler {
			// A streamed answer cut on purpose (web.AbortStream): let the
			// server drop the connection instead of appending an error.
			panic(v)
		}
		s.log.ErrorContext(r.Context(), "handler panicked", "panic", v, "path", web.LogPath(r))
		s.writeError(w, r, web.ErrInternal)
	}
	// h registers a route and notes it in s.routeTable, which Routes
	// lists (the API reference's tests compare it with api/openapi.yaml).
	h := func(method, path string, fn web.HandlerFunc) {
		rt.Handler(method, path, routed(path, s.api(fn)))
		s.routeTable = append(s.routeTable, Route{Method: method, Path: path})
	}
	// Upload bodies are counted and paced (s.upload, upload_gate.go).
	// Inside that, the storage guard refuses them while the card is
	// nearly full (daemon/storage), before the body is read; like every
	// refusal of an upload, its answer is one a client that keeps sending
	// can read (refuseUpload).
	// event is the per-event scope of the console's /api/admin/events/:id
	// routes: inside admin or owner (and inside an upload's gate), it
	// loads the :id event if the signed-in account may reach it, and
	// hands it to the handler; an event outside an organizer's scope
	// answers 404, exactly like one that does not exist
	// (visitor.AdminEvent). No handler looks its event up itself.
	event := func(fn func(w http.ResponseWriter, r *http.Request, e store.Event) error) web.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			e, err := s.visitors.AdminEvent(r)
			if err != nil {
				return err
			}
			return fn(w, r, e)
		}
	}
	guestUpload := func(fn web.HandlerFunc) web.HandlerFunc { return s.upload(s.guestUploader, s.storage.Uploads(fn)) }
	consoleUpload := func(fn web.HandlerFunc) web.HandlerFunc { return s.upload(s.accountUploader, s.storage.Uploads(fn)) }

	// The front page (added, not in the spec: docs/decisions.md, "A join
	// that never dead-ends"): the events open now, and a typed code.
	h("GET", "/api/events", s.guests.ListOpenEvents)
	h("POST", "/api/join", s.rate(s.limits.unlock, s.guests.JoinByCode))
	// The box's CA, for the booth tablet to trust (added: "HTTPS on the
	// box"). Outside /api/ so that the link reads as a file to save.
	h("GET", "/ca.crt", s.box.CACert)
	h("GET", "/ca.mobileconfig", s.box.CAProfile)
	// First-run setup (added: docs/decisions/trust.md, "The first-run
	// setup page"): open on a box nobody set up, for a while after its
	// start, to the first visitor only (daemon/setup).
	h("GET", "/api/setup", s.setup.State)
	h("POST", "/api/setup", s.rate(s.limits.login, s.setup.Submit))
	// The captive portal page (added: docs/decisions/guests.md, "Through
	// the captive sheet"): the event's address, and "continue" (daemon/api/portal).
	h("GET", "/api/portal", s.portal.State)
	h("POST", "/api/portal/continue", s.portal.Continue)

	// Guest routes (cookie gr_guest).
	h("GET", "/api/e/:slug", s.guests.PublicEvent)
	h("POST", "/api/e/:slug/join", s.rate(s.guards.join, s.guests.Join))
	h("POST", "/api/e/:slug/unlock", s.rate(s.limits.unlock, s.guests.Unlock))
	h("POST", "/api/e/:slug/guest", s.guests.SetName)
	h("POST", "/api/e/:slug/booth", s.rate(s.limits.booth, s.boothAPI.Join))
	h("GET", "/api/e/:slug/booth/events", s.boothAPI.Events)
	// Added: the booth's printing line and print button (daemon/printing).
	h("GET", "/api/e/:slug/booth/printing", s.printing.BoothPrinting)
	h("POST", "/api/e/:slug/booth/print", s.printing.BoothPrint)
	h("POST", "/api/e/:slug/photos", guestUpload(s.guests.Upload))
	h("DELETE", "/api/e/:slug/photos/:id", s.guests.DeletePhoto)
	h("GET", "/api/e/:slug/photos", s.guests.Photos)
	h("PUT", "/api/e/:slug/photos/:id/heart", s.rate(s.limits.heart, s.hearts.GuestHeart))    // added: hearts
	h("DELETE", "/api/e/:slug/photos/:id/heart", s.rate(s.limits.heart, s.hearts.GuestHeart)) // added
	h("GET", "/api/e/:slug/hearts", s.hearts.GuestGiven)                                      // added
	h("GET", "/api/e/:slug/logo", s.events.Logo)
	h("GET", "/api/media/:id", s.guests.Media)
	h("POST", "/api/e/:slug/contact", s.guests.SetContact)
	h("DELETE", "/api/e/:slug/contact", s.guests.DeleteContact)
	h("GET", "/api/e/:slug/messages", s.guests.Messages)
	h("POST", "/api/e/:slug/messages", guestUpload(s.guests.PostMessage))
	h("DELETE", "/api/e/:slug/messages/:id", s.guests.DeleteMessage)
	h("GET", "/api/messages/:id/audio", s.guests.MessageAudio)
	// Added: resumable uploads, tus 1.0.0 (daemon/resumable;
	// docs/decisions/guests.md, "Resumable uploads"). Creation sends no
	// body: the storage guard answers it; a PATCH's body is paced,
	// counted as any upload's and written only while the card is above
	// the guard's margin.
	h("OPTIONS", "/api/e/:slug/uploads", s.resumable.Options)
	h("POST", "/api/e/:slug/uploads", s.storage.Uploads(s.resumable.Create))
	h("HEAD", "/api/e/:slug/uploads/:id", s.resumable.Head)
	h("PATCH", "/api/e/:slug/uploads/:id", guestUpload(s.resumable.Patch))
	h("DELETE", "/api/e/:slug/uploads/:id", s.resumable.Delete)
	h("GET", "/api/e/:slug/uploads/:id", s.resumable.Result)

	// Gallery link routes (cookie gr_share).
	h("GET", "/api/g/:token", s.gallery.Gallery)
	h("POST", "/api/g/:token/unlock", s.rate(s.limits.shareUnlock, s.gallery.Unlock))
	h("GET", "/api/g/:token/photos", s.gallery.Photos)
	h("PUT", "/api/g/:token/photos/:id/heart", s.rate(s.limits.heart, s.hearts.GalleryHeart))    // added: hearts
	h("DELETE", "/api/g/:token/photos/:id/heart", s.rate(s.limits.heart, s.hearts.GalleryHeart)) // added
	h("GET", "/api/g/:token/hearts", s.hearts.GalleryGiven)                                      // added
	h("GET", "/api/g/:token/messages", s.gallery.Messages)
	h("GET", "/api/g/:token/archive", s.gallery.Archive)
	h("GET", "/api/g/:token/logo", s.gallery.Logo) // added: the event's logo on the gallery page

	// Admin: sign-in and account.
	h("POST", "/api/admin/login", s.signIn.Login)          // limits: signInGate
	h("POST", "/api/admin/login/code", s.signIn.LoginCode) // limits: signInGate
	h("GET", "/api/admin/me/two-factor", s.visitors.Admin(s.signIn.TwoFactorStatus))
	h("POST", "/api/admin/me/two-factor", s.visitors.Admin(s.signIn.TwoFactor))
	h("DELETE", "/api/admin/me/two-factor", s.visitors.Admin(s.signIn.TwoFactorOff))
	h("POST", "/api/admin/logout", s.visitors.Admin(s.signIn.Logout))
	h("POST", "/api/admin/password", s.visitors.Admin(s.signIn.Password))
	h("GET", "/api/admin/me", s.visitors.Admin(s.signIn.Me))
	h("PATCH", "/api/admin/me", s.visitors.Admin(s.signIn.UpdateMe))

	// Admin: accounts and invitations (owners).
	h("GET", "/api/admin/accounts", s.visitors.Owner(s.accounts.ListAccounts))
	h("POST", "/api/admin/accounts", s.visitors.Owner(s.accounts.CreateAccount))
	h("PATCH", "/api/admin/accounts/:id", s.visitors.Owner(s.accounts.UpdateAccount))
	h("DELETE", "/api/admin/accounts/:id", s.visitors.Owner(s.accounts.DeleteAccount))
	h("GET", "/api/admin/invitations", s.visitors.Owner(s.accounts.ListInvitations))
	h("POST", "/api/admin/invitations", s.visitors.Owner(s.accounts.CreateInvitation))
	h("DELETE", "/api/admin/invitations/:id", s.visitors.Owner(s.accounts.DeleteInvitation))
	h("POST", "/api/admin/invite/:token", s.rate(s.limits.invite, s.accounts.AcceptInvitation))

	// Admin: events. event-model is not in the spec: the defaults and rules
	// of the event fields, for the console's form (docs/decisions.md).
	h("GET", "/api/admin/events", s.visitors.Admin(s.events.ListEvents))
	h("GET", "/api/admin/event-model", s.visitors.Admin(s.events.EventModel))
	h("POST", "/api/admin/events", s.visitors.Owner(s.events.CreateEvent))
	h("GET", "/api/admin/events/:id", s.visitors.Admin(event(s.events.GetEvent)))
	h("PATCH", "/api/admin/events/:id", s.visitors.Admin(event(s.events.UpdateEvent)))
	h("DELETE", "/api/admin/events/:id", s.visitors.Owner(event(s.events.DeleteEvent)))
	h("POST", "/api/admin/events/:id/rotate", s.visitors.Admin(event(s.events.RotateEvent)))
	h("POST", "/api/admin/events/:id/logo", s.visitors.Admin(consoleUpload(event(s.events.UploadLogo))))
	h("DELETE", "/api/admin/events/:id/logo", s.visitors.Admin(event(s.events.DeleteLogo)))
	h("GET", "/api/admin/events/:id/qr", s.visitors.Admin(event(s.events.QR)))
	h("POST", "/api/admin/events/:id/duplicate", s.visitors.Owner(event(s.events.DuplicateEvent)))
	// Not in the spec: the printable signage kit (daemon/api/events/admin_signage.go).
	h("GET", "/api/admin/events/:id/signage", s.visitors.Admin(event(s.events.Signage)))
	h("POST", "/api/admin/events/:id/end", s.visitors.Admin(event(s.events.EndEvent)))
	h("POST", "/api/admin/events/:id/booth", s.visitors.Admin(event(s.boothAPI.Enable)))
	h("DELETE", "/api/admin/events/:id/booth", s.visitors.Admin(event(s.boothAPI.Disable)))

	// Admin: places (spots).
	h("GET", "/api/admin/events/:id/spots", s.visitors.Admin(event(s.events.ListSpots)))
	h("POST", "/api/admin/events/:id/spots", s.visitors.Admin(event(s.events.CreateSpot)))
	h("PATCH", "/api/admin/events/:id/spots/:spotId", s.visitors.Admin(event(s.events.RenameSpot)))
	h("DELETE", "/api/admin/events/:id/spots/:spotId", s.visitors.Admin(event(s.events.DeleteSpot)))

	// Admin: photos.
	h("GET", "/api/admin/events/:id/photos", s.visitors.Admin(event(s.moderation.Photos)))
	h("POST", "/api/admin/events/:id/photos", s.visitors.Admin(event(s.moderation.PhotoAction)))
	h("POST", "/api/admin/events/:id/photos/import", s.visitors.Admin(consoleUpload(event(s.moderation.Import))))
	h("GET", "/api/admin/events/:id/archive", s.visitors.Admin(event(s.moderation.Archive)))
	h("GET", "/api/admin/events/:id/album", s.visitors.Admin(event(s.moderation.Album)))
	// Not in the spec: the console's live stream (daemon/live).
	h("GET", "/api/admin/events/:id/live", s.visitors.Admin(event(s.liveAPI.Stream)))

	// Admin: guestbook messages.
	h("GET", "/api/admin/events/:id/messages", s.visitors.Admin(event(s.moderation.Messages)))
	h("POST", "/api/admin/events/:id/messages", s.visitors.Admin(event(s.moderation.ModerateMessages)))
	h("GET", "/api/admin/events/:id/messages/archive", s.visitors.Admin(event(s.moderation.MessageArchive)))

	// Admin: gallery links (shares).
	h("GET", "/api/admin/events/:id/shares", s.visitors.Admin(event(s.gallery.ListShares)))
	h("POST", "/api/admin/events/:id/shares", s.visitors.Admin(event(s.gallery.CreateShare)))
	h("DELETE", "/api/admin/events/:id/shares/:shareId", s.visitors.Admin(event(s.gallery.DeleteShare)))
	// Added route: the guests' addresses, as JSON or ?format=csv.
	h("GET", "/api/admin/events/:id/contacts", s.visitors.Admin(event(s.events.Contacts)))

	// Not in the spec: wall links (daemon/api/wall, docs/decisions.md, "Wall
	// links"); the hosts make and revoke them, a venue screen opens one
	// by its token without signing in.
	h("GET", "/api/admin/events/:id/walls", s.visitors.Admin(event(s.walls.List)))
	h("POST", "/api/admin/events/:id/walls", s.visitors.Admin(event(s.walls.Create)))
	h("DELETE", "/api/admin/events/:id/walls/:wallId", s.visitors.Admin(event(s.walls.Delete)))
	h("GET", "/api/wall/:token", s.walls.Show)
	h("GET", "/api/wall/:token/live", s.walls.Stream)
	h("GET", "/api/wall/:token/media/:id", s.walls.Media)
	h("GET", "/api/wall/:token/qr", s.walls.QR)

	// Admin: cloud export (WebDAV).
	h("GET", "/api/admin/events/:id/cloud", s.visitors.Admin(event(s.cloud.EventExports)))
	h("POST", "/api/admin/events/:id/cloud", s.visitors.Admin(event(s.cloud.QueueExport)))
	h("GET", "/api/admin/events/:id/guest-link", s.visitors.Admin(event(s.cloud.GuestLinkPlan)))
	h("GET", "/api/admin/cloud", s.visitors.Owner(s.cloud.Settings))
	h("PUT", "/api/admin/cloud", s.visitors.Owner(s.cloud.SaveSettings))
	h("DELETE", "/api/admin/cloud", s.visitors.Owner(s.cloud.RemoveSettings))
	h("POST", "/api/admin/cloud/test", s.visitors.Owner(s.cloud.TestSettings))

	// Added routes: printing through CUPS (daemon/printing). The settings,
	// the printers, the test page and the queue are the owners'; an
	// event's layout and prints are its hosts'.
	h("GET", "/api/admin/printing", s.visitors.Owner(s.printing.Settings))
	h("PUT", "/api/admin/printing", s.visitors.Owner(s.printing.SaveSettings))
	h("GET", "/api/admin/printing/printers", s.visitors.Owner(s.printing.Printers))
	h("POST", "/api/admin/printing/printers", s.visitors.Owner(s.printing.AddPrinter))
	h("GET", "/api/admin/printing/devices", s.visitors.Owner(s.printing.Devices))
	h("POST", "/api/admin/printing/test", s.visitors.Owner(s.printing.TestPrint))
	h("GET", "/api/admin/printing/queue", s.visitors.Owner(s.printing.Queue))
	h("DELETE", "/api/admin/printing/queue/:printId", s.visitors.Owner(s.printing.CancelPrint))
	h("GET", "/api/admin/events/:id/print-layout", s.visitors.Admin(event(s.printing.Layout)))
	h("PUT", "/api/admin/events/:id/print-layout", s.visitors.Admin(event(s.printing.SaveLayout)))
	h("POST", "/api/admin/events/:id/print", s.visitors.Admin(event(s.printing.PrintEvent)))

	// Admin: webhooks (owners).
	h("GET", "/api/admin/webhooks", s.visitors.Owner(s.sending.ListWebhooks))
	h("POST", "/api/admin/webhooks", s.visitors.Owner(s.sending.CreateWebhook))
	h("PATCH", "/api/admin/webhooks/:id", s.visitors.Owner(s.sending.UpdateWebhook))
	h("DELETE", "/api/admin/webhooks/:id", s.visitors.Owner(s.sending.DeleteWebhook))
	h("POST", "/api/admin/webhooks/:id/test", s.visitors.Owner(s.sending.TestWebhook))

	// Admin: mail (owners).
	h("GET", "/api/admin/mail", s.visitors.Owner(s.sending.Mail))
	h("PUT", "/api/admin/mail", s.visitors.Owner(s.sending.SaveMail))
	h("POST", "/api/admin/mail/test", s.visitors.Owner(s.sending.TestMail))
	h("POST", "/api/admin/mail/retry", s.visitors.Owner(s.sending.RetryMail))

	// Added routes: the Network screen (owners; daemon/network).
	h("GET", "/api/admin/network", s.visitors.Owner(s.network.State))
	h("GET", "/api/admin/network/qr", s.visitors.Owner(s.network.QRCode))
	h("PUT", "/api/admin/network/hotspot", s.visitors.Owner(s.network.SetHotspot))
	h("POST", "/api/admin/network/hotspot/back", s.visitors.Owner(s.network.Back))
	h("GET", "/api/admin/network/wifi", s.visitors.Owner(s.network.Scan))
	h("POST", "/api/admin/network/wifi/join", s.visitors.Owner(s.network.Join))
	h("PUT", "/api/admin/network/phones", s.visitors.Owner(s.network.SetPhones))
	// The phones on the hotspot over the evening: every console account's
	// (the event's dashboard, the nearly-full notice).
	h("GET", "/api/admin/phones", s.visitors.Admin(s.network.Phones))
	h("PUT", "/api/admin/network/ports", s.visitors.Owner(s.network.SetPorts))

	// Admin: backup and updates (owners).
	// A restore is not held back by the storage guard: it may free
	// space, and it checks its own room (daemon/api/box).
	h("GET", "/api/admin/backup", s.visitors.Owner(s.box.Backup))
	h("POST", "/api/admin/backup/restore", s.visitors.Owner(s.upload(s.accountUploader, s.box.Restore)))
	h("PUT", "/api/admin/backup/retention", s.visitors.Owner(s.box.BackupRetention))
	// Added route: set the box's clock from an owner's browser while it is unsure (daemon/api/box).
	h("POST", "/api/admin/clock", s.visitors.Owner(s.box.SetClock))
	h("GET", "/api/admin/updates", s.visitors.Owner(s.box.Updates))
	h("POST", "/api/admin/updates/check", s.visitors.Owner(s.box.UpdatesCheck))
	h("POST", "/api/admin/updates/apply", s.visitors.Owner(s.box.UpdatesApply))

	// Statistics, metrics, health.
	h("GET", "/api/admin/stats", s.visitors.Admin(s.box.Stats))
	// Added route: the storage guard's state, for the console's banner.
	h("GET", "/api/admin/storage", s.visitors.Admin(s.box.Storage))
	// Added routes: the guests' unfinished resumable uploads, which the
	// owner may see and remove (daemon/resumable; docs/decisions/guests.md,
	// "What a guest can reserve").
	h("GET", "/api/admin/uploads", s.visitors.Owner(s.resumable.List))
	h("DELETE", "/api/admin/uploads/:id", s.visitors.Owner(s.resumable.Remove))
	// Added route: the About screen (version, licence, third-party notice).
	h("GET", "/api/admin/about", s.visitors.Admin(s.box.About))
	h("GET", "/api/metrics", s.box.Metrics)
	h("GET", "/api/health", s.box.Health)
	// Added route: this interface's reference, the OpenAPI document of
	// every route above (api/openapi.yaml, daemon/api/box).
	h("GET", "/api/openapi.yaml", s.box.OpenAPI)

	return rt
}

// serveUI is the router's fallback: pages and their files from the
// embedded UI, and a JSON 404 for any unknown /api/ path.
func (s *Server) serveUI(w http.ResponseWriter, r *http.Request) {
	if web.IsAPIPath(r.URL.Path) {
		s.writeError(w, r, web.ErrNotFound)
		return
	}
	if r.URL.Path == "/" && s.setup.Open(r.Context()) {
		http.Redirect(w, r, "/setup", http.StatusFound) // first-run setup (daemon/setup)
		return
	}
	s.ui.ServeHTTP(w, r)
}
