// Package heifwasm runs the HEIC decoder: libheif and libde265 compiled to
// WebAssembly (lib/README.md says what the module is and how it is built),
// under wazero, with no cgo. A Runtime holds the compiled module; a
// Decoder holds one instance of it and decodes file after file in it.
//
// The package knows the module's three exports (malloc, free, decode, as
// lib/heif.c defines them) and nothing about images beyond the planes the
// module hands back; imaging turns those into pictures.
package heifwasm

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

//go:embed lib/heif.wasm.gz
var moduleGz []byte

// ErrRefused is returned when the module's decode reports a failure: the
// file is not a HEIF it can decode.
var ErrRefused = errors.New("the HEIC decoder refused the file")

// Colorspace is libheif's heif_colorspace of a decoded picture.
type Colorspace uint32

// The colour spaces the module answers.
const (
	YCbCr      Colorspace = 0
	RGB        Colorspace = 1
	Monochrome Colorspace = 2
)

// Chroma is libheif's heif_chroma of a Y'CbCr picture.
type Chroma uint32

// The chroma samplings of a Y'CbCr picture.
const (
	Chroma420 Chroma = 1
	Chroma422 Chroma = 2
	Chroma444 Chroma = 3
)

// Runtime is the compiled decoder module. Compiling takes about a second
// and some MiB of native code, so a process makes one and shares it; it
// is safe for concurrent use.
type Runtime struct {
	rt wazero.Runtime
	cm wazero.CompiledModule
	mc wazero.ModuleConfig
}

// Compile compiles the embedded module. With cacheDir set, the machine
// code is kept there (wazero's compilation cache, keyed by the module and
// wazero's version) and a later process loads it instead of compiling
// again; a cache that cannot be read (a file cut by a power loss) is
// emptied and filled again, and a directory that cannot be used is done
// without.
func Compile(ctx context.Context, cacheDir string) (*Runtime, error) {
	if cacheDir != "" {
		if r, err := compile(ctx, wazero.NewRuntimeConfig(), cacheDir); err == nil {
			return r, nil
		}
		if clearDir(cacheDir) == nil {
			if r, err := compile(ctx, wazero.NewRuntimeConfig(), cacheDir); err == nil {
				return r, nil
			}
		}
	}
	return compile(ctx, wazero.NewRuntimeConfig(), "")
}

// clearDir removes what dir holds.
func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("emptying the HEIC decoder's cache: %w", err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("emptying the HEIC decoder's cache: %w", err)
		}
	}
	return nil
}

// CompileReserved compiles the embedded module for instances whose memory
// is at most maxBytes and is reserved whole when an instance starts, so
// that it never grows by copying: growing a module's memory past its
// capacity copies it into a larger one, and a single-coded 48 MP picture
// then held about 840 MiB at once instead of about 390. The reservation is
// Go heap that the module touches only as it uses it, so it is meant for a
// process that decodes one image (package isolate's child), not the
// daemon, whose garbage collector would count it whole.
func CompileReserved(ctx context.Context, maxBytes int64) (*Runtime, error) {
	pages := uint32(min(max(maxBytes>>16, 1), 65536))
	return compile(ctx, wazero.NewRuntimeConfig().WithMemoryLimitPages(pages).WithMemoryCapacityFromMax(true), "")
}

func compile(ctx context.Context, cfg wazero.RuntimeConfig, cacheDir string) (*Runtime, error) {
	zr, err := gzip.NewReader(bytes.NewReader(moduleGz))
	if err != nil {
		return nil, fmt.Errorf("opening the HEIC decoder module: %w", err)
	}
	code, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("unpacking the HEIC decoder module: %w", err)
	}
	if cacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
		if err != nil {
			return nil, fmt.Errorf("opening the HEIC decoder's cache %s: %w", cacheDir, err)
		}
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("starting the HEIC decoder's system interface: %w", err)
	}
	cm, err := rt.CompileModule(ctx, code)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("compiling the HEIC decoder: %w", err)
	}
	// libheif's own messages are not the daemon's log.
	mc := wazero.NewModuleConfig().WithStdout(io.Discard).WithStderr(io.Discard)
	return &Runtime{rt: rt, cm: cm, mc: mc}, nil
}

// Close releases the compiled code.
func (r *Runtime) Close(ctx context.Context) error {
	return r.rt.Close(ctx)
}

// Picture is a decoded picture as the module lays it out. Its byte slices
// are views into the module's memory, valid only during the call that
// hands them out.
type Picture struct {
	W, H       int
	Colorspace Colorspace
	// Chroma is the sampling of a Y'CbCr picture.
	Chroma Chroma
	// Premultiplied says whether an RGB picture's alpha is premultiplied.
	Premultiplied bool
	// Y is the luma plane of a Y'CbCr or monochrome picture, or the
	// interleaved RGBA of an RGB one, with YStride bytes per row.
	Y       []byte
	YStride int
	// Cb and Cr are a Y'CbCr picture's chroma planes, CW×CH samples with
	// CStride bytes per row.
	Cb, Cr  []byte
	CW, CH  int
	CStride int
}

