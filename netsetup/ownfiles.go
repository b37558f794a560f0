package netsetup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrUntrustedFile is wrapped by the error of a settings file the box
// refused to read: a symbolic link, anything but a regular file (a named
// pipe, a directory, a device), a file with other hard links, or one owned
// by someone other than root, the user reading it or the owner of its
// directory. The file is left where it is.
//
// The service's root step reads DATA_DIR/setup.txt, which the daemon's user
// writes: these checks keep a daemon gone wrong from having root read
// another file for it, or wait forever on a pipe and so keep the box from
// starting.
var ErrUntrustedFile = errors.New("refused")

// openPlainFile opens path for reading without following a symbolic link
// in its last component and without waiting for a writer on a named pipe
// (O_NOFOLLOW, O_NONBLOCK: a regular file reads as ever), then checks the
// open descriptor (fstat), so that nothing can be swapped in between: a
// regular file of one link, owned by root, by the user running this or by
// the owner of its directory (DATA_DIR: the daemon's user). It answers the
// file and its fstat.
func openPlainFile(path string) (*os.File, *syscall.Stat_t, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("%w: a symbolic link, which the box does not follow here", ErrUntrustedFile)
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := checkPlainFile(f, path)
	if err != nil {
		return nil, nil, errors.Join(err, f.Close())
	}
	return f, st, nil
}

// checkPlainFile is openPlainFile's check of the open file f, found at
// path.
func checkPlainFile(f *os.File, path string) (*syscall.Stat_t, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("%w: its owner is not known", ErrUntrustedFile)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file but %s", ErrUntrustedFile, fileKind(fi.Mode()))
	}
	if st.Nlink != 1 {
		return nil, fmt.Errorf("%w: a file of %d links, a hard link to another file", ErrUntrustedFile, st.Nlink)
	}
	if st.Uid == 0 || int(st.Uid) == os.Geteuid() {
		return st, nil
	}
	dir, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("checking the owner of %s: %w", path, err)
	}
	if d, ok := dir.Sys().(*syscall.Stat_t); ok && d.Uid == st.Uid {
		return st, nil
	}
	return nil, fmt.Errorf("%w: owned by uid %d, neither root nor the owner of its directory", ErrUntrustedFile, st.Uid)
}

// fileKind names what a file of mode m is, for a refusal.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// fileOwner is the owner and group a written file is given.
type fileOwner struct{ uid, gid int }

// ownerOf is the owner and group of st.
func ownerOf(st *syscall.Stat_t) *fileOwner {
	return &fileOwner{uid: int(st.Uid), gid: int(st.Gid)}
}

// writeFileAs is writeFileAtomic giving the file to owner (nil: to whoever
// writes it) on its open descriptor, before the rename gives it its name:
// never a chown by name, which a link planted there would redirect.
func writeFileAs(path string, data []byte, mode fs.FileMode, owner *fileOwner) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := writeTemp(dir, data, mode, owner)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return installTemp(tmp, path)
}

// writeTemp writes data to a new temporary file in dir (a new name,
// created exclusively: nothing planted there is followed), with mode (0:
// as the file system gives it) and owner (nil: as created), both set on the
// open descriptor, then syncs and closes it. It answers its path.
func writeTemp(dir string, data []byte, mode fs.FileMode, owner *fileOwner) (string, error) {
	f, err := os.CreateTemp(dir, ".eventbox-*")
	if err != nil {
		return "", err
	}
	err = fillTemp(f, data, mode, owner)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", errors.Join(err, os.Remove(f.Name()))
	}
	return f.Name(), nil
}

// fillTemp is writeTemp's work on the open file f.
func fillTemp(f *os.File, data []byte, mode fs.FileMode, owner *fileOwner) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if owner != nil {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		// Only a change: a FAT boot partition refuses a chown, and its
		// files have the owner the mount gives them anyway.
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != owner.uid || int(st.Gid) != owner.gid {
			if err := f.Chown(owner.uid, owner.gid); err != nil {
				return fmt.Errorf("giving it to %d:%d: %w", owner.uid, owner.gid, err)
			}
		}
	}
	if mode != 0 {
		if err := f.Chmod(mode); err != nil {
			return err
		}
	}
	return f.Sync()
}

// installTemp renames the temporary file tmp over path (removing tmp if
// that fails), then syncs the directory as far as the file system allows.
func installTemp(tmp, path string) error {
	if err := os.Rename(tmp, path); err != nil {
		return errors.Join(fmt.Errorf("writing %s: %w", path, err), os.Remove(tmp))
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		// Best effort: some file systems cannot sync a directory.
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
