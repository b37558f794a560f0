package daemon

import (
	"net/http"

	"eventbox/daemon/web"

	"github.com/julienschmidt/httprouter"
)

// routes registers every route of the spec, in the spec's order, so the
// two can be read side by side. Per-route middleware is explicit: admin
// (signed in), owner (owners only), rate (a limiter), guestUpload and
// consoleUpload (upload bodies: at most a few at once, paced).
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
			// A streamed answer cut on purpose (abortStream): let the
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
	// nearly full (storage_guard.go), before the body is read; like every
	// refusal of an upload, its answer is one a client that keeps sending
	// can read (refuseUpload).
	guestUpload := func(fn web.HandlerFunc) web.HandlerFunc { return s.upload(s.guestUploader, s.guardStorage(fn)) }
	consoleUpload := func(fn web.HandlerFunc) web.HandlerFunc { return s.upload(s.accountUploader, s.guardStorage(fn)) }

	// The front page (added, not in the spec: docs/decisions.md, "A join
	// that never dead-ends"): the events open now, and a typed code.
	h("GET", "/api/events", s.guests.ListOpenEvents)
	h("POST", "/api/join", s.rate(s.limits.unlock, s.guests.JoinByCode))
	// The box's CA, for the booth tablet to trust (added: "HTTPS on the
	// box"). Outside /api/ so that the link reads as a file to save.
	h("GET", "/ca.crt", s.handleCACert)
	h("GET", "/ca.mobileconfig", s.handleCAProfile)

	// Guest routes (cookie gr_guest).
	h("GET", "/api/e/:slug", s.guests.PublicEvent)
	h("POST", "/api/e/:slug/join", s.rate(s.guards.join, s.guests.Join))
	h("POST", "/api/e/:slug/unlock", s.rate(s.limits.unlock, s.guests.Unlock))
	h("POST", "/api/e/:slug/guest", s.guests.SetName)
	h("POST", "/api/e/:slug/booth", s.rate(s.limits.booth, s.handleBoothJoin))
	h("GET", "/api/e/:slug/booth/events", s.handleBoothEvents)
	h("POST", "/api/e/:slug/photos", guestUpload(s.guests.Upload))
	h("DELETE", "/api/e/:slug/photos/:id", s.guests.DeletePhoto)
	h("GET", "/api/e/:slug/photos", s.guests.Photos)
	h("GET", "/api/e/:slug/logo", s.handleLogo)
	h("GET", "/api/media/:id", s.guests.Media)
	h("POST", "/api/e/:slug/contact", s.guests.SetContact)
	h("DELETE", "/api/e/:slug/contact", s.guests.DeleteContact)
	h("GET", "/api/e/:slug/messages", s.guests.Messages)
	h("POST", "/api/e/:slug/messages", guestUpload(s.guests.PostMessage))
	h("DELETE", "/api/e/:slug/messages/:id", s.guests.DeleteMessage)
	h("GET", "/api/messages/:id/audio", s.guests.MessageAudio)

	// Gallery link routes (cookie gr_share).
	h("GET", "/api/g/:token", s.handleGallery)
	h("POST", "/api/g/:token/unlock", s.rate(s.limits.shareUnlock, s.handleGalleryUnlock))
	h("GET", "/api/g/:token/photos", s.handleGalleryPhotos)
	h("GET", "/api/g/:token/messages", s.handleGalleryMessages)
	h("GET", "/api/g/:token/archive", s.handleGalleryArchive)
	h("GET", "/api/g/:token/logo", s.handleGalleryLogo) // added: the event's logo on the gallery page

	// Admin: sign-in and account.
	h("POST", "/api/admin/login", s.handleLogin)          // limits: signInGate
	h("POST", "/api/admin/login/code", s.handleLoginCode) // limits: signInGate
	h("GET", "/api/admin/me/two-factor", s.visitors.Admin(s.handleTwoFactorStatus))
	h("POST", "/api/admin/me/two-factor", s.visitors.Admin(s.handleTwoFactor))
	h("DELETE", "/api/admin/me/two-factor", s.visitors.Admin(s.handleTwoFactorOff))
	h("POST", "/api/admin/logout", s.visitors.Admin(s.handleLogout))
	h("POST", "/api/admin/password", s.visitors.Admin(s.handlePassword))
	h("GET", "/api/admin/me", s.visitors.Admin(s.handleMe))
	h("PATCH", "/api/admin/me", s.visitors.Admin(s.handleUpdateMe))

	// Admin: accounts and invitations (owners).
	h("GET", "/api/admin/accounts", s.visitors.Owner(s.handleListAccounts))
	h("POST", "/api/admin/accounts", s.visitors.Owner(s.handleCreateAccount))
	h("PATCH", "/api/admin/accounts/:id", s.visitors.Owner(s.handleUpdateAccount))
	h("DELETE", "/api/admin/accounts/:id", s.visitors.Owner(s.handleDeleteAccount))
	h("GET", "/api/admin/invitations", s.visitors.Owner(s.handleListInvitations))
	h("POST", "/api/admin/invitations", s.visitors.Owner(s.handleCreateInvitation))
	h("DELETE", "/api/admin/invitations/:id", s.visitors.Owner(s.handleDeleteInvitation))
	h("POST", "/api/admin/invite/:token", s.rate(s.limits.invite, s.handleAcceptInvitation))

	// Admin: events. event-model is not in the spec: the defaults and rules
	// of the event fields, for the console's form (docs/decisions.md).
	h("GET", "/api/admin/events", s.visitors.Admin(s.handleListEvents))
	h("GET", "/api/admin/event-model", s.visitors.Admin(s.handleEventModel))
	h("POST", "/api/admin/events", s.visitors.Owner(s.handleCreateEvent))
	h("GET", "/api/admin/events/:id", s.visitors.Admin(s.handleGetEvent))
	h("PATCH", "/api/admin/events/:id", s.visitors.Admin(s.handleUpdateEvent))
	h("DELETE", "/api/admin/events/:id", s.visitors.Owner(s.handleDeleteEvent))
	h("POST", "/api/admin/events/:id/rotate", s.visitors.Admin(s.handleRotateEvent))
	h("POST", "/api/admin/events/:id/logo", s.visitors.Admin(consoleUpload(s.handleUploadLogo)))
	h("DELETE", "/api/admin/events/:id/logo", s.visitors.Admin(s.handleDeleteLogo))
	h("GET", "/api/admin/events/:id/qr", s.visitors.Admin(s.handleQR))
	h("POST", "/api/admin/events/:id/duplicate", s.visitors.Owner(s.handleDuplicateEvent))
	// Not in the spec: the printable signage kit (admin_signage.go).
	h("GET", "/api/admin/events/:id/signage", s.visitors.Admin(s.handleSignage))
	h("POST", "/api/admin/events/:id/end", s.visitors.Admin(s.handleEndEvent))
	h("POST", "/api/admin/events/:id/booth", s.visitors.Admin(s.handleEnableBooth))
	h("DELETE", "/api/admin/events/:id/booth", s.visitors.Admin(s.handleDisableBooth))

	// Admin: places (spots).
	h("GET", "/api/admin/events/:id/spots", s.visitors.Admin(s.handleListSpots))
	h("POST", "/api/admin/events/:id/spots", s.visitors.Admin(s.handleCreateSpot))
	h("PATCH", "/api/admin/events/:id/spots/:spotId", s.visitors.Admin(s.handleRenameSpot))
	h("DELETE", "/api/admin/events/:id/spots/:spotId", s.visitors.Admin(s.handleDeleteSpot))

	// Admin: photos.
	h("GET", "/api/admin/events/:id/photos", s.visitors.Admin(s.handleAdminPhotos))
	h("POST", "/api/admin/events/:id/photos", s.visitors.Admin(s.handleAdminPhotoAction))
	h("POST", "/api/admin/events/:id/photos/import", s.visitors.Admin(consoleUpload(s.handleAdminImport)))
	h("GET", "/api/admin/events/:id/archive", s.visitors.Admin(s.handleAdminArchive))
	h("GET", "/api/admin/events/:id/album", s.visitors.Admin(s.handleAlbum))
	// Not in the spec: the console's live stream (admin_live.go).
	h("GET", "/api/admin/events/:id/live", s.visitors.Admin(s.handleAdminLive))

	// Admin: guestbook messages.
	h("GET", "/api/admin/events/:id/messages", s.visitors.Admin(s.handleAdminMessages))
	h("POST", "/api/admin/events/:id/messages", s.visitors.Admin(s.handleModerateMessages))
	h("GET", "/api/admin/events/:id/messages/archive", s.visitors.Admin(s.handleMessageArchive))

	// Admin: gallery links (shares).
	h("GET", "/api/admin/events/:id/shares", s.visitors.Admin(s.handleListShares))
	h("POST", "/api/admin/events/:id/shares", s.visitors.Admin(s.handleCreateShare))
	h("DELETE", "/api/admin/events/:id/shares/:shareId", s.visitors.Admin(s.handleDeleteShare))
	// Added route: the guests' addresses, as JSON or ?format=csv.
	h("GET", "/api/admin/events/:id/contacts", s.visitors.Admin(s.handleContacts))

	// Not in the spec: wall links (wall.go, docs/decisions.md, "Wall
	// links"); the hosts make and revoke them, a venue screen opens one
	// by its token without signing in.
	h("GET", "/api/admin/events/:id/walls", s.visitors.Admin(s.handleListWalls))
	h("POST", "/api/admin/events/:id/walls", s.visitors.Admin(s.handleCreateWall))
	h("DELETE", "/api/admin/events/:id/walls/:wallId", s.visitors.Admin(s.handleDeleteWall))
	h("GET", "/api/wall/:token", s.handleWall)
	h("GET", "/api/wall/:token/live", s.handleWallLive)
	h("GET", "/api/wall/:token/media/:id", s.handleWallMedia)
	h("GET", "/api/wall/:token/qr", s.handleWallQR)

	// Admin: cloud export (WebDAV).
	h("GET", "/api/admin/events/:id/cloud", s.visitors.Admin(s.cloud.EventExports))
	h("POST", "/api/admin/events/:id/cloud", s.visitors.Admin(s.cloud.QueueExport))
	h("GET", "/api/admin/cloud", s.visitors.Owner(s.cloud.Settings))
	h("PUT", "/api/admin/cloud", s.visitors.Owner(s.cloud.SaveSettings))
	h("DELETE", "/api/admin/cloud", s.visitors.Owner(s.cloud.RemoveSettings))
	h("POST", "/api/admin/cloud/test", s.visitors.Owner(s.cloud.TestSettings))

	// Admin: webhooks (owners).
	h("GET", "/api/admin/webhooks", s.visitors.Owner(s.outbound.ListWebhooks))
	h("POST", "/api/admin/webhooks", s.visitors.Owner(s.outbound.CreateWebhook))
	h("PATCH", "/api/admin/webhooks/:id", s.visitors.Owner(s.outbound.UpdateWebhook))
	h("DELETE", "/api/admin/webhooks/:id", s.visitors.Owner(s.outbound.DeleteWebhook))
	h("POST", "/api/admin/webhooks/:id/test", s.visitors.Owner(s.outbound.TestWebhook))

	// Admin: mail (owners).
	h("GET", "/api/admin/mail", s.visitors.Owner(s.outbound.Mail))
	h("PUT", "/api/admin/mail", s.visitors.Owner(s.outbound.SaveMail))
	h("POST", "/api/admin/mail/test", s.visitors.Owner(s.outbound.TestMail))
	h("POST", "/api/admin/mail/retry", s.visitors.Owner(s.outbound.RetryMail))

	// Added routes: the Network screen (owners; daemon/network).
	h("GET", "/api/admin/network", s.visitors.Owner(s.network.State))
	h("GET", "/api/admin/network/qr", s.visitors.Owner(s.network.QRCode))
	h("PUT", "/api/admin/network/hotspot", s.visitors.Owner(s.network.SetHotspot))
	h("POST", "/api/admin/network/hotspot/back", s.visitors.Owner(s.network.Back))
	h("GET", "/api/admin/network/wifi", s.visitors.Owner(s.network.Scan))
	h("POST", "/api/admin/network/wifi/join", s.visitors.Owner(s.network.Join))

	// Admin: backup and updates (owners).
	// A restore is not held back by the storage guard: it may free
	// space, and it checks its own room (admin_backup.go).
	h("GET", "/api/admin/backup", s.visitors.Owner(s.handleBackup))
	h("POST", "/api/admin/backup/restore", s.visitors.Owner(s.upload(s.accountUploader, s.handleRestore)))
	h("PUT", "/api/admin/backup/retention", s.visitors.Owner(s.handleBackupRetention))
	h("GET", "/api/admin/updates", s.visitors.Owner(s.handleUpdates))
	h("POST", "/api/admin/updates/check", s.visitors.Owner(s.handleUpdatesCheck))
	h("POST", "/api/admin/updates/apply", s.visitors.Owner(s.handleUpdatesApply))

	// Statistics, metrics, health.
	h("GET", "/api/admin/stats", s.visitors.Admin(s.handleStats))
	// Added route: the storage guard's state, for the console's banner.
	h("GET", "/api/admin/storage", s.visitors.Admin(s.handleStorage))
	// Added route: the About screen (version, licence, third-party notice).
	h("GET", "/api/admin/about", s.visitors.Admin(s.handleAbout))
	h("GET", "/api/metrics", s.handleMetrics)
	h("GET", "/api/health", s.handleHealth)
	// Added route: this interface's reference, the OpenAPI document of
	// every route above (api/openapi.yaml, openapi.go).
	h("GET", "/api/openapi.yaml", s.handleOpenAPI)

	return rt
}

// serveUI is the router's fallback: pages and their files from the
// embedded UI, and a JSON 404 for any unknown /api/ path.
func (s *Server) serveUI(w http.ResponseWriter, r *http.Request) {
	if web.IsAPIPath(r.URL.Path) {
		s.writeError(w, r, web.ErrNotFound)
		return
	}
	s.ui.ServeHTTP(w, r)
}
