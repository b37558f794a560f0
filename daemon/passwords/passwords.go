// Package passwords holds the rules of the console's passwords: what a
// new one must be, bcrypt hashing and checking, and the generated ones
// that are easy to type from a screen.
package passwords

import (
	"fmt"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"eventbox/store"
)

// Problem says what is wrong with a new password, or "".
func Problem(p string) string {
	switch {
	case utf8.RuneCountInString(p) < 10:
		return "must be at least 10 characters"
	case len(p) > 72:
		return "must be at most 72 bytes"
	}
	return ""
}

// Check reports whether p is the password of hash.
func Check(hash, p string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(p)) == nil
}

// Generate makes a password that is easy to type from a screen:
// four groups of five unambiguous characters.
func Generate() string {
	s := store.NewSlug() + store.NewSlug() + store.NewSlug() + store.NewSlug()
	return s[0:5] + "-" + s[5:10] + "-" + s[10:15] + "-" + s[15:20]
}

// Hash hashes p with bcrypt at cost (0: bcrypt's default).
func Hash(p string, cost int) (string, error) {
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	h, err := bcrypt.GenerateFromPassword([]byte(p), cost)
	if err != nil {
		return "", fmt.Errorf("hashing password: %w", err)
	}
	return string(h), nil
}
