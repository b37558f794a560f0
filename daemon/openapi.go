package daemon

import "slices"

// Route is one registered route: its method and its pattern as routes.go
// writes it (":name" for a path parameter).
type Route struct {
	Method string
	Path   string
}

// Routes lists every route of the router, in routes.go's order.
func (s *Server) Routes() []Route { return slices.Clone(s.routeTable) }
