// Package web holds what every HTTP handler of the box shares: the
// handler type and its path parameters, the { error, details } answers
// and the mapping of domain errors to them, strict JSON decoding, the
// rate limiters, server-sent event frames and the checks of typed text.
// It knows nothing of any one route.
package web
