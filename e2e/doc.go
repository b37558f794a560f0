// Package e2e holds the browser tests of eventbox: each test starts the
// real daemon (real store in a temporary directory, the embedded web
// interface) on a local test server and drives Debian's headless Chromium
// through it with chromedp, at a phone's screen size, doing what a guest
// or a host does.
//
// The tests run side by side (t.Parallel), except those that time a page.
// They share one Chromium process per language and set of flags for the
// whole run; every browser a test opens is a new browser context in it, a
// window with its own cookies, storage and cache, as a fresh profile has.
//
// The tests skip with a message when no Chromium binary is installed
// (Debian: apt-get install chromium), and fail instead under
// EVENTBOX_REQUIRE_ALL=1, as in CI (internal/testtool). Run them with
//
//	go test ./e2e/
//
// and add -shots=DIR to save a full-page screenshot of each page visited,
// to look at what a person would see.
//
// The tests that go through every language and screen size (every page in
// French, Italian and Spanish; the console's screens at both phone widths;
// the wall's countdown up to a 4K screen) run only their quick cases by
// default, one or two pairs each, named where they loop (swept). -sweep runs
// every case: `make browsertest`, which .ci/run runs after `make test`.
package e2e
