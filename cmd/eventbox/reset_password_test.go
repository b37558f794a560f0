package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventbox/store"
)

// seedAccounts makes a data dir with an owner and an organizer, each
// signed in once, and closes it.
func seedAccounts(t *testing.T) (dir string, sessions map[string]string) {
	t.Helper()
	ctx := context.Background()
	dir = t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sessions = map[string]string{}
	for _, a := range []store.Account{
		{Username: "admin", Role: store.RoleOwner},
		{Username: "Planner", Role: store.RoleOrganizer},
	} {
		hash, err := bcrypt.GenerateFromPassword([]byte("old-password-1"), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		a.PasswordHash = string(hash)
		if err := st.Accounts().Create(ctx, &a); err != nil {
			t.Fatal(err)
		}
		if sessions[a.Username], err = st.Sessions().Create(ctx, a.ID, false); err != nil {
			t.Fatal(err)
		}
	}
	return dir, sessions
}

var newPasswordLine = regexp.MustCompile(`New password for (\S+): (\S+)\n`)

func noEnv(string) string { return "" }

func TestResetPassword(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		username string
	}{
		{"without a username the first owner is meant", nil, "admin"},
		{"a username is found without regard to case", []string{"planner"}, "Planner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, sessions := seedAccounts(t)
			var stdout, stderr bytes.Buffer
			args := append([]string{"--data-dir", dir}, tt.args...)
			if code := resetPassword(context.Background(), args, noEnv, &stdout, &stderr, bcrypt.MinCost); code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, stderr.String())
			}
			m := newPasswordLine.FindStringSubmatch(stdout.String())
			if m == nil || m[1] != tt.username && m[1] != strings.ToLower(tt.username) {
				t.Fatalf("stdout = %q", stdout.String())
			}
			st, err := store.Open(context.Background(), dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			a, err := st.Accounts().ByUsername(context.Background(), tt.username)
			if err != nil {
				t.Fatal(err)
			}
			if bcrypt.CompareHashAndPassword([]byte(a.PasswordHash), []byte(m[2])) != nil {
				t.Fatal("the printed password does not match the stored hash")
			}
			if bcrypt.CompareHashAndPassword([]byte(a.PasswordHash), []byte("old-password-1")) == nil {
				t.Fatal("the old password still works")
			}
			for user, token := range sessions {
				_, err := st.Sessions().Get(context.Background(), token)
				ended := err != nil
				if ended != (user == tt.username) {
					t.Errorf("session of %s ended = %v", user, ended)
				}
			}
		})
	}
}

// TestResetPasswordCommand runs the command as the box's shell does: the
// new hash has the library's default cost.
func TestResetPasswordCommand(t *testing.T) {
	dir, _ := seedAccounts(t)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"reset-password", "--data-dir", dir}, noEnv, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, stderr.String())
	}
	if !newPasswordLine.MatchString(stdout.String()) || !strings.Contains(stdout.String(), "sessions have ended") {
		t.Fatalf("stdout = %q", stdout.String())
	}
	st, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := st.Accounts().ByUsername(context.Background(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost([]byte(a.PasswordHash)); err != nil || cost != bcrypt.DefaultCost {
		t.Fatalf("cost = %d, %v", cost, err)
	}
}

func TestResetPasswordRefusals(t *testing.T) {
	dir, _ := seedAccounts(t)
	t.Run("an unknown username fails and says so", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"reset-password", "--data-dir", dir, "nobody"}, noEnv, &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), `"nobody"`) || !strings.Contains(stderr.String(), "not found") || stdout.Len() != 0 {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
		}
	})
	t.Run("two usernames are a usage error", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"reset-password", "--data-dir", dir, "a", "b"}, noEnv, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "usage") {
			t.Fatalf("exit %d, stderr %q", code, stderr.String())
		}
	})
	t.Run("DATA_DIR comes from the environment", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		env := func(k string) string {
			if k == "DATA_DIR" {
				return dir
			}
			return ""
		}
		if code := resetPassword(context.Background(), []string{"planner"}, env, &stdout, &stderr, bcrypt.MinCost); code != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr.String())
		}
	})
	t.Run("while the daemon holds the database it fails fast and clearly", func(t *testing.T) {
		held, err := store.Open(context.Background(), dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := run(context.Background(), []string{"reset-password", "--data-dir", dir}, noEnv, &stdout, &stderr)
		took := time.Since(start)
		if code != 1 || stdout.Len() != 0 {
			t.Fatalf("exit %d, stdout %q", code, stdout.String())
		}
		if msg := stderr.String(); !strings.Contains(msg, "daemon is running") || !strings.Contains(msg, "stop it first") {
			t.Fatalf("stderr = %q", msg)
		}
		if took > 3*time.Second {
			t.Fatalf("took %v to give up", took)
		}
		a, err := held.Accounts().ByUsername(context.Background(), "admin")
		if err != nil {
			t.Fatal(err)
		}
		if bcrypt.CompareHashAndPassword([]byte(a.PasswordHash), []byte("old-password-1")) != nil {
			t.Fatal("the password changed although the command failed")
		}
	})
}
