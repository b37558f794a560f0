package imaging

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"sort"
	"strings"
	"time"
)

// Patch is bytes laid over a file at Off: the file keeps its size, so a
// patched file still answers Range requests by the stored file's offsets.
type Patch struct {
	// Off is the offset in the file of Data's first byte.
	Off int64
	// Data replaces len(Data) bytes of the file from Off.
	Data []byte
}

// Metadata is what the box reads of a photo's own metadata.
type Metadata struct {
	// TakenAt is the capture time from EXIF DateTimeOriginal (with its
	// OffsetTimeOriginal, else in loc), as epoch ms; 0 when unknown.
	TakenAt int64
	// Location is the patches that remove the photo's position: the
	// EXIF GPS IFD emptied (its entries and values zeroed) and an XMP
	// packet that names a GPS field replaced by an empty one; with the CRC of
	// a PNG chunk they change. Empty when the file holds no position.
	Location []Patch
}

// maxMetaBlock bounds an EXIF or XMP block read into memory: JPEG's are at
// most 64 KiB, a phone's HEIC Exif item a few tens of KiB.
const maxMetaBlock = 1 << 20

// ReadMetadata reads a photo's capture time and finds the bytes that hold
// its position, for any format Check accepts; loc is the zone of a capture
// time that names none (the box's). A file whose metadata cannot be read
// has none: the error is only for a failed read of r.
func ReadMetadata(r io.ReaderAt, size int64, f Format, loc *time.Location) (Metadata, error) {
	var blocks []metaBlock
	var err error
	switch f {
	case JPEG:
		blocks, err = jpegMeta(r, size)
	case PNG:
		blocks, err = pngMeta(r, size)
	case WebP:
		blocks, err = webpMeta(r, size)
	case HEIC:
		blocks, err = heifMetaBlocks(r, size)
	}
	var m Metadata
	if err != nil && !isCorrupt(err) {
		return m, err
	}
	for _, b := range blocks {
		var patches []Patch
		switch b.kind {
		case "exif":
			t := parseTIFF(b.data)
			if m.TakenAt == 0 {
				m.TakenAt = t.takenAt(loc)
			}
			patches = t.gpsPatches()
		case "xmp":
			if bytes.Contains(b.data, []byte("GPS")) {
				patches = []Patch{{Off: 0, Data: emptyXMP(len(b.data))}}
			}
		}
		if len(patches) == 0 {
			continue
		}
		for i := range patches {
			patches[i].Off += b.off
		}
		if b.crc != nil {
			patches = append(patches, b.crc(patches))
		}
		m.Location = append(m.Location, patches...)
	}
	sort.Slice(m.Location, func(i, j int) bool { return m.Location[i].Off < m.Location[j].Off })
	return m, nil
}

func isCorrupt(err error) bool {
	return errors.Is(err, ErrCorrupt)
}

// emptyXMP is an XMP packet that says nothing, padded with spaces (as
// XMP allows) to n bytes, to lay over one that names a position.
func emptyXMP(n int) []byte {
	const empty = `<x:xmpmeta xmlns:x="adobe:ns:meta/"/>`
	out := bytes.Repeat([]byte(" "), n)
	if n >= len(empty) {
		copy(out, empty)
	}
	return out
}

// metaBlock is an EXIF (TIFF) or XMP block of a file: its bytes and
// where they start in the file. crc, for a PNG chunk, gives the patch of
// the chunk's CRC once the block's patches (in file offsets) are known.
type metaBlock struct {
	kind string // "exif" or "xmp"
	off  int64
	data []byte
	crc  func([]Patch) Patch
}

var (
	exifPrefix = []byte("Exif\x00\x00")
	xmpPrefix  = []byte("http://ns.adobe.com/xap/1.0/\x00")
)

// jpegMeta finds the APP1 EXIF and XMP segments before the first scan.
func jpegMeta(r io.ReaderAt, size int64) ([]metaBlock, error) {
	var out []metaBlock
	off := int64(2)
	for range maxSegments {
		hdr, err := readAt(r, off, 4, size)
		if err != nil {
			return out, err
		}
		if hdr[0] != 0xff {
			return out, nil
		}
		m := hdr[1]
		if m == 0xff {
			off++
			continue
		}
		if m == 0xda || m == 0xd9 {
			return out, nil
		}
		n := int64(be16(hdr[2:]))
		if n < 2 {
			return out, nil
		}
		if m == 0xe1 && n-2 <= maxMetaBlock {
			seg, err := readAt(r, off+4, int(n-2), size)
			if err != nil {
				return out, err
			}
			switch {
			case bytes.HasPrefix(seg, exifPrefix):
				out = append(out, metaBlock{kind: "exif", off: off + 4 + 6, data: seg[6:]})
			case bytes.HasPrefix(seg, xmpPrefix):
				p := int64(len(xmpPrefix))
				out = append(out, metaBlock{kind: "xmp", off: off + 4 + p, data: seg[p:]})
			}
		}
		off += 2 + n
	}
	return out, nil
}

