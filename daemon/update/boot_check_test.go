package update_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventbox/daemon/update"
)

// TestBootRunsOnlyWhatTheSignedReleaseVouchesFor: whatever current
// names, the packaged binary execs it only when the signed release kept
// beside it verifies with a trusted key and gives the file's version,
// size and SHA-256; anything else is refused with a log line, current is
// removed, and the packaged binary runs.
func TestBootRunsOnlyWhatTheSignedReleaseVouchesFor(t *testing.T) {
	t.Parallel()
	const script = "#!/bin/sh\ntouch /tmp/owned\n"
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, dir string)
	}{
		{"a script put in bin/ with current pointed at it", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "bin", "evil"), script)
			link(t, dir, "bin/evil")
		}},
		{"a script named like an update, with no signed release", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "bin", "eventbox-9.9.9"), script)
			link(t, dir, "bin/eventbox-9.9.9")
		}},
		{"a script named like an update, beside the release of another", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "bin", "eventbox-9.9.9"), script)
			copyFile(t, filepath.Join(dir, "bin", "eventbox-1.1.0.release"), filepath.Join(dir, "bin", "eventbox-9.9.9.release"))
			link(t, dir, "bin/eventbox-9.9.9")
		}},
		{"the installed binary changed in place", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "bin", "eventbox-1.1.0"), script)
		}},
		{"the installed binary grown by a line", func(t *testing.T, dir string) {
			f, _ := os.OpenFile(filepath.Join(dir, "bin", "eventbox-1.1.0"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("touch /tmp/owned\n")
			f.Close()
		}},
		{"its signed release removed", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "bin", "eventbox-1.1.0.release"))
		}},
		{"its release signed again by another key", func(t *testing.T, dir string) {
			path := filepath.Join(dir, "bin", "eventbox-1.1.0.release")
			var env struct{ Manifest json.RawMessage }
			raw, _ := os.ReadFile(path)
			json.Unmarshal(raw, &env)
			_, other, _ := ed25519.GenerateKey(rand.Reader)
			signed, err := update.Sign(other, env.Manifest)
			if err != nil {
				t.Fatal(err)
			}
			write(t, path, string(signed))
		}},
		{"current pointed outside the update directory", func(t *testing.T, dir string) {
			outside := filepath.Join(t.TempDir(), "eventbox-1.1.0")
			copyFile(t, filepath.Join(dir, "bin", "eventbox-1.1.0"), outside)
			link(t, dir, outside)
		}},
		{"current pointed at a link to the installed binary", func(t *testing.T, dir string) {
			os.Rename(filepath.Join(dir, "bin", "eventbox-1.1.0"), filepath.Join(dir, "bin", "real"))
			os.Symlink("real", filepath.Join(dir, "bin", "eventbox-1.1.0"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, dir, old, _ := installed(t)
			tc.tamper(t, dir)
			var log bytes.Buffer
			u, err := update.New(update.Config{Dir: dir, URL: r.srv.URL + "/manifest.json", Key: r.public(),
				Version: "1.0.0", Arch: "amd64", Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatal(err)
			}
			start, err := boot(u, old, false)
			if err != nil || start.Exec != "" {
				t.Fatalf("Boot = %+v, %v; want the packaged binary to run", start, err)
			}
			if !strings.Contains(log.String(), "does not match its signed release") {
				t.Errorf("no log line says why; log:\n%s", log.String())
			}
			if _, err := os.Lstat(filepath.Join(dir, "current")); err == nil {
				t.Error("current still set")
			}
			if st, err := u.State(); err != nil || st.Installed != "" {
				t.Errorf("state after the refusal: %+v, %v", st, err)
			}
		})
	}
	t.Run("the binary as installed is run", func(t *testing.T) {
		t.Parallel()
		_, dir, old, u := installed(t)
		if start, err := boot(u, old, false); err != nil || start.Exec != filepath.Join(dir, "bin", "eventbox-1.1.0") {
			t.Fatalf("Boot = %+v, %v", start, err)
		}
	})
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(b))
}

// link points dir/current at target, as the updater would.
func link(t *testing.T, dir, target string) {
	t.Helper()
	os.Remove(filepath.Join(dir, "current"))
	if err := os.Symlink(target, filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}
}
