package update

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Arches are the architectures a release manifest lists binaries for.
var arches = [...]string{"arm64", "armv7", "armv6", "amd64"}

// Manifest is a release: its version and one binary per architecture.
type Manifest struct {
	// Version is the release's semantic version ("1.2.0", no "v").
	Version string `json:"version"`
	// PublishedAt is when it was published, epoch ms; informative.
	PublishedAt int64 `json:"publishedAt,omitempty"`
	// Notes is a short text for the console; informative.
	Notes string `json:"notes,omitempty"`
	// Binaries maps an architecture (arm64, armv7, armv6, amd64) to its
	// binary.
	Binaries map[string]Binary `json:"binaries"`
	// Signed is the envelope Verify checked (manifest and signature as
	// the release host served them); Install keeps it beside the binary
	// so that every start can check the binary again.
	Signed []byte `json:"-"`
}

// Binary is one architecture's executable in a release.
type Binary struct {
	// URL is absolute (http or https) or relative to the manifest's URL.
	URL string `json:"url"`
	// Size is the exact length in bytes.
	Size int64 `json:"size"`
	// SHA256 is the hex SHA-256 of the file.
	SHA256 string `json:"sha256"`
}

// envelope is the file at UPDATE_URL.
type envelope struct {
	Manifest  json.RawMessage `json:"manifest"`
	Signature string          `json:"signature"`
}

// ErrInvalid is wrapped by every refusal of a manifest: missing or wrong
// signature, malformed content.
var ErrInvalid = errors.New("invalid release manifest")

// maxBinary caps a binary's declared size: the daemon is about 30 MB.
const maxBinary = 200 << 20

// Sign returns the envelope holding manifest (its bytes kept as they are)
// and its Ed25519 signature by key. manifest must be a JSON object that
// Verify accepts.
func Sign(key ed25519.PrivateKey, manifest []byte) ([]byte, error) {
	manifest = bytes.TrimSpace(manifest)
	if _, err := parse(manifest); err != nil {
		return nil, err
	}
	sig := ed25519.Sign(key, manifest)
	var b bytes.Buffer
	b.WriteString(`{"manifest":`)
	b.Write(manifest)
	b.WriteString(`,"signature":"`)
	b.WriteString(base64.StdEncoding.EncodeToString(sig))
	b.WriteString("\"}\n")
	return b.Bytes(), nil
}

// Verify checks the envelope's signature with key and returns its
// manifest. Every failure wraps ErrInvalid.
func Verify(key ed25519.PublicKey, data []byte) (Manifest, error) {
	return VerifyAny([]ed25519.PublicKey{key}, data)
}

// VerifyAny checks the envelope's signature with each of keys in turn
// and returns its manifest, Signed set to data, when one of them signed
// it. Every failure wraps ErrInvalid.
func VerifyAny(keys []ed25519.PublicKey, data []byte) (Manifest, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return Manifest{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if env.Signature == "" {
		return Manifest{}, fmt.Errorf("%w: not signed", ErrInvalid)
	}
	sig, err := base64.StdEncoding.DecodeString(env.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Manifest{}, fmt.Errorf("%w: malformed signature", ErrInvalid)
	}
	signed := false
	for _, key := range keys {
		signed = signed || len(key) == ed25519.PublicKeySize && ed25519.Verify(key, env.Manifest, sig)
	}
	if !signed {
		return Manifest{}, fmt.Errorf("%w: wrong signature", ErrInvalid)
	}
	m, err := parse(env.Manifest)
	if err != nil {
		return m, err
	}
	m.Signed = bytes.Clone(data)
	return m, nil
}

// parse decodes and checks a manifest's content.
func parse(raw []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if _, ok := parseVersion(m.Version); !ok {
		return m, fmt.Errorf("%w: version %q is not a semantic version", ErrInvalid, m.Version)
	}
	for arch, b := range m.Binaries {
		if !knownArch(arch) {
			return m, fmt.Errorf("%w: unknown architecture %q", ErrInvalid, arch)
		}
		if b.Size <= 0 || b.Size > maxBinary {
			return m, fmt.Errorf("%w: %s: size %d out of range", ErrInvalid, arch, b.Size)
		}
		if h, err := hex.DecodeString(b.SHA256); err != nil || len(h) != 32 {
			return m, fmt.Errorf("%w: %s: sha256 must be 64 hex digits", ErrInvalid, arch)
		}
		if u, err := url.Parse(b.URL); err != nil || b.URL == "" || (u.IsAbs() && u.Scheme != "http" && u.Scheme != "https") {
			return m, fmt.Errorf("%w: %s: bad url", ErrInvalid, arch)
		}
	}
	return m, nil
}

func knownArch(a string) bool {
	for _, k := range arches {
		if k == a {
			return true
		}
	}
	return false
}

// Arch names the architecture this binary was built for in the manifest's
// terms: arm64, amd64, or armv6/armv7 from the GOARM the build recorded.
func Arch() string {
	if runtime.GOARCH != "arm" {
		return runtime.GOARCH
	}
	goarm := "7"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOARM" && s.Value != "" {
				goarm = s.Value[:1]
			}
		}
	}
	return "armv" + goarm
}

// Newer reports whether version a is newer than b. A version that is not
// semantic (a "dev" build) is older than any release, and two such are
// equal.
func Newer(a, b string) bool {
	va, oka := parseVersion(a)
	vb, okb := parseVersion(b)
	switch {
	case !oka:
		return false
	case !okb:
		return true
	}
	for i := range 3 {
		if va.n[i] != vb.n[i] {
			return va.n[i] > vb.n[i]
		}
	}
	// 1.2.0 is newer than 1.2.0-rc1; pre-releases compare as text.
	switch {
	case va.pre == vb.pre:
		return false
	case va.pre == "":
		return true
	case vb.pre == "":
		return false
	}
	return va.pre > vb.pre
}

type semver struct {
	n   [3]int
	pre string
}

func parseVersion(s string) (semver, bool) {
	var v semver
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		s, v.pre = s[:i], s[i+1:]
		if v.pre == "" {
			return v, false
		}
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || (len(p) > 1 && p[0] == '0') {
			return v, false
		}
		v.n[i] = n
	}
	return v, true
}
