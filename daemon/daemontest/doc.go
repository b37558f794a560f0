// Package daemontest is the test kit of the route-level tests, for tests
// only: it builds the whole daemon (daemon.New over a real store in a
// temporary folder, a fake clock, the web interface prepared once) and
// serves its real router with httptest, checking every answer against
// api/openapi.yaml (CheckAnswers). Its clients are browsers with their own
// cookie jars that send the page's Origin; they sign in as the first owner
// or an organizer, create events, join them as guests, upload photos and
// decode the daemon's { error, details } answers. It also makes the
// images the tests upload (PhotoJPEG, PNGWithAlpha, GIFImage).
//
// daemon/scenarios holds the scenarios themselves; no code of the product
// imports this package.
package daemontest