// Decoder decodes HEIF files in one module instance, which it replaces
// after perInstance files: the module's decode does not release the
// decoded picture, so each file leaves its planes in the instance's
// memory. It is not safe for concurrent use.
type Decoder struct {
	rt          *Runtime
	ctx         context.Context
	mod         api.Module
	used        int
	perInstance int
}

// NewDecoder returns a Decoder over r; ctx bounds every call into the
// module. perInstance below 1 is taken as 1.
func (r *Runtime) NewDecoder(ctx context.Context, perInstance int) *Decoder {
	return &Decoder{rt: r, ctx: ctx, perInstance: max(perInstance, 1)}
}

// Close releases the module instance.
func (d *Decoder) Close() {
	if d.mod != nil {
		_ = d.mod.Close(d.ctx)
		d.mod = nil
	}
}

// MaxSide bounds the width and height Decode accepts from the module.
const MaxSide = 1 << 14

// align is the row alignment the module's planes have.
func align(n int) int { return (n + 15) &^ 15 }

// Decode decodes file and calls use with the picture. An error from use is
// returned as is.
func (d *Decoder) Decode(file []byte, use func(Picture) error) error {
	if d.mod != nil && d.used >= d.perInstance {
		d.Close()
	}
	if d.mod == nil {
		mod, err := d.rt.rt.InstantiateModule(d.ctx, d.rt.cm, d.rt.mc)
		if err != nil {
			return fmt.Errorf("starting the HEIC decoder: %w", err)
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
	release := func(ptr uint64) {
		if d.mod != nil {
			_, _ = call(free, ptr)
		}
	}
	in, err := call(alloc, uint64(len(file)))
	if err != nil || in == 0 {
		return fmt.Errorf("allocating %d bytes in the HEIC decoder: %v", len(file), err)
	}
	defer release(in)
	if !mem.Write(uint32(in), file) {
		return errors.New("writing the file into the HEIC decoder")
	}
	fields, err := call(alloc, 20)
	if err != nil || fields == 0 {
		return fmt.Errorf("allocating in the HEIC decoder: %v", err)
	}
	defer release(fields)
	run := func(configOnly uint64, out uint64) error {
		ok, err := call(decode, in, uint64(len(file)), configOnly, fields, fields+4, fields+8, fields+12, fields+16, out)
		if err != nil {
			return fmt.Errorf("running the HEIC decoder: %w", err)
		}
		if ok == 0 {
			return ErrRefused
		}
		return nil
	}
	if err := run(1, 0); err != nil {
		return err
	}
	u32 := func(off uint32) int {
		v, _ := mem.ReadUint32Le(uint32(fields) + off)
		return int(v)
	}
	p := Picture{W: u32(0), H: u32(4), Colorspace: Colorspace(u32(8)), Chroma: Chroma(u32(12)), Premultiplied: u32(16) == 1}
	if p.W <= 0 || p.H <= 0 || p.W > MaxSide || p.H > MaxSide {
		return fmt.Errorf("%w: a picture of %d×%d", ErrRefused, p.W, p.H)
	}
	var size int
	switch p.Colorspace {
	case YCbCr:
		p.YStride = align(p.W)
		switch p.Chroma {
		case Chroma420:
			p.CW, p.CH = (p.W+1)/2, (p.H+1)/2
		case Chroma422:
			p.CW, p.CH = (p.W+1)/2, p.H
		case Chroma444:
			p.CW, p.CH = p.W, p.H
		default:
			return fmt.Errorf("%w: chroma %d", ErrRefused, p.Chroma)
		}
		p.CStride = align(p.CW)
		size = p.YStride*p.H + 2*p.CStride*p.CH
	case Monochrome:
		p.YStride = align(p.W)
		size = p.YStride * p.H
	case RGB:
		p.YStride = align(4 * p.W)
		size = p.YStride * p.H
	default:
		return fmt.Errorf("%w: colour space %d", ErrRefused, p.Colorspace)
	}
	out, err := call(alloc, uint64(size))
	if err != nil || out == 0 {
		return fmt.Errorf("allocating %d bytes in the HEIC decoder: %v", size, err)
	}
	defer release(out)
	if err := run(0, out); err != nil {
		return err
	}
	pix, ok := mem.Read(uint32(out), uint32(size))
	if !ok {
		return errors.New("reading the picture from the HEIC decoder")
	}
	p.Y = pix[:p.YStride*p.H]
	if p.Colorspace == YCbCr {
		cs := p.CStride * p.CH
		p.Cb, p.Cr = pix[len(p.Y):len(p.Y)+cs], pix[len(p.Y)+cs:len(p.Y)+2*cs]
	}
	return use(p)
}
