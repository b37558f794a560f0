package netsetup

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Defaults of FallbackConfig.
const (
	DefaultFallbackGrace = 2 * time.Minute
	DefaultFallbackEvery = 5 * time.Second
)

// HomeLink is what the fall-back watcher needs of the Wi-Fi; WiFi has it.
type HomeLink interface {
	// HomeConnected reports whether the home Wi-Fi is up.
	HomeConnected(ctx context.Context) (bool, error)
	// HotspotUp gives the home Wi-Fi up and brings the hotspot back.
	HotspotUp(ctx context.Context) error
	// HotspotActive reports whether the hotspot is up.
	HotspotActive(ctx context.Context) (bool, error)
}

// FallbackConfig configures a Fallback.
type FallbackConfig struct {
	// Link is looked at and acted on. Must not be nil.
	Link HomeLink
	// Grace is how long the home Wi-Fi may be missing, after a join or once
	// lost, before the hotspot comes back (DefaultFallbackGrace when 0).
	Grace time.Duration
	// Every is how often the link is looked at (DefaultFallbackEvery when 0).
	Every time.Duration
	// Now and After are the clock; nil uses time.Now and time.After.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	// Logger receives why the hotspot came back. Must not be nil.
	Logger *slog.Logger
}

// Fallback brings the hotspot back when the home Wi-Fi the box was told to
// join is not connected within Grace, or is lost for longer than Grace, so
// that a wrong password or a router switched off never leaves a box without
// screen or keyboard out of reach. It watches only once armed by Joined,
// and stops watching once it brought the hotspot back or is Disarmed. When
// the join itself failed (JoinFailed) and NetworkManager has already put
// the hotspot back on a radio that cannot do both, the watcher counts that
// as the fall-back at once and leaves the radio alone: bringing an active
// hotspot up again would drop the phones on it.
type Fallback struct {
	cfg FallbackConfig

	mu      sync.Mutex
	armed   bool
	ssid    string
	since   time.Time // when the link was last seen up, or the join
	everUp  bool
	failed  bool   // the join of ssid ended in failure
	gen     uint64 // counts the joins: a check acts only on the join it looked at
	fellBak int
}

// NewFallback returns a Fallback, not armed.
func NewFallback(cfg FallbackConfig) *Fallback {
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultFallbackGrace
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultFallbackEvery
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.After == nil {
		cfg.After = time.After
	}
	return &Fallback{cfg: cfg}
}

// Joined arms the watcher: the box is joining ssid now. Call it before
// WiFi.Join, whose failure then brings the hotspot back after Grace too.
func (f *Fallback) Joined(ssid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed, f.ssid, f.since, f.everUp, f.failed = true, ssid, f.cfg.Now(), false, false
	f.gen++
}

// JoinFailed tells the watcher that the join of ssid ended in failure:
// once the hotspot is seen up again it stops watching, fallen back.
func (f *Fallback) JoinFailed(ssid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.armed && f.ssid == ssid {
		f.failed = true
	}
}

// Disarm stops watching: the host chose the hotspot (or went offline) by
// hand.
func (f *Fallback) Disarm() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed = false
}

// FallbackState is what the watcher knows, for a status screen.
type FallbackState struct {
	// Armed is true while the watcher waits for or watches the home Wi-Fi.
	Armed bool
	// SSID is the home network joined last.
	SSID string
	// Connected is true once the home Wi-Fi was seen up since the join.
	Connected bool
	// FellBack counts the times the hotspot was brought back.
	FellBack int
}

// State returns what the watcher knows.
func (f *Fallback) State() FallbackState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return FallbackState{Armed: f.armed, SSID: f.ssid, Connected: f.armed && f.everUp, FellBack: f.fellBak}
}

// Run looks at the link every Every until ctx ends; it returns nil then.
func (f *Fallback) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-f.cfg.After(f.cfg.Every):
		}
		f.check(ctx)
	}
}

// check looks once: it notes the link up, or brings the hotspot back when
// it has been missing for Grace.
func (f *Fallback) check(ctx context.Context) {
	f.mu.Lock()
	armed, ssid, gen := f.armed, f.ssid, f.gen
	f.mu.Unlock()
	if !armed {
		return
	}
	up, err := f.cfg.Link.HomeConnected(ctx)
	if err != nil {
		// Unknown counts as missing: the grace period still runs.
		f.cfg.Logger.WarnContext(ctx, "cannot tell whether the home Wi-Fi is up", "ssid", ssid, "error", err)
	}
	f.mu.Lock()
	if !f.armed || f.gen != gen {
		f.mu.Unlock() // changed meanwhile
		return
	}
	now := f.cfg.Now()
	if up {
		f.since, f.everUp = now, true
		f.mu.Unlock()
		return
	}
	missing := now.Sub(f.since)
	everUp, failed := f.everUp, f.failed
	f.mu.Unlock()
	if failed && !everUp {
		if spot, err := f.cfg.Link.HotspotActive(ctx); err == nil && spot {
			f.cfg.Logger.InfoContext(ctx, "the home Wi-Fi could not be joined and the hotspot is back", "ssid", ssid)
			f.mu.Lock()
			if f.gen == gen && f.armed {
				f.armed = false
				f.fellBak++
			}
			f.mu.Unlock()
			return
		}
	}
	if missing < f.cfg.Grace {
		return
	}
	why := "not connected " + f.cfg.Grace.String() + " after joining (wrong password, or out of range?)"
	if everUp {
		why = "lost for " + f.cfg.Grace.String()
	}
	f.cfg.Logger.WarnContext(ctx, "home Wi-Fi "+why+": bringing the hotspot back", "ssid", ssid)
	if err := f.cfg.Link.HotspotUp(ctx); err != nil {
		f.cfg.Logger.ErrorContext(ctx, "bringing the hotspot back failed; trying again", "error", err)
		return
	}
	f.mu.Lock()
	if f.gen == gen {
		f.armed = false
		f.fellBak++
	}
	f.mu.Unlock()
}
