package scenarios_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventbox/daemon"
	"eventbox/netsetup"
)

// TestFirstOwnerFromTheSettingsFile: the service's root step hands the
// settings file's owner over in DATA_DIR/first-owner; the daemon makes
// that owner instead of generating a password, removes the file once the
// account exists, and the owner signs in with the password of the file.
// Without the file the password is generated as before; with a broken file
// it is too, and the file goes.
func TestFirstOwnerFromTheSettingsFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		handoff   string // the file's content; "" none
		wantUser  string
		wantGen   bool
		wantInLog string
	}{
		{name: "the file's owner", handoff: "anna\nconfetti and cake\n", wantUser: "anna", wantInLog: "first owner created from the settings file"},
		{name: "no file: generated", wantUser: "admin", wantGen: true},
		{name: "a broken file: refused, generated", handoff: "anna only\n", wantUser: "admin", wantGen: true, wantInLog: "first owner of the settings file refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs logBuffer
			var handoff string
			h := newHarness(t, withLogs(&logs), func(c *daemon.Config) {
				c.AdminPassword = ""
				handoff = filepath.Join(c.DataDir, netsetup.OwnerHandoffFile)
				if tc.handoff != "" {
					if err := os.WriteFile(handoff, []byte(tc.handoff), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			})
			if _, err := os.Stat(handoff); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the hand-off file is still there (%v)", err)
			}
			generated, err := os.ReadFile(filepath.Join(h.cfg.DataDir, "initial-password"))
			if (err == nil) != tc.wantGen {
				t.Fatalf("initial-password written: %v, want %v", err == nil, tc.wantGen)
			}
			password := "confetti and cake"
			if tc.wantGen {
				password = strings.TrimSpace(string(generated))
			}
			c := h.client()
			c.do("POST", "/api/admin/login", map[string]any{"username": tc.wantUser, "password": password}).expect(t, 200, "")
			me := c.do("GET", "/api/admin/me", nil).expect(t, 200, "")
			acct := me.JSON["account"].(map[string]any)
			if acct["username"] != tc.wantUser || acct["role"] != "owner" || acct["mustChangePassword"] != tc.wantGen {
				t.Errorf("me = %s", me.Body)
			}
			if !strings.Contains(logs.String(), tc.wantInLog) {
				t.Errorf("log lacks %q:\n%s", tc.wantInLog, logs.String())
			}
			if strings.Contains(logs.String(), "confetti and cake") {
				t.Error("the handed-over password was logged")
			}
		})
	}
}
