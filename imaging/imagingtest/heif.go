package imagingtest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Preset is the x265 preset heif-enc encodes with.
type Preset string

// The presets: the tests' fastest one, and x265's default, whose
// bitstream (its partitions and tools) is nearer a phone's and costs the
// decoder what a phone's would: the load tools' (party, uploadload).
const (
	Ultrafast Preset = "ultrafast"
	Medium    Preset = "medium"
)

// HEIFEnc encodes m with `heif-enc -q quality` (Debian's libheif-examples)
// and x265's fastest preset, and returns the file. dir is a scratch
// directory. x265's default preset takes five times as long, and its
// thread pool, beside other tests on a busy machine, far longer (8 s
// against 1.7 s for a 512×512 tile with four other busy processes on two
// cores); the tests decode what it writes and none measures the encoder.
func HEIFEnc(dir string, m image.Image, quality int) ([]byte, error) {
	return HEIFEncWith(Ultrafast, dir, m, quality)
}

// HEIFEncWith is HEIFEnc with x265's preset.
func HEIFEncWith(preset Preset, dir string, m image.Image, quality int) ([]byte, error) {
	bin, err := exec.LookPath("heif-enc")
	if err != nil {
		return nil, fmt.Errorf("heif-enc (Debian package libheif-examples): %w", err)
	}
	f, err := os.CreateTemp(dir, "tile-*.png")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if err := png.Encode(f, m); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing png: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, filepath.Base(f.Name())+".heic")
	defer os.Remove(out)
	if b, err := exec.Command(bin, "-q", fmt.Sprint(quality), "-p", "preset="+string(preset), "-o", out, f.Name()).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("heif-enc: %v: %s", err, b)
	}
	return os.ReadFile(out)
}

// coded returns the hvcC payload and the coded data of a single-image HEIF
// file as heif-enc writes it (one item, its data the whole mdat).
func coded(heif []byte) (hvcC, data []byte, err error) {
	var find func(b []byte, path ...string) []byte
	find = func(b []byte, path ...string) []byte {
		for len(b) >= 8 {
			n := int(binary.BigEndian.Uint32(b))
			if n < 8 || n > len(b) {
				return nil
			}
			if string(b[4:8]) == path[0] {
				p := b[8:n]
				if path[0] == "meta" {
					p = p[4:]
				}
				if len(path) == 1 {
					return p
				}
				return find(p, path[1:]...)
			}
			b = b[n:]
		}
		return nil
	}
	hvcC = find(heif, "meta", "iprp", "ipco", "hvcC")
	data = find(heif, "mdat")
	if hvcC == nil || data == nil {
		return nil, nil, fmt.Errorf("no hvcC or mdat in the heif-enc output")
	}
	return hvcC, data, nil
}

// HEICGrid writes a grid HEIC as phones do: a primary "grid" item of outW ×
// outH made of cols × rows HEVC tiles, each an item of its own. cells gives,
// row by row, which of tiles (single-image HEIF files of one size, from
// HEIFEnc) fills each cell. irot (0–3 counter-clockwise quarter turns) is
// set on the grid item when not 0.
func HEICGrid(tiles [][]byte, cells []int, cols, rows, outW, outH, tileW, tileH, irot int) ([]byte, error) {
	return HEICGridThumb(tiles, cells, cols, rows, outW, outH, tileW, tileH, irot, nil, 0, 0)
}

