// Package api holds the reference of the box's HTTP interface: an
// OpenAPI 3.1 document (openapi.yaml) of every route of daemon/routes.go,
// with its request and response schemas and its error codes. The box
// serves it at GET /api/openapi.yaml; the daemon's tests check that every
// route is in it, that every path in it is routed, and that every JSON
// answer they receive matches its schemas.
package api

import _ "embed"

//go:embed openapi.yaml
var document string

// OpenAPI returns the OpenAPI document, as YAML.
func OpenAPI() []byte { return []byte(document) }
