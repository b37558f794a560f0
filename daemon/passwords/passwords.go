// Package passwords holds the rules of the console's passwords: what a
// new one must be, bcrypt hashing and checking, and the generated ones
// that are easy to type from a screen.
package passwords

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
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

// unambiguous leaves out letters and digits that are mistaken for one
// another when read aloud or typed from a screen (0/o, 1/l/i): the event
// slugs' alphabet.
const unambiguous = "23456789abcdefghjkmnpqrstuvwxyz"

// Generate makes a password that is easy to type from a screen:
// four groups of five unambiguous characters.
func Generate() string {
	b := make([]byte, 20)
	draw := make([]byte, 8)
	for i := range b {
		// crypto/rand.Read never fails (it panics inside instead); the
		// modulo bias of a 64-bit draw over 31 characters is below 2^-58.
		_, _ = rand.Read(draw)
		b[i] = unambiguous[binary.BigEndian.Uint64(draw)%uint64(len(unambiguous))]
	}
	return string(b[0:5]) + "-" + string(b[5:10]) + "-" + string(b[10:15]) + "-" + string(b[15:20])
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
