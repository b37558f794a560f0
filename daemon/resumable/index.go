package resumable

import (
	"math"
	"net/netip"
	"slices"
	"sync"
	"time"

	"eventbox/daemon/web"
)

// What a guest can reserve, and for how long (docs/decisions/guests.md,
// "What a guest can reserve").
const (
	// maxOpenPerGuest is how many uploads one guest may hold that have
	// no kept answer: unfinished ones, finished posters no video took
	// yet, and finished files refused for now. The page sends two files
	// at a time (and a video's poster).
	maxOpenPerGuest = 16
	// maxOpenPerAddress and maxOpenPerEvent cap the reservations (the
	// unfinished uploads still advancing) of one client address and of
	// one event, whoever the guests behind them are.
	maxOpenPerAddress = 32
	maxOpenPerEvent   = 512
	// largestPerAddress is how many of the largest files one address may
	// have reserved at once: a phone sends two at a time.
	largestPerAddress = 4
	// ShortExpiry is how long an upload with no byte in it, and a
	// finished poster no video names, are kept; it is also how long an
	// unfinished upload that stopped advancing keeps its reservation. A
	// phone that announced a file sends its first bytes within seconds.
	ShortExpiry = 10 * time.Minute
)

// entry is what the index holds of an upload without a kept answer.
type entry struct {
	slug, guest, addr, kind, filename string
	length, offset                    int64
	// touched is when the upload last advanced, epoch ms.
	touched int64
	// poster is a video's poster upload.
	poster string
	// videos counts the unfinished videos naming this poster.
	videos int
}

func entryOf(in info) *entry {
	return &entry{slug: in.Slug, guest: in.Guest, addr: in.Addr, kind: in.Kind, filename: in.Meta["filename"],
		length: in.Length, offset: in.Offset, touched: in.Touched, poster: in.Poster}
}

// complete reports whether every byte is in.
func (e *entry) complete() bool { return e.offset == e.length }

// rest is what the upload still reserves at now: the bytes not yet sent
// of an upload that advanced within ShortExpiry, else nothing.
func (e *entry) rest(now int64) int64 {
	if e.complete() || now-e.touched >= ShortExpiry.Milliseconds() {
		return 0
	}
	return e.length - e.offset
}

// until is when the upload expires, epoch ms, for uploads kept expiry
// after they last advanced: an upload with no byte in it, and a finished
// poster no video names, ShortExpiry after.
func (e *entry) until(expiry time.Duration) int64 {
	if e.offset == 0 || e.kind == KindPoster && e.complete() && e.videos == 0 {
		return e.touched + ShortExpiry.Milliseconds()
	}
	return e.touched + expiry.Milliseconds()
}

// done is a finished upload, kept until its answer expires.
type done struct {
	id    string
	until int64
}

// index is the uploads' bookkeeping in memory, loaded from their folders
// once at start and kept with every write: a creation and the sweep read
// no folder, whatever the number of finished uploads. It is safe for
// concurrent use.
type index struct {
	mu sync.Mutex
	// open are the uploads without a kept answer, by id.
	open map[string]*entry
	// finished are the uploads with a kept answer, by id, with when it
	// expires; queue holds them in the order they expire.
	finished map[string]int64
	queue    []done
	// partial are the folders found at start that are no whole upload.
	partial []string
}

func newIndex() *index {
	return &index{open: map[string]*entry{}, finished: map[string]int64{}}
}

// put records in, an upload written whole, expiring at until if it is
// finished.
func (x *index) put(in info, until int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if in.Done != nil {
		x.dropOpen(in.ID)
		if _, ok := x.finished[in.ID]; !ok {
			x.finished[in.ID] = until
			x.queue = append(x.queue, done{in.ID, until})
		}
		return
	}
	e := entryOf(in)
	if old := x.open[in.ID]; old != nil {
		e.videos = old.videos
	} else if p := x.open[e.poster]; p != nil {
		p.videos++
	}
	x.open[in.ID] = e
}

// drop forgets an upload.
func (x *index) drop(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.dropOpen(id)
	delete(x.finished, id)
}

// dropOpen forgets an upload without a kept answer; x.mu is held.
func (x *index) dropOpen(id string) {
	e := x.open[id]
	if e == nil {
		return
	}
	if p := x.open[e.poster]; p != nil && p.videos > 0 {
		p.videos--
	}
	delete(x.open, id)
}

