package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"eventbox/daemon/update"
)

// releaseKey is the base64 Ed25519 public key that release manifests must
// be signed with. Builds may replace it with -ldflags "-X
// main.releaseKey=…" (the black-box test builds with a test key).
var releaseKey = "qXeO5n/FSkBz/pAKr59hbeReoLI9WRPuy9tOw5ojr74="

// releasePublicKey decodes releaseKey; nil when it is not a key, which
// refuses every manifest.
func releasePublicKey() ed25519.PublicKey {
	b, err := base64.StdEncoding.DecodeString(releaseKey)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil
	}
	return ed25519.PublicKey(b)
}

const releaseSignUsage = `Usage:
  eventbox release-sign -keygen KEYFILE
      make a signing key (KEYFILE, mode 0600) and print its public key, to
      build with -ldflags "-X main.releaseKey=<public key>"
  eventbox release-sign -key KEYFILE -version 1.2.0 [-base-url URL] [-notes TEXT] [-out FILE] ARCH=BINARY...
      write the signed release manifest listing each BINARY for ARCH
      (arm64, armv7, armv6, amd64) with its size and SHA-256; its url is
      BASE-URL/<file name>, or just the file name (relative to the
      manifest's own URL) without -base-url
`

// runReleaseSign is `eventbox release-sign`: the release tooling that
// writes the manifest UPDATE_URL serves (docs/decisions.md, "Updates").
func runReleaseSign(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("release-sign", stderr)
	keygen := fs.String("keygen", "", "write a new signing key to this file")
	keyFile := fs.String("key", "", "signing key file")
	version := fs.String("version", "", "release version (semantic, e.g. 1.2.0)")
	baseURL := fs.String("base-url", "", "where the binaries are served")
	notes := fs.String("notes", "", "short release notes")
	out := fs.String("out", "", "write the manifest here instead of stdout")
	fs.Usage = func() { fmt.Fprint(stderr, releaseSignUsage) }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	switch {
	case *keygen != "":
		err = releaseKeygen(*keygen, stdout)
	case *keyFile != "" && *version != "" && fs.NArg() > 0:
		err = releaseSign(*keyFile, *version, *baseURL, *notes, *out, fs.Args(), stdout)
	default:
		fmt.Fprint(stderr, releaseSignUsage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "eventbox release-sign: %v\n", err)
		return 1
	}
	return 0
}

func releaseKeygen(path string, stdout io.Writer) error {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("making a key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("creating the key file: %w", err)
	}
	_, err = fmt.Fprintln(f, base64.StdEncoding.EncodeToString(priv.Seed()))
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("writing the key file: %w", err)
	}
	fmt.Fprintln(stdout, base64.StdEncoding.EncodeToString(pub))
	return nil
}

func releaseSign(keyFile, version, baseURL, notes, out string, binaries []string, stdout io.Writer) error {
	raw, err := os.ReadFile(keyFile)
	if err != nil {
		return fmt.Errorf("reading the key: %w", err)
	}
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return fmt.Errorf("%s is not a key made by -keygen", keyFile)
	}
	m := update.Manifest{Version: version, PublishedAt: time.Now().UnixMilli(), Notes: notes, Binaries: map[string]update.Binary{}}
	for _, arg := range binaries {
		arch, path, ok := strings.Cut(arg, "=")
		if !ok {
			return fmt.Errorf("%q: want ARCH=BINARY", arg)
		}
		b, err := describe(path)
		if err != nil {
			return err
		}
		if b.URL = filepath.Base(path); baseURL != "" {
			if b.URL, err = url.JoinPath(baseURL, b.URL); err != nil {
				return fmt.Errorf("-base-url: %w", err)
			}
		}
		m.Binaries[arch] = b
	}
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the manifest: %w", err)
	}
	signed, err := update.Sign(ed25519.NewKeyFromSeed(seed), body)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = stdout.Write(signed)
		return err
	}
	return os.WriteFile(out, signed, 0o644)
}

// describe reads a binary's size and SHA-256.
func describe(path string) (update.Binary, error) {
	f, err := os.Open(path)
	if err != nil {
		return update.Binary{}, fmt.Errorf("reading the binary: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return update.Binary{}, fmt.Errorf("hashing %s: %w", path, err)
	}
	return update.Binary{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}
