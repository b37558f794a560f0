package network

import (
	"context"
	"net/netip"
	"sort"
	"time"

	"eventbox/daemon/web"
	"eventbox/netsetup"
	"eventbox/store"
)

// The crowd watch's defaults (docs/decisions/trust.md, "The evening on the
// radio").
const (
	// DefaultSampleEvery is how often the phones on the hotspot are counted.
	DefaultSampleEvery = time.Minute
	// DefaultFullNotice is how long the hotspot must stay nearly full
	// (at or above its figure less one) before the hosts are told.
	DefaultFullNotice = 10 * time.Minute
	// DefaultLetGoIdle is how long a phone must have made no request,
	// with none in progress, before the box may let it go while the
	// hotspot is nearly full.
	DefaultLetGoIdle = 5 * time.Minute
	// SpareSlots is how many free slots letting go keeps.
	SpareSlots = 2
	// SampleKeep is how far back the samples are kept.
	SampleKeep = 24 * time.Hour
)

// Samples keep the evening's samples (store.Network).
type Samples interface {
	// AddPhoneSample stores a sample and forgets those before keepFrom.
	AddPhoneSample(ctx context.Context, p store.PhoneSample, keepFrom int64) error
	// PhoneSamples answers the samples from since on, oldest first.
	PhoneSamples(ctx context.Context, since int64) ([]store.PhoneSample, error)
}

// Activity says what the box knows of an address's requests
// (web.Activity).
type Activity interface {
	// Of answers the address's last request and requests in progress.
	Of(addr netip.Addr) (web.AddressActivity, bool)
}

// CrowdConfig is the crowd watch's clock and thresholds.
type CrowdConfig struct {
	// Every is how often it counts (DefaultSampleEvery when 0).
	Every time.Duration
	// FullNotice is how long nearly full before the hosts are told
	// (DefaultFullNotice when 0).
	FullNotice time.Duration
	// LetGoIdle is how idle a phone must be to be let go
	// (DefaultLetGoIdle when 0); negative: never let a phone go.
	LetGoIdle time.Duration
	// Now and After are the clock; nil uses time.Now and time.After.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
}

func (c *CrowdConfig) defaults() {
	if c.Every <= 0 {
		c.Every = DefaultSampleEvery
	}
	if c.FullNotice <= 0 {
		c.FullNotice = DefaultFullNotice
	}
	if c.LetGoIdle == 0 {
		c.LetGoIdle = DefaultLetGoIdle
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.After == nil {
		c.After = time.After
	}
}

// CrowdWatch is the watch of the phones on the hotspot: a service the
// daemon runs (API.Crowd).
type CrowdWatch struct {
	a       *API
	cfg     CrowdConfig
	started time.Time
}

// Crowd is the service that counts the phones on the hotspot every
// CrowdConfig.Every, keeps the samples and, while the hotspot is nearly
// full, lets its idle phones go.
func (a *API) Crowd() *CrowdWatch { return &CrowdWatch{a: a, cfg: a.crowdCfg} }

// Run counts until ctx ends; it returns nil then.
func (c *CrowdWatch) Run(ctx context.Context) error {
	c.started = c.cfg.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c.cfg.After(c.cfg.Every):
		}
		c.Tick(ctx)
	}
}

// Tick is one look at the hotspot: count, let idle phones go when nearly
// full, store the sample. Nothing is stored while the hotspot is down or
// the radio does not answer (the chart shows a gap).
func (c *CrowdWatch) Tick(ctx context.Context) {
	a := c.a
	if !a.available(ctx) {
		return
	}
	if up, err := a.box.HotspotActive(ctx); err != nil || !up {
		return
	}
	now := c.cfg.Now()
	stations, err := a.box.StationList(ctx)
	if err != nil {
		a.log.InfoContext(ctx, "counting the phones on the hotspot", "error", err)
		return
	}
	_, _, rc, err := a.radioCapacity(ctx)
	if err != nil {
		a.log.WarnContext(ctx, "reading the radio's phone figure", "error", err)
	}
	capacity := rc.Phones
	s := store.PhoneSample{At: now.UnixMilli(), Phones: len(stations), Capacity: capacity}
	if capacity > 0 && len(stations) >= capacity-1 && c.cfg.LetGoIdle > 0 {
		s.LetGo = c.letGo(ctx, now, stations, capacity)
	}
	if a.samples == nil {
		return
	}
	if err := a.samples.AddPhoneSample(ctx, s, now.Add(-SampleKeep).UnixMilli()); err != nil {
		a.log.WarnContext(ctx, "keeping the count of the phones", "error", err)
	}
}

