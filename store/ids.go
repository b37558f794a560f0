package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
)

// idAlphabet is lower-case base32: ids are safe in URLs, file names and keys.
const idAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// IDLen is the length of every record id. Fixed width lets ids be concatenated
// into composite index keys without separators.
const IDLen = 16

// slugAlphabet leaves out letters and digits that are mistaken for one
// another when read aloud or typed from a printed card (0/o, 1/l/i).
const slugAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// SlugLen is the length of a generated event slug.
const SlugLen = 6

// NewID returns a random record id of IDLen characters (80 bits) from
// crypto/rand.
func NewID() string { return randomString(idAlphabet, IDLen) }

// NewSlug returns a random event slug of SlugLen unambiguous characters.
func NewSlug() string { return randomString(slugAlphabet, SlugLen) }

// NewToken returns a random 256-bit secret, URL-safe. Only its hash
// (HashToken) is ever stored.
func NewToken() string {
	b := make([]byte, 32)
	mustRead(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// NewSecret returns n random bytes.
func NewSecret(n int) []byte {
	b := make([]byte, n)
	mustRead(b)
	return b
}

// HashToken returns the hex SHA-256 of a token: the form in which tokens are
// stored and looked up. A 256-bit random token needs no slow hash.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ValidID reports whether s has the shape of a record id. Handlers check ids
// from URLs with it before they reach the store or the file system.
func ValidID(s string) bool {
	if len(s) != IDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

func randomString(alphabet string, n int) string {
	b := make([]byte, n)
	buf := make([]byte, 8)
	for i := range b {
		mustRead(buf)
		// Modulo bias is below 2^-58 for a 64-bit draw and these alphabets.
		b[i] = alphabet[binary.BigEndian.Uint64(buf)%uint64(len(alphabet))]
	}
	return string(b)
}

// mustRead fills b from crypto/rand. crypto/rand.Read never fails on Linux
// (Go 1.24+ panics inside it instead), so there is no error to return.
func mustRead(b []byte) {
	_, _ = rand.Read(b)
}
