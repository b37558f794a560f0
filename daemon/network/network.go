// Package network is the console's Network screen, for owners: the
// hotspot (name, password, channel, country, on/off, its Wi-Fi QR code),
// Ethernet, the Wi-Fi networks in range and joining one at home, going
// back to the hotspot by hand, whether the box reaches the internet, and
// when mail, webhooks and the cloud export last got through
// (/api/admin/network…).
//
// The network itself is NetworkManager, reached through netsetup with
// nmcli as the daemon's own unprivileged user (docs/decisions/trust.md,
// "The Network screen: what the daemon may change"); Box is that, behind
// a small interface, and NM its implementation over a netsetup.Runner,
// which tests replace with netsetup/nmtest. Joining a network arms the
// netsetup.Fallback that API.Fallback returns (a service the daemon
// runs), so that a wrong password or a lost router brings the hotspot
// back within two minutes.
//
// The screen also says how many phones are on the hotspot and about how
// many its radio holds (phones.go); the crowd watch (crowd.go) counts
// them every minute for the evening's chart, tells the hosts when the
// hotspot stays nearly full, and then lets idle phones go
// (GET /api/admin/phones, history.go).
//
// Without a Runner, or when NetworkManager does not answer (a developer's
// machine), GET /api/admin/network answers available:false and the
// routes that change something answer 503 unavailable.
package network

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"eventbox/netsetup"
	"eventbox/qr"
	"eventbox/store"
)

// Box is what the screen uses of the network: netsetup over nmcli (NM).
type Box interface {
	// Available reports whether NetworkManager answers.
	Available(ctx context.Context) bool
	// Hotspot reads the hotspot connection.
	Hotspot(ctx context.Context) (netsetup.HotspotState, error)
	// Country is the radio's Wi-Fi country, "" when unset or unknown.
	Country(ctx context.Context) string
	// SetHotspot changes the hotspot; setCountry when its country changes.
	SetHotspot(ctx context.Context, o netsetup.HotspotOptions, on, exists, setCountry bool) error
	// Scan lists the networks in range.
	Scan(ctx context.Context) ([]netsetup.Network, error)
	// Join joins a network as the home Wi-Fi.
	Join(ctx context.Context, ssid, password string) error
	// Ethernet is the first Ethernet device's state.
	Ethernet(ctx context.Context) (netsetup.Link, error)
	// Connectivity is NetworkManager's verdict on the internet.
	Connectivity(ctx context.Context) (netsetup.Connectivity, error)
	// Capability is what the radio can do at once.
	Capability(ctx context.Context) (netsetup.Capability, error)
	// Radio is the hotspot's radio: driver, chip and firmware.
	Radio(ctx context.Context) (netsetup.Radio, error)
	// Stations counts the phones associated with the radio.
	Stations(ctx context.Context) (int, error)
	// StationList lists the phones associated with the radio.
	StationList(ctx context.Context) ([]netsetup.Station, error)
	// Neighbours maps the hotspot's phones' MACs to their addresses.
	Neighbours(ctx context.Context) (map[string][]netip.Addr, error)
	// LetGo disconnects one phone from the hotspot.
	LetGo(ctx context.Context, mac string) error
	netsetup.HomeLink
}

// NM is Box through netsetup and nmcli.
type NM struct {
	// WiFi is the radio as a client; its Runner runs nmcli and iw.
	WiFi netsetup.WiFi
	// TmpDir holds the join's password file while nmcli reads it
	// (os.TempDir when empty).
	TmpDir string
}

var _ Box = NM{}

// Available implements Box.
func (n NM) Available(ctx context.Context) bool { return netsetup.Running(ctx, n.WiFi.Runner) }

// Hotspot implements Box.
func (n NM) Hotspot(ctx context.Context) (netsetup.HotspotState, error) {
	return netsetup.ReadHotspot(ctx, n.WiFi.Runner, n.WiFi.Hotspot)
}

// Country implements Box.
func (n NM) Country(ctx context.Context) string { return netsetup.ReadCountry(ctx, n.WiFi.Runner) }

// SetHotspot implements Box: netsetup's plan, carried out by its Applier.
func (n NM) SetHotspot(ctx context.Context, o netsetup.HotspotOptions, on, exists, setCountry bool) error {
	o.Interface, o.Connection = n.WiFi.Interface, n.WiFi.Hotspot
	plan, err := netsetup.PlanHotspotNM(o, on, exists, setCountry)
	if err != nil {
		return err
	}
	return netsetup.Applier{Runner: n.WiFi.Runner, Logger: n.WiFi.Logger}.Apply(ctx, plan)
}

// Scan implements Box.
func (n NM) Scan(ctx context.Context) ([]netsetup.Network, error) { return n.WiFi.Scan(ctx) }

// Join implements Box.
func (n NM) Join(ctx context.Context, ssid, password string) error {
	return n.WiFi.JoinNM(ctx, ssid, password, n.TmpDir)
}

// Ethernet implements Box.
func (n NM) Ethernet(ctx context.Context) (netsetup.Link, error) { return n.WiFi.Ethernet(ctx) }

// Connectivity implements Box.
func (n NM) Connectivity(ctx context.Context) (netsetup.Connectivity, error) {
	return n.WiFi.Connectivity(ctx)
}

// Capability implements Box.
func (n NM) Capability(ctx context.Context) (netsetup.Capability, error) {
	return n.WiFi.Capability(ctx)
}

