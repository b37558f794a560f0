package daemon

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"strconv"

	"eventbox/daemon/guests"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/web"
)

// The box's HTTPS (docs/decisions.md, "HTTPS on the box"): cmd/eventbox
// serves it with the box's own CA or the host's certificate; the daemon
// offers the CA for a booth tablet to trust and tells the pages where
// HTTPS is.

// httpsInfo is the public event's https field, or nil without HTTPS.
func (s *Server) httpsInfo() *guests.HTTPS {
	if s.cfg.HTTPSPort == 0 {
		return nil
	}
	d := &guests.HTTPS{Port: s.cfg.HTTPSPort}
	if len(s.cfg.BoxCA) > 0 {
		u := "/ca.crt"
		d.CAURL = &u
	}
	return d
}

// handleCACert serves the box's CA certificate (DER) for Android, desktop
// browsers and the booth tablet to install; 404 when there is none.
func (s *Server) handleCACert(w http.ResponseWriter, r *http.Request) error {
	if len(s.cfg.BoxCA) == 0 {
		return web.ErrNotFound
	}
	h := w.Header()
	h.Set("Content-Type", "application/x-x509-ca-cert")
	h.Set("Content-Disposition", mediafile.ContentDisposition("eventbox-ca.crt"))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(s.cfg.BoxCA)))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(s.cfg.BoxCA)
	return err
}

// handleCAProfile serves the CA as an iOS/iPadOS configuration profile:
// one tap downloads it; Settings installs it, and Settings > General >
// About > Certificate Trust Settings turns full trust on.
func (s *Server) handleCAProfile(w http.ResponseWriter, r *http.Request) error {
	if len(s.cfg.BoxCA) == 0 {
		return web.ErrNotFound
	}
	sum := sha256.Sum256(s.cfg.BoxCA)
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
			<key>PayloadContent</key><data>` + base64.StdEncoding.EncodeToString(s.cfg.BoxCA) + `</data>
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
