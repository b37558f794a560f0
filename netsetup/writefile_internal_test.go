package netsetup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteTempOwnsTheFileBeforeItHasItsName is the order the root step
// writes a file of the daemon's in: the temporary file already has its
// owner and mode when the rename gives it its name, and the rename installs
// that very file (no chown by name afterwards, which a link planted in
// between would redirect).
func TestWriteTempOwnsTheFileBeforeItHasItsName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, OwnerHandoffFile)
	tmp, err := writeTemp(dir, []byte("anna\nlong enough pass\n"), 0o600, &fileOwner{uid: 12345, gid: 12346})
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.Lstat(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if st := before.Sys().(*syscall.Stat_t); st.Uid != 12345 || st.Gid != 12346 || before.Mode() != 0o600 {
		t.Errorf("temporary file = %v %d:%d before the rename, want 0600 12345:12346", before.Mode(), st.Uid, st.Gid)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s exists before the rename: %v", path, err)
	}
	if err := installTemp(tmp, path); err != nil {
		t.Fatal(err)
	}
	after, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the file installed is not the one given its owner")
	}
	if st := after.Sys().(*syscall.Stat_t); st.Uid != 12345 || st.Gid != 12346 {
		t.Errorf("installed file is %d:%d's", st.Uid, st.Gid)
	}
}
