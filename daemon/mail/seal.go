package mail

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// KeyFile is the name, inside DATA_DIR, of the key that seals the SMTP
// password. Backups must leave it out.
const KeyFile = "secret.key"

// keySize is the AES-256 key length.
const keySize = 32

// sealLabel binds a sealed value to its use, so a value sealed for
// something else does not open as a password.
var sealLabel = []byte("eventbox smtp password")

// errUnsealable: the sealed password does not open with this box's key
// (the database was restored on another box, or the key file was lost).
var errUnsealable = errors.New("the SMTP password was sealed with another key; enter it again")

// LoadKey reads the sealing key from dir/KeyFile, creating it (mode 0600,
// written to a temp file and renamed) on first use.
func LoadKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, KeyFile)
	key, err := os.ReadFile(path)
	if err == nil {
		if len(key) != keySize {
			return nil, fmt.Errorf("reading %s: want %d bytes, found %d", path, keySize, len(key))
		}
		return key, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	key = make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("making the sealing key: %w", err)
	}
	tmp, err := os.CreateTemp(dir, KeyFile+".*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	_, werr := tmp.Write(key)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return nil, errors.Join(fmt.Errorf("writing %s: %w", path, err), os.Remove(tmp.Name()))
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return nil, errors.Join(fmt.Errorf("writing %s: %w", path, err), os.Remove(tmp.Name()))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, errors.Join(fmt.Errorf("writing %s: %w", path, err), os.Remove(tmp.Name()))
	}
	return key, nil
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("sealing key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("sealing key: %w", err)
	}
	return aead, nil
}

// seal encrypts plain with key: a random nonce followed by the sealed
// bytes.
func seal(key []byte, plain string) ([]byte, error) {
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("sealing: %w", err)
	}
	return aead.Seal(nonce, nonce, []byte(plain), sealLabel), nil
}

// unseal opens what seal made; errUnsealable when key is not the one it
// was sealed with.
func unseal(key, sealed []byte) (string, error) {
	aead, err := gcm(key)
	if err != nil {
		return "", err
	}
	if len(sealed) < aead.NonceSize() {
		return "", errUnsealable
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], sealLabel)
	if err != nil {
		return "", errUnsealable
	}
	return string(plain), nil
}
