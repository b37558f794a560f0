package box

import (
	"net/http"

	"eventbox/daemon/web"

	"eventbox"
)

// aboutDTO is the console's About screen: the running version, eventbox's
// own licence, and what the binary bundles from others.
type aboutDTO struct {
	Version     string `json:"version"`
	License     string `json:"license"`
	LicenseText string `json:"licenseText"`
	Notice      string `json:"notice"`
}

// About answers the running version, eventbox's licence (its SPDX
// name and text) and THIRD_PARTY_NOTICES.md, for any signed-in account
// (added route: GET /api/admin/about).
func (a *API) About(w http.ResponseWriter, r *http.Request) error {
	return web.JSON(w, r, http.StatusOK, aboutDTO{
		Version:     a.cfg.Version,
		License:     eventbox.License,
		LicenseText: eventbox.LicenseText(),
		Notice:      eventbox.ThirdPartyNotices(),
	})
}
