package box

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"strconv"

	"eventbox/daemon/dto"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/web"
)

// The box's HTTPS (docs/decisions.md, "HTTPS on the box"): cmd/eventbox
// serves it with the box's own CA or the host's certificate; the daemon
// offers the CA for a booth tablet to trust and tells the pages where
// HTTPS is.

// HTTPS is the public event's https field for a box serving HTTPS on
// port (0: none) with the CA ca (empty: the host's own certificate), or
// nil without HTTPS.
func HTTPS(port int, ca []byte) *dto.HTTPS {
	if port == 0 {
		return nil
	}
	d := &dto.HTTPS{Port: port}
	if len(ca) > 0 {
		u := "/ca.crt"
		d.CAURL = &u
	}
	return d
}

// CACert serves the box's CA certificate (DER) for Android, desktop
// browsers and the booth tablet to install; 404 when there is none.
func (a *API) CACert(w http.ResponseWriter, r *http.Request) error {
	if len(a.cfg.BoxCA) == 0 {
		return web.ErrNotFound
	}
	h := w.Header()
	h.Set("Content-Type", "application/x-x509-ca-cert")
	h.Set("Content-Disposition", mediafile.ContentDisposition("eventbox-ca.crt"))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(a.cfg.BoxCA)))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(a.cfg.BoxCA)
	return err
}

// CAProfile serves the CA as an iOS/iPadOS configuration profile:
// one tap downloads it; Settings installs it, and Settings > General >
// About > Certificate Trust Settings turns full trust on.
func (a *API) CAProfile(w http.ResponseWriter, r *http.Request) error {
	if len(a.cfg.BoxCA) == 0 {
		return web.ErrNotFound
	}
	sum := sha256.Sum256(a.cfg.BoxCA)
	uuid := func(b []byte) string {
		x := hex.EncodeToString(b[:16])
		return fmt.Sprintf("%s-%s-%s-%s-%s", x[:8], x[8:12], x[12:16], x[16:20], x[20:32])
	}
	inner := sha256.Sum256(append(sum[:], 'c'))
	body := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>PayloadContent</key>
	<array>
		<dict>
			<key>PayloadCertificateFileName</key><string>eventbox-ca.crt</string>
			<key>PayloadContent</key><data>` + base64.StdEncoding.EncodeToString(a.cfg.BoxCA) + `</data>
			<key>PayloadDisplayName</key><string>eventbox</string>
			<key>PayloadIdentifier</key><string>local.eventbox.ca.` + hex.EncodeToString(sum[:6]) + `</string>
			<key>PayloadType</key><string>com.apple.security.root</string>
			<key>PayloadUUID</key><string>` + uuid(inner[:]) + `</string>
			<key>PayloadVersion</key><integer>1</integer>
		</dict>
	</array>
	<key>PayloadDescription</key><string>` + html.EscapeString("Trust this eventbox for HTTPS, so its photo booth may use the camera. It is valid only for the box's own names.") + `</string>
	<key>PayloadDisplayName</key><string>eventbox</string>
	<key>PayloadIdentifier</key><string>local.eventbox.profile.` + hex.EncodeToString(sum[:6]) + `</string>
	<key>PayloadType</key><string>Configuration</string>
	<key>PayloadUUID</key><string>` + uuid(sum[:]) + `</string>
	<key>PayloadVersion</key><integer>1</integer>
</dict>
</plist>
`
	h := w.Header()
	h.Set("Content-Type", "application/x-apple-aspen-config")
	h.Set("Content-Disposition", mediafile.ContentDisposition("eventbox.mobileconfig"))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write([]byte(body))
	return err
}