// HEICGridThumb is HEICGrid with a thumbnail item, as iPhones write one:
// thumb, a single-image HEIF of thumbW × thumbH (from HEIFEnc), becomes an
// HEVC item of its own with its size, its coded configuration and the
// grid's irot, and a 'thmb' reference to the grid. A nil thumb is HEICGrid.
func HEICGridThumb(tiles [][]byte, cells []int, cols, rows, outW, outH, tileW, tileH, irot int, thumb []byte, thumbW, thumbH int) ([]byte, error) {
	if len(cells) != cols*rows {
		return nil, fmt.Errorf("%d cells for a %dx%d grid", len(cells), cols, rows)
	}
	type tile struct{ hvcC, data []byte }
	ts := make([]tile, len(tiles))
	for i, t := range tiles {
		h, d, err := coded(t)
		if err != nil {
			return nil, fmt.Errorf("tile %d: %w", i, err)
		}
		ts[i] = tile{h, d}
	}
	box := func(typ string, parts ...[]byte) []byte {
		var b bytes.Buffer
		n := 8
		for _, p := range parts {
			n += len(p)
		}
		_ = binary.Write(&b, binary.BigEndian, uint32(n))
		b.WriteString(typ)
		for _, p := range parts {
			b.Write(p)
		}
		return b.Bytes()
	}
	u16 := func(v int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
	u32 := func(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	full := []byte{0, 0, 0, 0}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

	const gridID = 1
	tileID := func(i int) int { return 2 + i }
	n := len(cells)
	thumbID := 2 + n
	var thumbHVCC, thumbData []byte
	if thumb != nil {
		var err error
		if thumbHVCC, thumbData, err = coded(thumb); err != nil {
			return nil, fmt.Errorf("thumbnail: %w", err)
		}
	}
	items := 1 + n
	if thumb != nil {
		items++
	}

	// Properties: 1 grid ispe, 2 tile ispe, 3 irot, then one hvcC per tile
	// picture.
	props := [][]byte{
		box("ispe", full, u32(outW), u32(outH)),
		box("ispe", full, u32(tileW), u32(tileH)),
		box("irot", []byte{byte(irot & 3)}),
	}
	for _, t := range ts {
		props = append(props, box("hvcC", t.hvcC))
	}
	// The thumbnail's properties, when there is one: its ispe, its hvcC.
	thumbProps := len(props) + 1
	if thumb != nil {
		props = append(props, box("ispe", full, u32(thumbW), u32(thumbH)), box("hvcC", thumbHVCC))
	}
	ipco := box("ipco", props...)
	var ipmaBody [][]byte
	ipmaBody = append(ipmaBody, full, u32(items))
	if irot != 0 {
		ipmaBody = append(ipmaBody, u16(gridID), []byte{2, 1, 0x83})
	} else {
		ipmaBody = append(ipmaBody, u16(gridID), []byte{1, 1})
	}
	for i, c := range cells {
		ipmaBody = append(ipmaBody, u16(tileID(i)), []byte{2, 0x80 | byte(4+c), 2})
	}
	if thumb != nil {
		if irot != 0 {
			ipmaBody = append(ipmaBody, u16(thumbID), []byte{3, byte(thumbProps), 0x80 | byte(thumbProps+1), 0x83})
		} else {
			ipmaBody = append(ipmaBody, u16(thumbID), []byte{2, byte(thumbProps), 0x80 | byte(thumbProps+1)})
		}
	}
	iprp := box("iprp", ipco, box("ipma", ipmaBody...))

	infes := [][]byte{full, u16(items), box("infe", []byte{2, 0, 0, 0}, u16(gridID), u16(0), []byte("grid"), []byte{0})}
	for i := range cells {
		infes = append(infes, box("infe", []byte{2, 0, 0, 1}, u16(tileID(i)), u16(0), []byte("hvc1"), []byte{0}))
	}
	if thumb != nil {
		infes = append(infes, box("infe", []byte{2, 0, 0, 0}, u16(thumbID), u16(0), []byte("hvc1"), []byte{0}))
	}
	iinf := box("iinf", infes...)
	refs := [][]byte{u16(gridID), u16(n)}
	for i := range cells {
		refs = append(refs, u16(tileID(i)))
	}
	irefs := [][]byte{full, box("dimg", refs...)}
	if thumb != nil {
		irefs = append(irefs, box("thmb", u16(thumbID), u16(1), u16(gridID)))
	}
	iref := box("iref", irefs...)

	// mdat: the grid descriptor, then each tile picture's data once.
	desc := cat([]byte{0, 1, byte(rows - 1), byte(cols - 1)}, u32(outW), u32(outH))
	payload := [][]byte{desc}
	dataOff := []int{len(desc)}
	for _, t := range ts {
		payload = append(payload, t.data)
		dataOff = append(dataOff, dataOff[len(dataOff)-1]+len(t.data))
	}
	thumbOff := dataOff[len(dataOff)-1]
	payload = append(payload, thumbData)
	ilocFor := func(mdatStart int) []byte {
		parts := [][]byte{full, {0x44, 0x00}, u16(items),
			u16(gridID), u16(0), u16(1), u32(mdatStart), u32(len(desc))}
		for i, c := range cells {
			parts = append(parts, u16(tileID(i)), u16(0), u16(1), u32(mdatStart+dataOff[c]), u32(len(ts[c].data)))
		}
		if thumb != nil {
			parts = append(parts, u16(thumbID), u16(0), u16(1), u32(mdatStart+thumbOff), u32(len(thumbData)))
		}
		return box("iloc", parts...)
	}
	ftyp := box("ftyp", []byte("heic"), u32(0), []byte("mif1heic"))
	hdlr := box("hdlr", full, u32(0), []byte("pict"), make([]byte, 12), []byte{0})
	pitm := box("pitm", full, u16(gridID))
	meta := box("meta", full, hdlr, pitm, iinf, iref, ilocFor(0), iprp)
	start := len(ftyp) + len(meta) + 8
	meta = box("meta", full, hdlr, pitm, iinf, iref, ilocFor(start), iprp)
	return cat(ftyp, meta, box("mdat", payload...)), nil
}

// GridPicture makes a grid HEIC of outW × outH in tiles of 512×512, as an
// iPhone writes one, and returns it with the picture it codes (as stored,
// before irot). Only distinct tiles are encoded (heif-enc -q 90) and
// reused across the cells in a pattern, so a 48 MP grid takes seconds to
// make.
func GridPicture(dir string, outW, outH, distinct, irot int) ([]byte, *image.YCbCr, error) {
	return GridPictureThumb(dir, outW, outH, distinct, irot, 0, 0)
}

// GridPictureThumb is GridPicture with a thumbnail item of thumbW × thumbH
// beside the grid, as an iPhone writes one (HEICGridThumb): the picture
// sampled down, its chroma flat. thumbW 0 is GridPicture.
func GridPictureThumb(dir string, outW, outH, distinct, irot, thumbW, thumbH int) ([]byte, *image.YCbCr, error) {
	return GridPictureThumbWith(Ultrafast, dir, outW, outH, distinct, irot, thumbW, thumbH)
}

// GridPictureThumbWith is GridPictureThumb encoded with x265's preset.
func GridPictureThumbWith(preset Preset, dir string, outW, outH, distinct, irot, thumbW, thumbH int) ([]byte, *image.YCbCr, error) {
	const tw, th = 512, 512
	cols, rows := (outW+tw-1)/tw, (outH+th-1)/th
	srcs := make([]*image.YCbCr, distinct)
	tiles := make([][]byte, distinct)
	for k := range distinct {
		srcs[k] = testimgPhoto(tw, th, uint64(k+1))
		b, err := HEIFEncWith(preset, dir, srcs[k], 90)
		if err != nil {
			return nil, nil, err
		}
		tiles[k] = b
	}
	cells := make([]int, cols*rows)
	ref := image.NewYCbCr(image.Rect(0, 0, outW, outH), image.YCbCrSubsampleRatio420)
	for i := range cells {
		c := (i*5 + i/cols) % distinct
		cells[i] = c
		x0, y0 := i%cols*tw, i/cols*th
		for y := 0; y < th && y0+y < outH; y++ {
			for x := 0; x < tw && x0+x < outW; x++ {
				ref.Y[(y0+y)*ref.YStride+x0+x] = srcs[c].Y[y*srcs[c].YStride+x]
				if x%2 == 0 && y%2 == 0 {
					co := ref.COffset(x0+x, y0+y)
					so := srcs[c].COffset(x, y)
					ref.Cb[co], ref.Cr[co] = srcs[c].Cb[so], srcs[c].Cr[so]
				}
			}
		}
	}
	var thumb []byte
	if thumbW > 0 {
		var err error
		if thumb, err = HEIFEncWith(preset, dir, sampledDown(ref, thumbW, thumbH), 90); err != nil {
			return nil, nil, err
		}
	}
	heic, err := HEICGridThumb(tiles, cells, cols, rows, outW, outH, tw, th, irot, thumb, thumbW, thumbH)
	return heic, ref, err
}

// sampledDown is m's luma sampled to w × h (the nearest pixel), with flat
// chroma.
func sampledDown(m *image.YCbCr, w, h int) *image.YCbCr {
	mw, mh := m.Rect.Dx(), m.Rect.Dy()
	out := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			out.Y[y*out.YStride+x] = m.Y[y*mh/h*m.YStride+x*mw/w]
		}
	}
	for i := range out.Cb {
		out.Cb[i], out.Cr[i] = 128, 128
	}
	return out
}

