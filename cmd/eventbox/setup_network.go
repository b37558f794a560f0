package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"eventbox/daemon/setup"
	"eventbox/netsetup"
)

// SetupChoicesFile is the name, in DATA_DIR, of the setup page's Wi-Fi,
// country and time zone, written in the settings file's form for the
// service's root step, which applies it before the next start
// (packaging/eventbox.service).
const SetupChoicesFile = "setup.txt"

// setupHandoff is the setup page's Network under the service: the daemon
// runs as its own user and may not change the network, so it writes the
// host's choices for the root step and asks for a restart, which comes
// once the page's answer is out.
type setupHandoff struct {
	dir     string
	restart func()
}

var _ setup.Network = setupHandoff{}

// Apply writes DATA_DIR/setup.txt (mode 0600, atomically) and asks for
// the restart.
func (s setupHandoff) Apply(_ context.Context, c setup.Choice) error {
	password := c.WiFiPassword
	if password == "" {
		password = netsetup.OpenNetwork
	}
	var b strings.Builder
	b.WriteString("# The choices of the setup page, applied by the service before its next start.\n")
	for _, kv := range [][2]string{{netsetup.KeyHotspotName, c.WiFiName}, {netsetup.KeyHotspotPassword, password},
		{netsetup.KeyCountry, c.Country}, {netsetup.KeyTimeZone, c.TimeZone}} {
		// Quoted, so that spaces at either end stay (the reader strips
		// one pair of quotes).
		fmt.Fprintf(&b, "%s = \"%s\"\n", kv[0], kv[1])
	}
	path := filepath.Join(s.dir, SetupChoicesFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("writing the setup page's choices: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing the setup page's choices: %w", err)
	}
	s.restart()
	return nil
}

// SetupPreviewEnv, when set, opens the first-run setup page under
// `make run` (make run-setup): on a fresh data dir, with no ADMIN_PASSWORD,
// /setup and /api/setup behave as on a new box, and what the page sends
// is logged instead of applied (the machine's network, time zone and
// clock stay as they are). Under the service, the real handoff wins.
const SetupPreviewEnv = "EVENTBOX_SETUP_PREVIEW"

// setupPreview is the setup page's network outside the service: it logs
// the choices and changes nothing.
type setupPreview struct{ log *slog.Logger }

var _ setup.Network = setupPreview{}

// Apply logs what the page chose (never the passwords).
func (p setupPreview) Apply(ctx context.Context, c setup.Choice) error {
	p.log.InfoContext(ctx, "setup preview: the page's choices, not applied", "wifi", c.WiFiName, "open", c.WiFiPassword == "",
		"country", c.Country, "time_zone", c.TimeZone)
	return nil
}
