// Package daemon is the HTTP service of eventbox: the API that
// api/openapi.yaml describes (every route in routes.go, in its order),
// the embedded pages, sessions and roles, and the background work the
// requests set off.
//
// Handlers return error and are methods of *Server, or of the one area
// type of a sub-package that New builds (daemon/moderation,
// daemon/gallery, …); one adapter turns an error into the
// { error, details } answer (errors.go). Response shapes
// live in dto.go and are built field by field from store records, which
// keeps secrets out of answers. The package reaches the database only
// through package store.
package daemon