// GridPictureReduced is GridPicture for grids too large to hold their
// picture (200 MP is 300 MB): the picture returned is reduced by reduce
// (2, 4 or 8; each pixel the mean of a reduce×reduce block), and only its
// luma is set, which is what LumaError compares.
func GridPictureReduced(dir string, outW, outH, distinct, irot, reduce int) ([]byte, *image.YCbCr, error) {
	const tw, th = 512, 512
	if reduce < 1 || tw%reduce != 0 {
		return nil, nil, fmt.Errorf("reduce %d does not divide the %d px tiles", reduce, tw)
	}
	cols, rows := (outW+tw-1)/tw, (outH+th-1)/th
	rtw, rth := tw/reduce, th/reduce
	small := make([][]byte, distinct) // each tile's luma, reduced
	tiles := make([][]byte, distinct)
	for k := range distinct {
		src := testimgPhoto(tw, th, uint64(k+1))
		b, err := HEIFEnc(dir, src, 90)
		if err != nil {
			return nil, nil, err
		}
		tiles[k] = b
		small[k] = make([]byte, rtw*rth)
		for y := range rth {
			for x := range rtw {
				sum := 0
				for yy := range reduce {
					for xx := range reduce {
						sum += int(src.Y[(y*reduce+yy)*src.YStride+x*reduce+xx])
					}
				}
				small[k][y*rtw+x] = byte((sum + reduce*reduce/2) / (reduce * reduce))
			}
		}
	}
	cells := make([]int, cols*rows)
	rw, rh := outW/reduce, outH/reduce
	ref := image.NewYCbCr(image.Rect(0, 0, rw, rh), image.YCbCrSubsampleRatio420)
	for i := range cells {
		c := (i*5 + i/cols) % distinct
		cells[i] = c
		x0, y0 := i%cols*rtw, i/cols*rth
		for y := 0; y < rth && y0+y < rh; y++ {
			for x := 0; x < rtw && x0+x < rw; x++ {
				ref.Y[(y0+y)*ref.YStride+x0+x] = small[c][y*rtw+x]
			}
		}
	}
	heic, err := HEICGrid(tiles, cells, cols, rows, outW, outH, tw, th, irot)
	return heic, ref, err
}