// pngMeta finds the eXIf chunk and an iTXt XMP packet; both carry a CRC
// that a patch must keep right.
func pngMeta(r io.ReaderAt, size int64) ([]metaBlock, error) {
	var out []metaBlock
	off := int64(8)
	for range maxChunks {
		hdr, err := readAt(r, off, 8, size)
		if err != nil {
			return out, err
		}
		n, typ := be32(hdr), string(hdr[4:8])
		if typ == "IEND" || n < 0 || off+12+n > size {
			return out, nil
		}
		if (typ == "eXIf" || typ == "iTXt") && n <= maxMetaBlock {
			chunk, err := readAt(r, off+4, int(4+n), size)
			if err != nil {
				return out, err
			}
			data, dataOff := chunk[4:], off+8
			kind := "exif"
			if typ == "iTXt" {
				const key = "XML:com.adobe.xmp\x00"
				// keyword, compression flag and method, language and
				// translated keyword (both empty for XMP).
				if !bytes.HasPrefix(data, []byte(key)) || len(data) < len(key)+4 || data[len(key)] != 0 {
					off += 12 + n
					continue
				}
				skip := len(key) + 2
				for z := 0; z < 2; z++ {
					i := bytes.IndexByte(data[skip:], 0)
					if i < 0 {
						skip = len(data)
						break
					}
					skip += i + 1
				}
				data, dataOff, kind = data[skip:], dataOff+int64(skip), "xmp"
			}
			crcOff := off + 8 + n
			chunkStart := off + 4
			out = append(out, metaBlock{kind: kind, off: dataOff, data: data, crc: func(ps []Patch) Patch {
				c := bytes.Clone(chunk)
				for _, p := range ps {
					copy(c[p.Off-chunkStart:], p.Data)
				}
				sum := make([]byte, 4)
				binary.BigEndian.PutUint32(sum, crc32.ChecksumIEEE(c))
				return Patch{Off: crcOff, Data: sum}
			}})
		}
		off += 12 + n
	}
	return out, nil
}

// webpMeta finds the EXIF and XMP chunks of an extended WebP.
func webpMeta(r io.ReaderAt, size int64) ([]metaBlock, error) {
	var out []metaBlock
	off := int64(12)
	for range maxChunks {
		hdr, err := readAt(r, off, 8, size)
		if err != nil {
			return out, err
		}
		typ, n := string(hdr[:4]), le32(hdr[4:])
		if off+8+n > size {
			return out, nil
		}
		if (typ == "EXIF" || typ == "XMP ") && n <= maxMetaBlock {
			data, err := readAt(r, off+8, int(n), size)
			if err != nil {
				return out, err
			}
			if typ == "EXIF" {
				skip := 0
				if bytes.HasPrefix(data, exifPrefix) {
					skip = len(exifPrefix)
				}
				out = append(out, metaBlock{kind: "exif", off: off + 8 + int64(skip), data: data[skip:]})
			} else {
				out = append(out, metaBlock{kind: "xmp", off: off + 8, data: data})
			}
		}
		off += 8 + n + n&1
	}
	return out, nil
}

// heifMetaBlocks finds the Exif item (a 4-byte offset to the TIFF header,
// then the block) and XMP items of a HEIC, when they are stored in one
// extent of the file.
func heifMetaBlocks(r io.ReaderAt, size int64) ([]metaBlock, error) {
	m, err := readHEIFMeta(r, size)
	if err != nil {
		return nil, err
	}
	var out []metaBlock
	ids := make([]int64, 0, len(m.types))
	for id := range m.types {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		typ := m.types[id]
		item, ok := m.items[id]
		if (typ != "Exif" && typ != "mime") || !ok || item.method != 0 || len(item.extents) != 1 {
			continue
		}
		off, n := item.extents[0][0], item.extents[0][1]
		if n <= 4 || n > maxMetaBlock {
			continue
		}
		data, err := readAt(r, off, int(n), size)
		if err != nil {
			return out, err
		}
		if typ == "mime" {
			if bytes.Contains(data, []byte("<x:xmpmeta")) || bytes.Contains(data, []byte("<rdf:RDF")) {
				out = append(out, metaBlock{kind: "xmp", off: off, data: data})
			}
			continue
		}
		skip := 4 + be32(data)
		if skip < 4 || skip >= n {
			continue
		}
		out = append(out, metaBlock{kind: "exif", off: off + skip, data: data[skip:]})
	}
	return out, nil
}

// tiff is a parsed EXIF block: its byte order and the entries of IFD0,
// the Exif IFD and the GPS IFD.
type tiff struct {
	b      []byte
	bo     binary.ByteOrder
	ifd0   map[uint16]tiffEntry
	exif   map[uint16]tiffEntry
	gpsOff int64
}

type tiffEntry struct {
	typ   uint16
	count uint32
	at    int64 // offset of the value in b (inline in the entry or not)
}

// tiffTypeSize is the bytes of one value of each TIFF type.
var tiffTypeSize = [...]int64{0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8}

func (e tiffEntry) size() int64 {
	if int(e.typ) >= len(tiffTypeSize) {
		return 0
	}
	return tiffTypeSize[e.typ] * int64(e.count)
}

