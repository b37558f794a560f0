package netsetup

import (
	"encoding/hex"
	"strings"
)

// IsSetupSSID reports whether ssid is a setup hotspot's name (SetupSSID's
// form): a hotspot carrying one is the box waiting to be set up, not a
// hotspot of the host's.
func IsSetupSSID(ssid string) bool {
	rest, ok := strings.CutPrefix(ssid, "eventbox-setup-")
	if !ok || len(rest) != 4 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil
}

// TimeZoneProblem says what is wrong with an IANA time zone name such as
// Europe/Paris, or "" when the box knows it: the settings file's rule,
// for the setup page.
func TimeZoneProblem(zone string) string { return timeZoneProblem(zone) }