// SingleHEIC encodes a w×h gradient as one HEVC-coded image (not a grid)
// with `heif-enc -q 30` at x265's fastest preset (Debian's
// libheif-examples), as a desktop export writes it. dir is a scratch
// directory.
func SingleHEIC(dir string, w, h int) ([]byte, error) {
	bin, err := exec.LookPath("heif-enc")
	if err != nil {
		return nil, fmt.Errorf("heif-enc (Debian package libheif-examples): %w", err)
	}
	src, err := PNG(w, h, 8)
	if err != nil {
		return nil, err
	}
	in := filepath.Join(dir, "single-src.png")
	if err := os.WriteFile(in, src, 0o600); err != nil {
		return nil, err
	}
	defer os.Remove(in)
	out := filepath.Join(dir, "single.heic")
	defer os.Remove(out)
	if b, err := exec.Command(bin, "-q", "30", "-p", "preset=ultrafast", "-o", out, in).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("heif-enc: %v: %s", err, b)
	}
	return os.ReadFile(out)
}

// PhoneHEIC is a photo as an iPhone writes one, small: a 1024×768 grid of
// 512×512 HEVC tiles with a 320×240 thumbnail item of the same picture
// beside it ('thmb'), made with heif-enc (the test fails without it). With
// brokenTiles the tiles' coded configuration holds no parameter sets, so
// the file passes the upload's check but its tiles cannot be decoded
// (its variants fail), while its thumbnail can.
func PhoneHEIC(t testing.TB, brokenTiles bool) []byte {
	t.Helper()
	dir := t.TempDir()
	const w, h, tw, th = 1024, 768, 320, 240
	picture := testimgPhoto(w, h, 3)
	tile, err := HEIFEnc(dir, picture.SubImage(image.Rect(0, 0, 512, 512)), 90)
	if err != nil {
		t.Fatal(err)
	}
	if brokenTiles {
		// coded answers the hvcC inside tile, so this changes the tile
		// itself: numOfArrays, the configuration's last fixed byte, set
		// to 0; the arrays that followed become padding no reader reads.
		hvcC, _, err := coded(tile)
		if err != nil {
			t.Fatal(err)
		}
		hvcC[22] = 0
	}
	thumb, err := HEIFEnc(dir, sampledDown(picture, tw, th), 90)
	if err != nil {
		t.Fatal(err)
	}
	b, err := HEICGridThumb([][]byte{tile}, make([]int, 4), 2, 2, w, h, 512, 512, 0, thumb, tw, th)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