// Radio implements Box.
func (n NM) Radio(ctx context.Context) (netsetup.Radio, error) { return n.WiFi.Radio(ctx) }

// Stations implements Box.
func (n NM) Stations(ctx context.Context) (int, error) { return n.WiFi.Stations(ctx) }

// StationList implements Box.
func (n NM) StationList(ctx context.Context) ([]netsetup.Station, error) {
	return n.WiFi.StationList(ctx)
}

// Neighbours implements Box.
func (n NM) Neighbours(ctx context.Context) (map[string][]netip.Addr, error) {
	return n.WiFi.Neighbours(ctx)
}

// LetGo implements Box.
func (n NM) LetGo(ctx context.Context, mac string) error { return n.WiFi.LetGo(ctx, mac) }

// HomeConnected implements netsetup.HomeLink.
func (n NM) HomeConnected(ctx context.Context) (bool, error) { return n.WiFi.HomeConnected(ctx) }

// HotspotUp implements netsetup.HomeLink.
func (n NM) HotspotUp(ctx context.Context) error { return n.WiFi.HotspotUp(ctx) }

// HotspotActive implements netsetup.HomeLink.
func (n NM) HotspotActive(ctx context.Context) (bool, error) { return n.WiFi.HotspotActive(ctx) }

// Jobs is what the screen reads of the job store (store.Jobs): the last
// mail, webhook and export that got through.
type Jobs interface {
	// List lists jobs newest first, filtered by kind.
	List(ctx context.Context, f store.JobFilter) (store.JobPage, error)
}

// Settings are the screen's own settings (store.Network).
type Settings interface {
	// Settings answers the stored settings.
	Settings(ctx context.Context) (store.NetworkSettings, error)
	// SaveSettings stores them.
	SaveSettings(ctx context.Context, ns store.NetworkSettings) error
}

// QR draws the hotspot's Wi-Fi QR code (qr.Renderer).
type QR interface {
	// SVG writes the code of content as SVG, size pixels wide.
	SVG(w io.Writer, content string, size int, st qr.Style, caption string) error
}

// Config is what the Network screen needs.
type Config struct {
	// Box is the network; nil: not available on this machine.
	Box Box
	// Jobs are read for the last deliveries. Must not be nil.
	Jobs Jobs
	// Settings keep the owner's figure of how many phones the radio
	// holds; nil: none, and the figure cannot be given.
	Settings Settings
	// PhoneCapacity is the configuration's figure (WIFI_PHONE_CAPACITY);
	// 0: none.
	PhoneCapacity int
	// QR draws the Wi-Fi QR code. Must not be nil.
	QR QR
	// Samples keep the evening's counts of the phones; nil: none kept.
	Samples Samples
	// Activity is the requests per client address (web.Activity); nil:
	// no phone is ever let go.
	Activity Activity
	// Crowd is the crowd watch's clock and thresholds.
	Crowd CrowdConfig
	// NAT counts the browsers behind each address, to tell an access
	// point in router mode (NATWatch); nil: none.
	NAT *NATWatch
	// Logger receives the changes. Nil discards.
	Logger *slog.Logger
	// Grace is how long the home Wi-Fi may be missing before the hotspot
	// comes back (netsetup.DefaultFallbackGrace when 0); Every how often
	// it is looked at.
	Grace, Every time.Duration
}

// API is the Network screen's routes.
type API struct {
	box      Box
	jobs     Jobs
	settings Settings
	capacity int
	qr       QR
	log      *slog.Logger
	fallback *netsetup.Fallback
	grace    time.Duration
	samples  Samples
	activity Activity
	crowdCfg CrowdConfig
	nat      *NATWatch

	mu      sync.Mutex
	joining bool
	joinErr string // why the last join failed, "" when it did not
	joins   sync.WaitGroup
}

// New returns the screen's routes over cfg.
func New(cfg Config) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Grace <= 0 {
		cfg.Grace = netsetup.DefaultFallbackGrace
	}
	a := &API{box: cfg.Box, jobs: cfg.Jobs, settings: cfg.Settings, capacity: cfg.PhoneCapacity, qr: cfg.QR, log: cfg.Logger, grace: cfg.Grace, nat: cfg.NAT}
	cfg.Crowd.defaults()
	a.samples, a.activity, a.crowdCfg = cfg.Samples, cfg.Activity, cfg.Crowd
	var link netsetup.HomeLink = noLink{}
	if cfg.Box != nil {
		link = cfg.Box
	}
	a.fallback = netsetup.NewFallback(netsetup.FallbackConfig{Link: link, Grace: cfg.Grace, Every: cfg.Every, Logger: cfg.Logger})
	return a
}

// Fallback is the watcher that brings the hotspot back after a failed or
// lost join: a service the daemon runs (netsetup.Fallback.Run).
func (a *API) Fallback() *netsetup.Fallback { return a.fallback }

// WaitJoins waits for the joins running in the background (tests).
func (a *API) WaitJoins() { a.joins.Wait() }

// noLink is the fall-back's link where there is no network to watch.
type noLink struct{}

func (noLink) HomeConnected(context.Context) (bool, error) { return false, nil }
func (noLink) HotspotUp(context.Context) error             { return nil }
func (noLink) HotspotActive(context.Context) (bool, error) { return false, nil }
