package web

import (
	"net/http"
	"net/mail"
	"slices"
	"strconv"
	"strings"

	"eventbox/store"
)

// OneOf reports whether v is one of allowed.
func OneOf(v string, allowed ...string) bool { return slices.Contains(allowed, v) }

// ParseFlag reads a query flag such as favorites=1: absent, "0" or
// "false" is off; "1" or "true" is on; anything else is a 400 naming it.
func ParseFlag(r *http.Request, name string) (bool, error) {
	switch r.URL.Query().Get(name) {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, Field(name, "must be 1 or 0")
}

// QueryID reads an optional id from the query; a value that is not an id
// is a 400 naming it.
func QueryID(r *http.Request, name string) (string, error) {
	v := r.URL.Query().Get(name)
	if v != "" && !store.ValidID(v) {
		return "", Field(name, "must be an id")
	}
	return v, nil
}

// ParseBefore reads the before= cursor: absent, or epoch ms > 0.
func ParseBefore(r *http.Request) (int64, error) {
	v := r.URL.Query().Get("before")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, Field("before", "must be a time in epoch milliseconds")
	}
	return n, nil
}

// ValidEmail accepts a plain address (no display name), at most 254
// characters, with a dot in the domain.
func ValidEmail(s string) bool {
	if len(s) > 254 || strings.ContainsAny(s, " <>\"") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".")
}

// IsAPIPath reports whether p is under /api.
func IsAPIPath(p string) bool {
	return p == "/api" || strings.HasPrefix(p, "/api/")
}
