// Package storage is the storage guard (docs/decisions.md, "Storage
// guard"): it watches the free space of DATA_DIR's file system. Below the
// margin it refuses new uploads and voice notes before their body is read
// (507 insufficient_storage), tells the hosts (the console banner, a
// storage.low notice) and reopens by itself once the free space is back
// above the margin and an eighth of it more, so that a card hovering at
// the margin does not flap.
package storage

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"syscall"
	"time"

	"eventbox/daemon/web"
	"eventbox/store"
)

// dbGrowth is the database's part of the margin: bbolt grows its file by
// up to 16 MiB (AllocSize) at a time, and a migration copies the file
// first; 64 MiB covers several growth steps of a database that is itself
// a few MiB to tens of MiB at a wedding.
const dbGrowth = 64 << 20

// DefaultMargin is the storage guard's margin for the upload limits, in
// MB: room for two of the largest uploads at once (a video of maxVideoMB
// sits whole in the temp area before it is moved into place, and a second
// one may be on its way when the guard trips), their variants (a few MiB
// at most), and the database's growth. 464 MiB with the default limits.
func DefaultMargin(maxUploadMB, maxVideoMB int) int64 {
	largest := int64(max(maxUploadMB, maxVideoMB)) << 20
	return 2*largest + dbGrowth
}

// Statfs answers the bytes an unprivileged process may still write on the
// file system of path.
func Statfs(path string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("reading free space of %s: %w", path, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// Config is what a Guard needs.
type Config struct {
	// Dir is the directory whose file system is watched (DATA_DIR).
	Dir string
	// Margin is the free space, in bytes, below which uploads are
	// refused; it must be positive (DefaultMargin).
	Margin int64
	// Free answers the free bytes of the file system holding a path;
	// nil means Statfs. Tests fake a card with it.
	Free func(path string) (int64, error)
	// Logger logs the guard tripping and reopening.
	Logger *slog.Logger
	// Now stamps the storage.low notice; nil means time.Now.
	Now func() time.Time
	// Store, when not nil, receives the box-wide storage.low notice when
	// the guard trips; Nudge, when not nil, is then told of the queued
	// notice job's kind (the job runner's Notify).
	Store *store.Store
	Nudge func(kind string)
}

// Guard is the storage guard. Its methods are safe for concurrent use.
type Guard struct {
	cfg Config

	mu       sync.Mutex
	low      bool
	lastFree int64
}

// New returns a guard with cfg.
func New(cfg Config) *Guard {
	if cfg.Free == nil {
		cfg.Free = Statfs
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Guard{cfg: cfg}
}

// Margin answers the free space, in bytes, the guard keeps.
func (g *Guard) Margin() int64 { return g.cfg.Margin }

// FreeSpace answers the free bytes of the file system holding path, as the
// guard measures them (Config.Free).
func (g *Guard) FreeSpace(path string) (int64, error) { return g.cfg.Free(path) }

// State is what the guard last saw.
type State struct {
	// Low is true while uploads are refused.
	Low bool
	// Free is the free space in bytes.
	Free int64
	// Margin is the guard's margin in bytes.
	Margin int64
}

// Check measures the free space now, updates the state, and answers it.
// A failing statfs keeps the previous state.
func (g *Guard) Check(ctx context.Context) State {
	free, err := g.cfg.Free(g.cfg.Dir)
	margin := g.cfg.Margin
	g.mu.Lock()
	if err != nil {
		st := State{Low: g.low, Free: g.lastFree, Margin: margin}
		g.mu.Unlock()
		g.cfg.Logger.WarnContext(ctx, "free space unknown", "error", err)
		return st
	}
	was := g.low
	switch {
	case !g.low && free < margin:
		g.low = true
	case g.low && free >= margin+margin/8:
		g.low = false
	}
	g.lastFree = free
	st := State{Low: g.low, Free: free, Margin: margin}
	g.mu.Unlock()
	if st.Low != was {
		if st.Low {
			g.cfg.Logger.WarnContext(ctx, "storage low: uploads refused until space is freed", "free_bytes", free, "margin_bytes", margin)
			g.lowNotice(ctx, free)
		} else {
			g.cfg.Logger.InfoContext(ctx, "storage back: uploads open again", "free_bytes", free, "margin_bytes", margin)
		}
	}
	return st
}

// Room answers the bytes that may still be written before the margin.
func (g *Guard) Room(ctx context.Context) int64 {
	st := g.Check(ctx)
	return st.Free - st.Margin
}

// watchEvery is how often the guard looks without an upload asking.
const watchEvery = 30 * time.Second

// Run checks every watchEvery until ctx ends, so the hosts hear of a card
// filling up (and of space coming back) without an upload. It is the
// guard's service.Service.
func (g *Guard) Run(ctx context.Context) error {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		g.Check(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Uploads refuses an upload with 507 insufficient_storage while the card
// is below the margin, before its body is read.
func (g *Guard) Uploads(h web.HandlerFunc) web.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if g.Check(r.Context()).Low {
			return web.ErrInsufficientStorage
		}
		return h(w, r)
	}
}

// lowNotice announces the guard tripping to the hosts: a box-wide
// storage.low notice, enqueued on its own (no stored change causes it).
func (g *Guard) lowNotice(ctx context.Context, free int64) {
	if g.cfg.Store == nil {
		return
	}
	spec, err := store.NoticeJobSpec(store.Notice{Kind: store.NoticeStorageLow, At: g.cfg.Now().UnixMilli()},
		map[string]any{"freeBytes": free, "marginBytes": g.cfg.Margin})
	if err == nil {
		_, err = g.cfg.Store.Jobs().Enqueue(ctx, spec)
	}
	if err != nil {
		g.cfg.Logger.WarnContext(ctx, "storage.low notice not queued", "error", err)
		return
	}
	if g.cfg.Nudge != nil {
		g.cfg.Nudge(store.NoticeJobKind)
	}
}
