// Package setup is the first-run setup page's side of the daemon: a box
// nobody set up yet (no hotspot of the host's, and the only account the
// owner with a generated password who never signed in) answers
// GET /api/setup and POST /api/setup for a limited window after it
// starts, and the captive portal sends every page to /setup meanwhile.
//
// The first visitor who submits the page sets the box up: the owner's
// user name and password (the generated owner is renamed and its password
// replaced in one transaction that checks the box is still unset, so a
// second visitor is refused), the time from the phone's clock when the
// box's is off, and the guests' Wi-Fi, country and time zone through the
// Network the daemon is given (cmd/eventbox hands them to the service's
// root step, which applies them before the next start). After that, or
// once the window is over, the routes refuse everything. What this allows
// and what not: docs/decisions/trust.md, "The first-run setup page".
package setup

//go:generate go run zones_gen.go