// letGo disconnects the idle phones, the longest idle first, as many as
// it takes for SpareSlots to be free, and answers how many went. A phone
// with a request in progress (an upload) is never let go; nor one whose
// idleness cannot be told (the neighbour table unreadable).
func (c *CrowdWatch) letGo(ctx context.Context, now time.Time, stations []netsetup.Station, capacity int) int {
	a := c.a
	need := len(stations) - (capacity - SpareSlots)
	if need <= 0 || a.activity == nil {
		return 0
	}
	neigh, err := a.box.Neighbours(ctx)
	if err != nil {
		a.log.WarnContext(ctx, "reading the neighbour table: no phone let go", "error", err)
		return 0
	}
	idle := IdlePhones(now, c.started, c.cfg.LetGoIdle, stations, neigh, a.activity)
	gone := 0
	for _, p := range idle[:min(need, len(idle))] {
		if err := a.box.LetGo(ctx, p.MAC); err != nil {
			a.log.WarnContext(ctx, "letting an idle phone go", "error", err)
			continue
		}
		gone++
		a.log.InfoContext(ctx, "let an idle phone go from the nearly full hotspot", "idle", p.Idle.Round(time.Second),
			"phones", len(stations), "capacity", capacity)
	}
	return gone
}

// IdlePhone is a phone the box may let go, and for how long it has been
// idle.
type IdlePhone struct {
	MAC  string
	Idle time.Duration
}

// IdlePhones lists the phones of stations idle for at least idleFor at
// now, the longest idle first. A phone is idle since the latest of: the
// watch's start (nothing is known before), its joining the hotspot (when
// the radio says how long ago, even 0 seconds), and
// the end of the last request of any of its addresses (neigh maps a
// radio's MAC to its addresses). A phone with a request in progress on
// any of its addresses is never listed.
func IdlePhones(now, started time.Time, idleFor time.Duration, stations []netsetup.Station, neigh map[string][]netip.Addr, act Activity) []IdlePhone {
	var out []IdlePhone
	for _, st := range stations {
		since := started
		if st.ConnectedKnown {
			// The radio counts whole seconds: 0 is a phone that joined in
			// the last second, which has had no time to make a request.
			if j := now.Add(-st.Connected); j.After(since) {
				since = j
			}
		}
		busy := false
		for _, ip := range neigh[st.MAC] {
			if x, ok := act.Of(ip); ok {
				busy = busy || x.InFlight > 0
				if x.Last.After(since) {
					since = x.Last
				}
			}
		}
		if idle := now.Sub(since); !busy && idle >= idleFor {
			out = append(out, IdlePhone{MAC: st.MAC, Idle: idle})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Idle != out[j].Idle {
			return out[i].Idle > out[j].Idle
		}
		return out[i].MAC < out[j].MAC
	})
	return out
}

// Crowded says whether the hotspot has stayed nearly full (at or above
// its figure less one) for at least full by now, and since when, from the
// samples, oldest first. A gap of more than two sample periods (the
// hotspot down, the box off) breaks the run, and the last sample must be
// recent.
func Crowded(samples []store.PhoneSample, now time.Time, every, full time.Duration) (since int64, crowded bool) {
	gap := 2 * every.Milliseconds()
	next := now.UnixMilli()
	for i := len(samples) - 1; i >= 0; i-- {
		s := samples[i]
		if next-s.At > gap || s.Capacity <= 0 || s.Phones < s.Capacity-1 {
			break
		}
		since, next = s.At, s.At
	}
	if since == 0 {
		return 0, false
	}
	return since, now.UnixMilli()-since >= full.Milliseconds()
}
