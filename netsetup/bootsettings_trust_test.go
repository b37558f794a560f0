package netsetup_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventbox/netsetup"
)

// otherUID owns the files of "another user" in these tests, which run as
// root.
const otherUID = 12345

// TestApplyBootSettingsRefusesAFileItCannotTrust is the root step before
// each start reading DATA_DIR/setup.txt, which the daemon's user writes:
// a link, a pipe, a directory, a file of another user or one linked
// elsewhere is refused at once, left where it is and logged, and nothing is
// applied; the host's own file (root's, or its directory owner's) is.
func TestApplyBootSettingsRefusesAFileItCannotTrust(t *testing.T) {
	const good = "hotspot_name = Party\nhotspot_password = confetti2025\ncountry = FR\n"
	chown := func(t *testing.T, p string, uid int) {
		t.Helper()
		if err := os.Lchown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	write := func(t *testing.T, p, content string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		// make puts something at path; victim, when set, is a file
		// elsewhere that must stay as it was.
		make        func(t *testing.T, path, victim string)
		wantRefused string // in the error, which wraps ErrUntrustedFile
		wantProblem string // a problem of the file as a whole instead
		wantUID     int    // owner of the file once applied
	}{
		{name: "a symbolic link to another file", wantRefused: "symbolic link", make: func(t *testing.T, path, victim string) {
			if err := os.Symlink(victim, path); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a FIFO", wantRefused: "not a regular file", make: func(t *testing.T, path, _ string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a directory", wantRefused: "not a regular file", make: func(t *testing.T, path, _ string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a file of another user", wantRefused: "owned by uid 12345", make: func(t *testing.T, path, _ string) {
			write(t, path, good)
			chown(t, path, otherUID)
		}},
		{name: "a hard link to another file", wantRefused: "2 links", make: func(t *testing.T, path, victim string) {
			if err := os.Link(victim, path); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "an oversized file", wantProblem: "larger than 64 KiB", make: func(t *testing.T, path, _ string) {
			write(t, path, good+strings.Repeat("# padding\n", 7000))
		}},
		{name: "a good file of root's", wantUID: 0, make: func(t *testing.T, path, _ string) {
			write(t, path, good)
		}},
		{name: "a good file of its directory's owner (the daemon's user)", wantUID: otherUID, make: func(t *testing.T, path, _ string) {
			chown(t, filepath.Dir(path), otherUID)
			write(t, path, good)
			chown(t, path, otherUID)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nm := newFakeNM(t.TempDir())
			var logs lockedBuffer
			ba := bootApplier(t, nm, &logs)
			path := filepath.Join(t.TempDir(), "setup.txt")
			victim := filepath.Join(t.TempDir(), "shadow")
			write(t, victim, good)
			tc.make(t, path, victim)
			before, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}

			type outcome struct {
				res netsetup.BootResult
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				res, err := netsetup.ApplyBootSettings(context.Background(), ba, path)
				done <- outcome{res, err}
			}()
			var got outcome
			select {
			case got = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ApplyBootSettings still blocked after 5 s: the box would never start")
			}

			if v, _ := os.ReadFile(victim); string(v) != good {
				t.Errorf("the file elsewhere changed:\n%s", v)
			}
			switch {
			case tc.wantRefused != "":
				if !errors.Is(got.err, netsetup.ErrUntrustedFile) || !strings.Contains(got.err.Error(), tc.wantRefused) {
					t.Errorf("error = %v, want ErrUntrustedFile saying %q", got.err, tc.wantRefused)
				}
				if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "left in place") {
					t.Errorf("the refusal is not logged:\n%s", logs.String())
				}
			case tc.wantProblem != "":
				if got.err != nil || len(got.res.Problems) != 1 || !strings.Contains(got.res.Problems[0].Message, tc.wantProblem) {
					t.Errorf("result = %+v, %v; want the problem %q", got.res, got.err, tc.wantProblem)
				}
			default:
				if got.err != nil || !got.res.Hotspot {
					t.Fatalf("result = %+v, %v; want the hotspot applied", got.res, got.err)
				}
				after, err := os.Lstat(path)
				if err != nil {
					t.Fatal(err)
				}
				if st := after.Sys().(*syscall.Stat_t); int(st.Uid) != tc.wantUID || int(st.Gid) != tc.wantUID {
					t.Errorf("the rewritten file is %d:%d's, want %d's as before", st.Uid, st.Gid, tc.wantUID)
				}
				return
			}
			if calls := nm.ran(); len(calls) != 0 {
				t.Errorf("a refused file ran %q", calls)
			}
			after, err := os.Lstat(path)
			if err != nil || after.Mode() != before.Mode() || after.Size() != before.Size() {
				t.Errorf("a refused file was not left in place: %v, %v (was %v)", after, err, before.Mode())
			}
		})
	}
}

// TestWriteOwnerHandoffGivesTheFileToTheDirectorysOwner is the hand-off
// file root writes in DATA_DIR: the daemon's, mode 0600, and a link
// planted at its name is replaced, never followed.
func TestWriteOwnerHandoffGivesTheFileToTheDirectorysOwner(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chown(dir, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(victim, []byte("root:*:\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, netsetup.OwnerHandoffFile)
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if err := netsetup.WriteOwnerHandoff(path, netsetup.Owner{Name: "anna", Password: "long enough pass"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 || st.Uid != otherUID || st.Gid != otherUID {
		t.Errorf("hand-off = %v %d:%d, want a regular file, 0600, the directory owner's", fi.Mode(), st.Uid, st.Gid)
	}
	vi, _ := os.Stat(victim)
	if st := vi.Sys().(*syscall.Stat_t); st.Uid != 0 || vi.Mode().Perm() != 0o640 {
		t.Errorf("the link's target changed: %v %d", vi.Mode(), st.Uid)
	}
	if o, err := netsetup.ReadOwnerHandoff(path); err != nil || o.Name != "anna" {
		t.Errorf("hand-off = %+v, %v", o, err)
	}
}
