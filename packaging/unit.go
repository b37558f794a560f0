package packaging

import (
	_ "embed"
	"strings"
)

// UnitTemplate is the text of packaging/eventbox.service. It is a
// kardianos/service (v1.3.0) custom systemd template whose only key is
// PathPlaceholder; hand it to the library as the "SystemdScript" option.
//
//go:embed eventbox.service
var UnitTemplate string

// PathPlaceholder is the one template expression in UnitTemplate. The .deb
// build (build-deb.sh) replaces it with /usr/bin/eventbox, and
// kardianos/service replaces it with the executable's path.
const PathPlaceholder = "{{Path | cmdEscape}}"

// UnitName is the name of the systemd unit, and of the kardianos service.
const UnitName = "eventbox"

// Unit returns UnitTemplate rendered for the executable at execPath, the
// same text kardianos/service writes: spaces in the path are escaped as
// \x20, as its cmdEscape function does.
func Unit(execPath string) string {
	return strings.ReplaceAll(UnitTemplate, PathPlaceholder, strings.ReplaceAll(execPath, " ", `\x20`))
}
