// Package secret seals the secrets the box keeps in its database (the SMTP
// and WebDAV passwords, the webhooks' addresses and signing secrets) with
// a key of its own, DATA_DIR/secret.key, that backups leave out, and keeps
// the keys that must not travel with a backup (the guest cookies' signing
// key) in files beside it (docs/decisions.md, "Sealed secrets, and what a backup holds").
//
// A sealed value is AES-256-GCM: a random nonce, then the sealed bytes,
// bound to its use by a label (the GCM additional data), so a value sealed
// as one thing does not open as another.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// KeyFile is the name, inside DATA_DIR, of the sealing key.
const KeyFile = "secret.key"

// KeySize is the sealing key's length (AES-256).
const KeySize = 32

// ErrUnsealable is a sealed value that does not open with this box's key:
// the database was restored from another box, or the key file was lost.
// The value must be entered again.
var ErrUnsealable = errors.New("sealed with another box's key")

// LoadKey reads the sealing key from dir/KeyFile, making it on first use.
func LoadKey(dir string) ([]byte, error) {
	return LoadFile(filepath.Join(dir, KeyFile), KeySize)
}

// LoadFile reads a key of size random bytes from path, making it (mode
// 0600, written to a temp file and renamed) when there is none.
func LoadFile(path string, size int) ([]byte, error) {
	key, err := os.ReadFile(path)
	if err == nil {
		if len(key) != size {
			return nil, fmt.Errorf("reading %s: want %d bytes, found %d", path, size, len(key))
		}
		return key, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	key = make([]byte, size)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("making %s: %w", path, err)
	}
	if err := WriteFile(path, key); err != nil {
		return nil, err
	}
	return key, nil
}

// WriteFile writes key to path, mode 0600, by temp file, fsync and rename.
func WriteFile(path string, key []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, werr := tmp.Write(key)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return errors.Join(fmt.Errorf("writing %s: %w", path, err), os.Remove(tmp.Name()))
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return errors.Join(fmt.Errorf("writing %s: %w", path, err), os.Remove(tmp.Name()))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return errors.Join(fmt.Errorf("writing %s: %w", path, err), os.Remove(tmp.Name()))
	}
	return nil
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

// Seal seals plain with key for the use label.
func Seal(key []byte, label, plain string) ([]byte, error) {
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("sealing: %w", err)
	}
	return aead.Seal(nonce, nonce, []byte(plain), []byte(label)), nil
}

// Open opens what Seal made with the same key and label; ErrUnsealable
// otherwise (and when key is nil).
func Open(key []byte, label string, sealed []byte) (string, error) {
	if key == nil {
		return "", ErrUnsealable
	}
	aead, err := gcm(key)
	if err != nil {
		return "", err
	}
	if len(sealed) < aead.NonceSize() {
		return "", ErrUnsealable
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(label))
	if err != nil {
		return "", ErrUnsealable
	}
	return string(plain), nil
}
