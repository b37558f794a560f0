// Package daemon is the HTTP service of eventbox: the API that
// api/openapi.yaml describes (every route in routes.go, in its order),
// the embedded pages, sessions and roles, and the background work the
// requests set off.
//
// Handlers are methods of *Server, or of an area package's type (the
// box's own routes are daemon/box), returning error; one adapter turns an
// error into the { error, details } answer (errors.go). Response shapes
// live in dto.go and are built field by field from store records, which
// keeps secrets out of answers. The package reaches the database only
// through package store.
package daemon
