// Package daemon is the wiring of eventbox's HTTP service: the API that
// api/openapi.yaml describes, the embedded pages, and the background work
// the requests set off.
//
// New (server.go) builds the server in dependency order, in short steps:
// the core (limits, cookies, who asks, the job runner, the live hub),
// the services (each given the runner, registering its own job kinds),
// then the areas. routes.go is the one route table, in the spec's order,
// each line with its route's whole access rule (admin, owner, the event
// wrapper that hands a console handler its :id event, rate limits,
// upload gates); middleware.go is the middleware, and Run lists the
// background services.
//
// Handlers live in the area packages under daemon/api (daemon/api/events,
// daemon/api/moderation, …; an area that also runs a service or a job
// kind of its own, such as daemon/printing, stays under daemon/) and
// return an error, which daemon/web turns into the { error, details }
// answer; the answers' shapes are daemon/dto,
// built field by field from store records. The package reaches the
// database only through package store. The layers, and what each package
// holds, are in docs/architecture.md; internal/shape checks them. The
// route-level tests, which build the whole daemon and drive its router,
// are in daemon/scenarios; this package keeps the tests of its internals.
package daemon
