package backupzip

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
)

// Limits of a backup ZIP a restore reads (docs/decisions.md, "Restore:
// what the box trusts and refuses"). archive/zip holds every entry of the
// central directory in memory, and the manifest is decoded whole.
const (
	// MaxEntries is the most files a backup may hold: about 25,000
	// photos with their variants.
	MaxEntries = 100_000
	// maxDirectoryBytes bounds the central directory: MaxEntries entries
	// of the names a backup has take about 17 MB.
	maxDirectoryBytes = 18 << 20
	// maxManifestBytes bounds manifest.json: MaxEntries files take about
	// 20 MB of it.
	maxManifestBytes = 24 << 20
)

// End-of-central-directory records of the ZIP format.
var (
	sigEnd       = []byte("PK\x05\x06")
	sigEnd64Loc  = []byte("PK\x06\x07")
	sigEnd64     = []byte("PK\x06\x06")
	endLen       = 22
	end64LocLen  = 20
	end64Len     = 56
	maxEndSearch = endLen + 0xffff
)

// OpenZip reads the backup ZIP r of size bytes. Before archive/zip reads
// the central directory into memory, the end record is read here: a ZIP
// that lists more than MaxEntries files, whose directory is larger than
// a backup's could be, or whose directory does not end where its end
// record begins (as every ZIP writer lays it out) is refused, naming the
// ZIP.
func OpenZip(r io.ReaderAt, size int64) (*zip.Reader, error) {
	notZip := refuse(ZipName, "is not a ZIP file")
	tail := min(size, int64(maxEndSearch))
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return nil, notZip
	}
	// The last end record whose comment fits, as archive/zip finds it.
	i := bytes.LastIndex(buf[:max(len(buf)-endLen+len(sigEnd), 0)], sigEnd)
	if i < 0 || i+endLen+int(binary.LittleEndian.Uint16(buf[i+20:])) > len(buf) {
		return nil, notZip
	}
	end := buf[i : i+endLen]
	endAt := size - tail + int64(i)
	entries := uint64(binary.LittleEndian.Uint16(end[10:]))
	dirSize := uint64(binary.LittleEndian.Uint32(end[12:]))
	dirOffset := uint64(binary.LittleEndian.Uint32(end[16:]))
	if entries == 0xffff || dirSize == 0xffffffff || dirOffset == 0xffffffff {
		// ZIP64: the locator just before the end record points at the
		// 64-bit end record, which the directory ends at.
		loc := make([]byte, end64LocLen)
		if endAt < int64(end64LocLen) {
			return nil, notZip
		}
		if _, err := r.ReadAt(loc, endAt-int64(end64LocLen)); err == nil && bytes.HasPrefix(loc, sigEnd64Loc) {
			at := binary.LittleEndian.Uint64(loc[8:])
			rec := make([]byte, end64Len)
			if at > uint64(size) {
				return nil, notZip
			}
			if _, err := r.ReadAt(rec, int64(at)); err != nil || !bytes.HasPrefix(rec, sigEnd64) {
				return nil, notZip
			}
			entries = binary.LittleEndian.Uint64(rec[32:])
			dirSize = binary.LittleEndian.Uint64(rec[40:])
			dirOffset = binary.LittleEndian.Uint64(rec[48:])
			endAt = int64(at)
		}
	}
	switch {
	case entries > MaxEntries:
		return nil, refuse(ZipName, "lists %d files; a backup holds at most %d", entries, MaxEntries)
	case dirSize > maxDirectoryBytes:
		return nil, refuse(ZipName, "has a directory of %d MB; a backup's is at most %d MB", mb(int64(min(dirSize, 1<<60))), mb(maxDirectoryBytes))
	case dirOffset+dirSize != uint64(endAt):
		return nil, refuse(ZipName, "has its directory out of place")
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, notZip
	}
	if len(zr.File) > MaxEntries {
		return nil, refuse(ZipName, "lists %d files; a backup holds at most %d", len(zr.File), MaxEntries)
	}
	return zr, nil
}
