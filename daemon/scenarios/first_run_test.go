package scenarios_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"eventbox/daemon"
)

func TestGeneratedPasswordMustBeChanged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *daemon.Config) { c.AdminPassword = "" })
	path := filepath.Join(h.cfg.DataDir, "initial-password")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("initial-password not written: %v", err)
	}
	generated := strings.TrimSpace(string(raw))
	owner := h.client()
	owner.do("POST", "/api/admin/login", map[string]any{"password": generated}).expect(t, 200, "")
	if me := owner.do("GET", "/api/admin/me", nil).expect(t, 200, ""); me.JSON["account"].(map[string]any)["mustChangePassword"] != true {
		t.Fatalf("me after signing in with the generated password = %s, want mustChangePassword true", me.Body)
	}
	owner.do("POST", "/api/admin/password", map[string]any{"current": generated, "next": "a-password-of-mine"}).expect(t, 200, "")
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("initial-password still there after the change (%v)", err)
	}
	if me := owner.do("GET", "/api/admin/me", nil).expect(t, 200, ""); me.JSON["account"].(map[string]any)["mustChangePassword"] != false {
		t.Fatalf("me after the change = %s, want mustChangePassword false", me.Body)
	}
}

func TestChosenPasswordNeedsNoChange(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if me := h.owner().do("GET", "/api/admin/me", nil).expect(t, 200, ""); me.JSON["account"].(map[string]any)["mustChangePassword"] != false {
		t.Fatalf("me = %s, want mustChangePassword false for ADMIN_PASSWORD", me.Body)
	}
}

func TestLogoLogLineCountsTheStoredBytes(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	h := newHarness(t, withLogs(&logs))
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "Logo"})["id"].(string)
	owner.uploadLogo(id, photoJPEG(t, 300, 200, 0, false, 3)).expect(t, 200, "")
	m := regexp.MustCompile(`msg="logo set".* bytes=(\d+)`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no logo set line in:\n%s", logs.String())
	}
	if m[1] == "0" {
		t.Fatalf("logo set logged bytes=0 for a stored logo")
	}
}