// named reports whether an unfinished video names the poster id.
func (x *index) named(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.open[id]
	return e != nil && e.videos > 0
}

// limits are what reserve holds a new upload to.
type limits struct {
	// room is the bytes that may still be written before the storage
	// guard's margin (math.MaxInt64: no limit).
	room int64
	// perAddress is the most bytes one address may have reserved.
	perAddress int64
	// expiry is how long an upload that stopped advancing is kept.
	expiry time.Duration
}

// reserve admits in against every upload already held and records it,
// in one step, so that two creations cannot both take the last room.
func (x *index) reserve(in info, now int64, lim limits) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := admit(x.open, in, now, lim); err != nil {
		return err
	}
	e := entryOf(in)
	if p := x.open[e.poster]; p != nil {
		p.videos++
	}
	x.open[in.ID] = e
	return nil
}

// admit refuses in when its guest holds maxOpenPerGuest uploads (429),
// its address or event too many reservations (429), or when the card has
// no room for it once every reservation is counted (507). Every sum
// saturates: lengths are capped before they get here, and no sum wraps.
func admit(open map[string]*entry, in info, now int64, lim limits) error {
	mine, perAddr, perEvent := 0, 0, 0
	reserved, addrReserved := int64(0), in.Length
	for _, e := range open {
		if e.until(lim.expiry) <= now {
			continue // expired: the sweep removes it
		}
		if e.guest == in.Guest {
			mine++
		}
		r := e.rest(now)
		if r == 0 {
			continue
		}
		reserved = addSat(reserved, r)
		if e.addr == in.Addr {
			perAddr++
			addrReserved = addSat(addrReserved, r)
		}
		if e.slug == in.Slug {
			perEvent++
		}
	}
	switch {
	case mine >= maxOpenPerGuest, perAddr >= maxOpenPerAddress, perEvent >= maxOpenPerEvent,
		addrReserved > lim.perAddress:
		return web.RateLimited(60)
	case addSat(reserved, in.Length) > lim.room:
		return web.ErrInsufficientStorage
	}
	return nil
}

// addSat adds two non-negative sizes, stopping at math.MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// reserved answers the bytes every upload still reserves at now.
func (x *index) reserved(now int64) int64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	var sum int64
	for _, e := range x.open {
		sum = addSat(sum, e.rest(now))
	}
	return sum
}

// expiredAt answers the finished uploads whose answer expired by now,
// and the other uploads that expired (entry.until).
func (x *index) expiredAt(now int64, expiry time.Duration) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var ids []string
	for len(x.queue) > 0 && x.queue[0].until <= now {
		d := x.queue[0]
		x.queue = x.queue[1:]
		if u, ok := x.finished[d.id]; ok && u == d.until {
			ids = append(ids, d.id)
		}
	}
	for id, e := range x.open {
		if e.until(expiry) <= now {
			ids = append(ids, id)
		}
	}
	return ids
}

// requeue puts a finished upload the sweep could not remove (a request
// held it) back in the queue, for the next sweep.
func (x *index) requeue(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if u, ok := x.finished[id]; ok {
		x.queue = append(x.queue, done{id, u})
	}
}

// sortQueue orders the finished uploads by expiry, after a load.
func (x *index) sortQueue() {
	x.mu.Lock()
	defer x.mu.Unlock()
	slices.SortFunc(x.queue, func(a, b done) int {
		switch {
		case a.until < b.until:
			return -1
		case a.until > b.until:
			return 1
		}
		return 0
	})
}

// snapshot answers a copy of the uploads without a kept answer.
func (x *index) snapshot() map[string]entry {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make(map[string]entry, len(x.open))
	for id, e := range x.open {
		out[id] = *e
	}
	return out
}

// snapshotOne answers a copy of one upload without a kept answer.
func (x *index) snapshotOne(id string) (entry, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.open[id]
	if e == nil {
		return entry{}, false
	}
	return *e, true
}

// takePartial answers the half-made folders found at start, once.
func (x *index) takePartial() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := x.partial
	x.partial = nil
	return p
}

// addressKey is the key of a client address for the per-address limits:
// an IPv4 address itself, an IPv6 address's /64 (one device can take
// many addresses in its prefix).
func addressKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.WithZone("").Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}
