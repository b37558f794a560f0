package update_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventbox/daemon/update"
)

// TestReleaseKeysFile: the keys file adds trusted keys, base64 or hex,
// comments allowed; a file others may write, or with a line that is not
// a key, is refused whole; a missing file adds nothing. A manifest signed
// by a key from the file is accepted, the built-in key still is, and any
// other key is not.
func TestReleaseKeysFile(t *testing.T) {
	t.Parallel()
	_, own, _ := ed25519.GenerateKey(rand.Reader)
	_, second, _ := ed25519.GenerateKey(rand.Reader)
	ownPub, secondPub := own.Public().(ed25519.PublicKey), second.Public().(ed25519.PublicKey)
	good := "# keys of my own releases\n\n" + base64.StdEncoding.EncodeToString(ownPub) + "  # laptop\n" +
		hex.EncodeToString(secondPub) + "\n"
	me := os.Getuid()
	for _, tc := range []struct {
		name    string
		text    string
		mode    os.FileMode
		dirMode os.FileMode
		owner   int
		want    int
		refuse  string
	}{
		{name: "two keys, base64 and hex, with comments", text: good, mode: 0o644, dirMode: 0o755, owner: me, want: 2},
		{name: "a file the group may write", text: good, mode: 0o664, dirMode: 0o755, owner: me, refuse: "write"},
		{name: "a file anyone may write", text: good, mode: 0o646, dirMode: 0o755, owner: me, refuse: "write"},
		{name: "a directory anyone may write", text: good, mode: 0o644, dirMode: 0o777, owner: me, refuse: "write"},
		{name: "a file of another owner", text: good, mode: 0o644, dirMode: 0o755, owner: me + 1, refuse: "owned by"},
		{name: "a line that is not a key", text: good + "ssh-ed25519 AAAA\n", mode: 0o644, dirMode: 0o755, owner: me, refuse: "line 5"},
		{name: "a key one byte short", text: hex.EncodeToString(ownPub[:31]) + "\n", mode: 0o644, dirMode: 0o755, owner: me, refuse: "line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "etc")
			os.Mkdir(dir, 0o755)
			path := filepath.Join(dir, "release-keys")
			if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, tc.mode)
			os.Chmod(dir, tc.dirMode)
			keys, err := update.LoadKeys(path, tc.owner)
			if tc.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refuse) || keys != nil {
					t.Fatalf("LoadKeys = %d keys, %v; want a refusal about %q", len(keys), err, tc.refuse)
				}
				return
			}
			if err != nil || len(keys) != tc.want || !keys[0].Equal(ownPub) || !keys[1].Equal(secondPub) {
				t.Fatalf("LoadKeys = %v, %v", keys, err)
			}
		})
	}
	t.Run("a missing file adds nothing", func(t *testing.T) {
		t.Parallel()
		keys, err := update.LoadKeys(filepath.Join(t.TempDir(), "release-keys"), me)
		if err != nil || keys != nil {
			t.Fatalf("LoadKeys = %v, %v", keys, err)
		}
	})
	t.Run("a release signed by a key of the file is trusted, beside the built-in one", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "release-keys")
		os.WriteFile(path, []byte(good), 0o644)
		keys, err := update.LoadKeys(path, me)
		if err != nil {
			t.Fatal(err)
		}
		r := newRelease(t)
		builtIn := r.public()
		for _, signer := range []struct {
			name  string
			key   ed25519.PrivateKey
			trust bool
		}{{"the built-in key", r.key, true}, {"a key of the file", second, true}, {"another key", nil, false}} {
			key := signer.key
			if key == nil {
				_, key, _ = ed25519.GenerateKey(rand.Reader)
			}
			r.key = key
			r.publish(t, "1.1.0", "amd64", script("1.1.0"))
			u, err := update.New(update.Config{Dir: t.TempDir(), URL: r.srv.URL + "/manifest.json", Key: builtIn, Keys: keys,
				Version: "1.0.0", Arch: "amd64", Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			m, err := u.Fetch(t.Context())
			if signer.trust != (err == nil) {
				t.Fatalf("%s: Fetch = %v, want trusted %v", signer.name, err, signer.trust)
			}
			if !signer.trust {
				if !errors.Is(err, update.ErrInvalid) {
					t.Errorf("%s: %v does not wrap ErrInvalid", signer.name, err)
				}
				continue
			}
			b, _ := u.Available(m)
			if err := u.Install(t.Context(), m.Version, b, m.Signed, 1, nil); err != nil {
				t.Errorf("%s: Install: %v", signer.name, err)
			}
		}
	})
}
