package daemon

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

// The storage guard (docs/decisions.md, "Storage guard") watches the free
// space of DATA_DIR's file system. Below the margin it refuses new uploads
// and voice notes before their body is read (507 insufficient_storage),
// tells the hosts (the console banner, a storage.low notice) and reopens by
// itself once the free space is back above the margin and an eighth of it
// more, so that a card hovering at the margin does not flap.

// dbGrowth is the database's part of the margin: bbolt grows its file by
// up to 16 MiB (AllocSize) at a time, and a migration copies the file
// first; 64 MiB covers several growth steps of a database that is itself
// a few MiB to tens of MiB at a wedding.
const dbGrowth = 64 << 20

// defaultMargin is the storage guard's margin for cfg: room for two of
// the largest uploads at once (a video of MAX_VIDEO_MB sits whole in the
// temp area before it is moved into place, and a second one may be on its
// way when the guard trips), their variants (a few MiB at most), and the
// database's growth. 464 MiB with the default limits.
func defaultMargin(cfg Config) int64 {
	largest := int64(max(cfg.MaxUploadMB, cfg.MaxVideoMB)) << 20
	return 2*largest + dbGrowth
}

// statfsFree answers the bytes an unprivileged process may still write on
// the file system of path.
func statfsFree(path string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("reading free space of %s: %w", path, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// storageGuard is the state of the guard. Its methods are safe for
// concurrent use.
type storageGuard struct {
	dir    string
	margin int64
	free   func(path string) (int64, error)
	log    *slog.Logger
	// notify is called when the guard trips (low true) or reopens (low
	// false), outside the lock.
	notify func(ctx context.Context, low bool, free int64)

	mu       sync.Mutex
	low      bool
	lastFree int64
}

func newStorageGuard(cfg Config, log *slog.Logger, notify func(ctx context.Context, low bool, free int64)) *storageGuard {
	g := &storageGuard{dir: cfg.DataDir, margin: cfg.StorageMargin, free: cfg.Statfs, log: log, notify: notify}
	if g.margin <= 0 {
		g.margin = defaultMargin(cfg)
	}
	if g.free == nil {
		g.free = statfsFree
	}
	return g
}

// storageState is what the guard last saw.
type storageState struct {
	Low    bool
	Free   int64
	Margin int64
}

// check measures the free space now, updates the state, and answers it.
// A failing statfs keeps the previous state.
func (g *storageGuard) check(ctx context.Context) storageState {
	free, err := g.free(g.dir)
	g.mu.Lock()
	if err != nil {
		st := storageState{Low: g.low, Free: g.lastFree, Margin: g.margin}
		g.mu.Unlock()
		g.log.WarnContext(ctx, "free space unknown", "error", err)
		return st
	}
	was := g.low
	switch {
	case !g.low && free < g.margin:
		g.low = true
	case g.low && free >= g.margin+g.margin/8:
		g.low = false
	}
	g.lastFree = free
	st := storageState{Low: g.low, Free: free, Margin: g.margin}
	g.mu.Unlock()
	if st.Low != was {
		if st.Low {
			g.log.WarnContext(ctx, "storage low: uploads refused until space is freed", "free_bytes", free, "margin_bytes", g.margin)
		} else {
			g.log.InfoContext(ctx, "storage back: uploads open again", "free_bytes", free, "margin_bytes", g.margin)
		}
		if g.notify != nil {
			g.notify(ctx, st.Low, free)
		}
	}
	return st
}

// room answers the bytes that may still be written before the margin.
func (g *storageGuard) room(ctx context.Context) int64 {
	st := g.check(ctx)
	return st.Free - st.Margin
}

// storageWatch is how often the guard looks without an upload asking.
const storageWatch = 30 * time.Second

// watch checks every storageWatch until ctx ends, so the hosts hear of a
// card filling up (and of space coming back) without an upload.
func (g *storageGuard) watch(ctx context.Context) {
	t := time.NewTicker(storageWatch)
	defer t.Stop()
	for {
		g.check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// guardStorage refuses an upload with 507 insufficient_storage while the
// card is below the margin, before its body is read.
func (s *Server) guardStorage(h web.HandlerFunc) web.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if s.storage.check(r.Context()).Low {
			return web.ErrInsufficientStorage
		}
		return h(w, r)
	}
}

// storageLowNotice announces the guard tripping to the hosts: a box-wide
// storage.low notice, enqueued on its own (no stored change causes it).
func (s *Server) storageLowNotice(ctx context.Context, low bool, free int64) {
	if !low {
		return
	}
	spec, err := store.NoticeJobSpec(store.Notice{Kind: store.NoticeStorageLow, At: s.now().UnixMilli()},
		map[string]any{"freeBytes": free, "marginBytes": s.storage.margin})
	if err == nil {
		_, err = s.store.Jobs().Enqueue(ctx, spec)
	}
	if err != nil {
		s.log.WarnContext(ctx, "storage.low notice not queued", "error", err)
		return
	}
	s.jobs.Notify(store.NoticeJobKind)
}

// handleStorage is GET /api/admin/storage (an added route): the storage
// guard's state, for the console's banner.
func (s *Server) handleStorage(w http.ResponseWriter, r *http.Request) error {
	st := s.storage.check(r.Context())
	return web.JSON(w, r, http.StatusOK, storageDTO{Low: st.Low, FreeBytes: st.Free, MarginBytes: st.Margin})
}

// StorageMargin is the free space the storage guard keeps on the card
// with cfg, in bytes: cfg.StorageMargin, or the default figure. The
// command line's restore keeps the same room.
func StorageMargin(cfg Config) int64 {
	if cfg.StorageMargin > 0 {
		return cfg.StorageMargin
	}
	return defaultMargin(cfg)
}

// FreeSpace answers the bytes that may still be written on the file
// system of path (statfs).
func FreeSpace(path string) (int64, error) { return statfsFree(path) }