// parseTIFF reads what it can of an EXIF block; a broken block reads as
// empty.
func parseTIFF(b []byte) tiff {
	t := tiff{b: b, gpsOff: -1}
	if len(b) < 8 {
		return t
	}
	switch string(b[:4]) {
	case "II*\x00":
		t.bo = binary.LittleEndian
	case "MM\x00*":
		t.bo = binary.BigEndian
	default:
		return t
	}
	t.ifd0 = t.ifd(int64(t.bo.Uint32(b[4:8])))
	if e, ok := t.ifd0[0x8769]; ok && e.count == 1 {
		t.exif = t.ifd(int64(t.bo.Uint32(b[e.at:])))
	}
	if e, ok := t.ifd0[0x8825]; ok && e.count == 1 {
		t.gpsOff = int64(t.bo.Uint32(b[e.at:]))
	}
	return t
}

// ifd reads the entries of the IFD at off; nil when it does not fit.
func (t tiff) ifd(off int64) map[uint16]tiffEntry {
	if off < 8 || off+2 > int64(len(t.b)) {
		return nil
	}
	n := int64(t.bo.Uint16(t.b[off:]))
	if off+2+12*n > int64(len(t.b)) {
		return nil
	}
	out := make(map[uint16]tiffEntry, n)
	for i := range n {
		e := off + 2 + 12*i
		ent := tiffEntry{typ: t.bo.Uint16(t.b[e+2:]), count: t.bo.Uint32(t.b[e+4:]), at: e + 8}
		if sz := ent.size(); sz > 4 {
			ent.at = int64(t.bo.Uint32(t.b[e+8:]))
			if ent.at < 0 || ent.at+sz > int64(len(t.b)) {
				continue
			}
		}
		out[t.bo.Uint16(t.b[e:])] = ent
	}
	return out
}

// ascii returns the text of an ASCII entry of ifd without its NUL; ""
// when absent.
func (t tiff) ascii(ifd map[uint16]tiffEntry, tag uint16) string {
	e, ok := ifd[tag]
	if !ok || e.typ != 2 {
		return ""
	}
	return strings.TrimRight(string(t.b[e.at:e.at+e.size()]), "\x00 ")
}

// takenAt is DateTimeOriginal (else IFD0's DateTime) as epoch ms, in the
// zone of OffsetTimeOriginal when given, else in loc; 0 when absent.
func (t tiff) takenAt(loc *time.Location) int64 {
	s, offset := t.ascii(t.exif, 0x9003), t.ascii(t.exif, 0x9011)
	if s == "" {
		s, offset = t.ascii(t.ifd0, 0x0132), t.ascii(t.exif, 0x9010)
	}
	if s == "" || strings.HasPrefix(s, "0000") {
		return 0
	}
	if offset != "" {
		if at, err := time.Parse("2006:01:02 15:04:05-07:00", s+offset); err == nil {
			return at.UnixMilli()
		}
	}
	at, err := time.ParseInLocation("2006:01:02 15:04:05", s, loc)
	if err != nil {
		return 0
	}
	return at.UnixMilli()
}

// gpsPatches empties the GPS IFD: its entry count, entries and next-IFD
// offset become zeros, and so does every value stored outside the
// entries. The pointer to it stays, to an IFD with no entry.
func (t tiff) gpsPatches() []Patch {
	if t.gpsOff < 8 || t.gpsOff+2 > int64(len(t.b)) {
		return nil
	}
	n := int64(t.bo.Uint16(t.b[t.gpsOff:]))
	end := t.gpsOff + 2 + 12*n + 4
	if n == 0 || end > int64(len(t.b)) {
		return nil
	}
	var out []Patch
	for _, e := range t.ifd(t.gpsOff) {
		if sz := e.size(); sz > 4 {
			out = append(out, Patch{Off: e.at, Data: make([]byte, sz)})
		}
	}
	return append(out, Patch{Off: t.gpsOff, Data: make([]byte, end-t.gpsOff)})
}

// Patched is a file with patches laid over it, as an io.ReadSeeker for
// http.ServeContent. Patches must not overlap.
type Patched struct {
	f       io.ReadSeeker
	pos     int64
	patches []Patch
}

// NewPatched lays patches over f.
func NewPatched(f io.ReadSeeker, patches []Patch) *Patched {
	return &Patched{f: f, patches: patches}
}

// Read reads the file and lays the patches over what it read.
func (p *Patched) Read(b []byte) (int, error) {
	n, err := p.f.Read(b)
	lo, hi := p.pos, p.pos+int64(n)
	for _, pt := range p.patches {
		s, e := max(pt.Off, lo), min(pt.Off+int64(len(pt.Data)), hi)
		if s < e {
			copy(b[s-lo:e-lo], pt.Data[s-pt.Off:e-pt.Off])
		}
	}
	p.pos = hi
	return n, err
}

// Seek moves in the file.
func (p *Patched) Seek(offset int64, whence int) (int64, error) {
	pos, err := p.f.Seek(offset, whence)
	if err == nil {
		p.pos = pos
	}
	return pos, err
}
