package mail

import (
	"errors"

	"eventbox/secret"
)

// KeyFile is the name, inside DATA_DIR, of the key that seals the SMTP
// password (package secret). Backups must leave it out.
const KeyFile = secret.KeyFile

// keySize is the sealing key's length.
const keySize = secret.KeySize

// sealLabel binds a sealed value to its use, so a value sealed for
// something else does not open as a password.
const sealLabel = "eventbox smtp password"

// errUnsealable: the sealed password does not open with this box's key
// (the database was restored on another box, or the key file was lost).
var errUnsealable = errors.New("the SMTP password was sealed with another key; enter it again")

// LoadKey reads the sealing key from dir/KeyFile, creating it (mode 0600)
// on first use.
func LoadKey(dir string) ([]byte, error) { return secret.LoadKey(dir) }

// seal encrypts plain with key.
func seal(key []byte, plain string) ([]byte, error) { return secret.Seal(key, sealLabel, plain) }

// unseal opens what seal made; errUnsealable when key is not the one it
// was sealed with.
func unseal(key, sealed []byte) (string, error) {
	plain, err := secret.Open(key, sealLabel, sealed)
	if errors.Is(err, secret.ErrUnsealable) {
		return "", errUnsealable
	}
	return plain, err
}
