package update

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// KeysFile is where the package lets an owner add trusted release keys
// (README.md, "Updates"): one Ed25519 public key a line, base64 or hex,
// "#" comments and blank lines allowed.
const KeysFile = "/etc/eventbox/release-keys"

// maxKeysFile caps the keys file: a few keys, a few comments.
const maxKeysFile = 64 << 10

// LoadKeys reads the trusted release keys at path. A missing file is no
// keys and no error. The file is refused, whole, unless it and its
// directory belong to owner (root, 0, outside tests) and nobody else can
// write them, and unless every line that is not a comment is a key: a
// key file anyone else could edit would let them sign updates.
func LoadKeys(path string, owner int) ([]ed25519.PublicKey, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening the release keys: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading the release keys: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the release keys %s: not a regular file", path)
	}
	if err := ownedBy(fi, owner); err != nil {
		return nil, fmt.Errorf("the release keys %s: %w", path, err)
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("reading the release keys' directory: %w", err)
	}
	if err := ownedBy(di, owner); err != nil {
		return nil, fmt.Errorf("the directory of the release keys %s: %w", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeysFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading the release keys: %w", err)
	}
	if len(data) > maxKeysFile {
		return nil, fmt.Errorf("the release keys %s: longer than %d bytes", path, maxKeysFile)
	}
	return parseKeys(path, data)
}

// ownedBy refuses a file that is not owner's or that others may write.
func ownedBy(fi fs.FileInfo, owner int) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("its owner cannot be read")
	}
	if int(st.Uid) != owner {
		return fmt.Errorf("owned by uid %d, not %d", st.Uid, owner)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("mode %v lets others than its owner write it", fi.Mode().Perm())
	}
	return nil
}

func parseKeys(path string, data []byte) ([]ed25519.PublicKey, error) {
	var keys []ed25519.PublicKey
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		key, err := ParseKey(line)
		if err != nil {
			return nil, fmt.Errorf("the release keys %s, line %d: %w", path, n, err)
		}
		keys = append(keys, key)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the release keys: %w", err)
	}
	return keys, nil
}

// ParseKey decodes an Ed25519 public key written as base64 (44
// characters) or hex (64 digits).
func ParseKey(s string) (ed25519.PublicKey, error) {
	if b, err := hex.DecodeString(s); err == nil && len(b) == ed25519.PublicKeySize {
		return ed25519.PublicKey(b), nil
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == ed25519.PublicKeySize {
		return ed25519.PublicKey(b), nil
	}
	return nil, errors.New("not an Ed25519 public key in base64 or hex")
}
