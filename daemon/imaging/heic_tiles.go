//go:build !arm

package imaging

import (
	"context"
	"fmt"
	_ "unsafe" // go:linkname

	"github.com/gen2brain/heic"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"eventbox/daemon/imaging/internal/planar"
)

// The compiled decoder of github.com/gen2brain/heic v0.4.5 (go.mod pins it),
// reached so that one module instance decodes many tiles: its Decode
// instantiates a fresh module, with about 20 MiB of WebAssembly memory, per
// call. Decoding a 48 MP grid that way allocates 3.7 GB, the garbage
// collector runs all the time, and each collection waits for the tile being
// decoded (code running in WebAssembly cannot be preempted), which held
// other requests for up to a second. These names must match the library's;
// the imaging tests fail at once if they do not.
//
//go:linkname heicInit github.com/gen2brain/heic.initOnce
var heicInit func()

//go:linkname heicRuntime github.com/gen2brain/heic.rt
var heicRuntime wazero.Runtime

//go:linkname heicCompiled github.com/gen2brain/heic.cm
var heicCompiled wazero.CompiledModule

//go:linkname heicModuleConfig github.com/gen2brain/heic.mc
var heicModuleConfig wazero.ModuleConfig

// tilesPerInstance bounds how many tiles one module instance decodes. The
// library's decode never releases the decoded picture, so each tile leaves
// its planes (384 KiB for 512×512) in the instance's memory: 16 tiles leak
// 6 MiB at most before the instance goes.
const tilesPerInstance = 16

// tileDecoder decodes HEVC tiles, each wrapped as a single-image HEIF, in a
// module instance it reuses for tilesPerInstance tiles. It is not safe for
// concurrent use.
type tileDecoder struct {
	ctx  context.Context
	mod  api.Module
	used int
}

func newTileDecoder(ctx context.Context) *tileDecoder {
	_ = heic.Decode // the library's package state is initialised by heicInit
	heicInit()
	return &tileDecoder{ctx: ctx}
}

// Close releases the module instance.
func (d *tileDecoder) Close() {
	if d.mod != nil {
		_ = d.mod.Close(d.ctx)
		d.mod = nil
	}
}

// decode decodes one single-image HEIF into 4:2:0 (or grey) planes of its
// own memory.
func (d *tileDecoder) decode(file []byte) (planar.Image, error) {
	if d.mod != nil && d.used >= tilesPerInstance {
		d.Close()
	}
	if d.mod == nil {
		mod, err := heicRuntime.InstantiateModule(d.ctx, heicCompiled, heicModuleConfig)
		if err != nil {
			return planar.Image{}, fmt.Errorf("starting the HEIC decoder: %w", err)
		}
		d.mod, d.used = mod, 0
	}
	d.used++
	ctx, mem := d.ctx, d.mod.Memory()
	alloc, free, decode := d.mod.ExportedFunction("malloc"), d.mod.ExportedFunction("free"), d.mod.ExportedFunction("decode")
	call := func(f api.Function, args ...uint64) (uint64, error) {
		r, err := f.Call(ctx, args...)
		if err != nil {
			d.Close() // the instance may be in any state
			return 0, err
		}
		if len(r) == 0 {
			return 0, nil
		}
		return r[0], nil
	}
	in, err := call(alloc, uint64(len(file)))
	if err != nil || in == 0 {
		return planar.Image{}, fmt.Errorf("allocating %d bytes in the HEIC decoder: %v", len(file), err)
	}
	defer func() {
		if d.mod != nil {
			_, _ = call(free, in)
		}
	}()
	if !mem.Write(uint32(in), file) {
		return planar.Image{}, fmt.Errorf("writing the tile into the HEIC decoder")
	}
	fields, err := call(alloc, 20)
	if err != nil || fields == 0 {
		return planar.Image{}, fmt.Errorf("allocating in the HEIC decoder: %v", err)
	}
	defer func() {
		if d.mod != nil {
			_, _ = call(free, fields)
		}
	}()
	run := func(configOnly uint64, out uint64) error {
		ok, err := call(decode, in, uint64(len(file)), configOnly, fields, fields+4, fields+8, fields+12, fields+16, out)
		if err != nil {
			return fmt.Errorf("HEIC decoder: %w", err)
		}
		if ok == 0 {
			return fmt.Errorf("HEIC decoder refused the tile")
		}
		return nil
	}
	if err := run(1, 0); err != nil {
		return planar.Image{}, err
	}
	u32 := func(off uint32) int {
		v, _ := mem.ReadUint32Le(uint32(fields) + off)
		return int(v)
	}
	w, h, colorspace, chroma := u32(0), u32(4), u32(8), u32(12)
	if w <= 0 || h <= 0 || w > 1<<14 || h > 1<<14 {
		return planar.Image{}, fmt.Errorf("tile of %dx%d", w, h)
	}
	align := func(n int) int { return (n + 15) &^ 15 }
	var size, ys, cs, ch int
	switch {
	case colorspace == 0 && chroma == 1: // Y'CbCr 4:2:0
		ys, cs, ch = align(w), align((w+1)/2), (h+1)/2
		size = ys*h + 2*cs*ch
	case colorspace == 2: // monochrome
		ys = align(w)
		size = ys * h
	default:
		return planar.Image{}, fmt.Errorf("%w: HEIC tile in colour space %d, chroma %d", ErrUnsupported, colorspace, chroma)
	}
	out, err := call(alloc, uint64(size))
	if err != nil || out == 0 {
		return planar.Image{}, fmt.Errorf("allocating %d bytes in the HEIC decoder: %v", size, err)
	}
	defer func() {
		if d.mod != nil {
			_, _ = call(free, out)
		}
	}()
	if err := run(0, out); err != nil {
		return planar.Image{}, err
	}
	pix, ok := mem.Read(uint32(out), uint32(size))
	if !ok {
		return planar.Image{}, fmt.Errorf("reading the tile from the HEIC decoder")
	}
	gray := colorspace == 2
	m := planar.NewImage(w, h, 2, 2, gray)
	for y := range h {
		copy(m.Y.Row(y), pix[y*ys:y*ys+w])
	}
	if !gray {
		cb, cr := pix[ys*h:], pix[ys*h+cs*ch:]
		for y := range m.Cb.H {
			copy(m.Cb.Row(y), cb[y*cs:y*cs+m.Cb.W])
			copy(m.Cr.Row(y), cr[y*cs:y*cs+m.Cr.W])
		}
	}
	return m, nil
}
