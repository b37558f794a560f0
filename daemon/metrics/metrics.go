// Package metrics holds the daemon's Prometheus metrics in a registry of
// its own (never the global one): HTTP requests by route and status,
// request durations, uploads by kind, media processing time, and the
// box's vitals read at each scrape (free space, outbox, SoC temperature
// and throttling, age of the last backup), plus the Go runtime's.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Config holds what the metrics read at scrape time.
type Config struct {
	// DataDir is where free space is measured; must not be empty.
	DataDir string
	// SysRoot is where /sys is found; empty means "/" (tests point it at
	// a directory of fake files).
	SysRoot string
	// Pending answers the unfinished jobs by kind (the outbox); nil: not
	// reported.
	Pending func(ctx context.Context) (map[string]int, error)
	// LastBackup answers when the last good backup was made; nil, or
	// false: not reported.
	LastBackup func() (time.Time, bool)
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Logger must not be nil.
	Logger *slog.Logger
}

// Metrics is the daemon's registry and the metrics it updates. Its
// methods are safe for concurrent use.
type Metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	durations  *prometheus.HistogramVec
	uploads    *prometheus.CounterVec
	processing prometheus.Histogram

	// routes caches each (route, code) counter and each route's
	// histogram, so that a request costs a map lookup, not a label hash
	// and a slice.
	mu     sync.RWMutex
	counts map[routeCode]prometheus.Counter
	timers map[string]prometheus.Observer
	codes  [600]string
}

type routeCode struct {
	route string
	code  int
}

// New registers every metric in a new registry.
func New(cfg Config) (*Metrics, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SysRoot == "" {
		cfg.SysRoot = "/"
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "eventbox_http_requests_total",
			Help: "HTTP requests by route pattern and status code.",
		}, []string{"route", "code"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "eventbox_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route pattern.",
			Buckets: []float64{.005, .025, .1, .25, .5, 1, 2.5, 10, 60},
		}, []string{"route"}),
		uploads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "eventbox_uploads_total",
			Help: "Uploads stored, by kind (photo, video, voice, import).",
		}, []string{"kind"}),
		processing: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "eventbox_media_processing_seconds",
			Help:    "Time to make one photo's variants (thumb and display).",
			Buckets: []float64{.1, .25, .5, 1, 2, 4, 8, 16, 32},
		}),
		counts: map[routeCode]prometheus.Counter{},
		timers: map[string]prometheus.Observer{},
	}
	// Every kind shows from the start, at 0, so a rate over it works
	// before the first upload.
	for _, kind := range UploadKinds() {
		m.uploads.WithLabelValues(kind)
	}
	for c := range m.codes {
		m.codes[c] = strconv.Itoa(c)
	}
	err := errors.Join(
		m.reg.Register(m.requests),
		m.reg.Register(m.durations),
		m.reg.Register(m.uploads),
		m.reg.Register(m.processing),
		m.reg.Register(collectors.NewGoCollector()),
		m.reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})),
		m.reg.Register(newVitals(cfg)),
	)
	if err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	return m, nil
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Request counts one answered request. route is the router's pattern
// ("/api/e/:slug/photos"), never the raw path; code is the status.
func (m *Metrics) Request(route string, code int, d time.Duration) {
	if code < 100 || code >= len(m.codes) {
		code = 0
	}
	key := routeCode{route, code}
	m.mu.RLock()
	c, okc := m.counts[key]
	t, okt := m.timers[route]
	m.mu.RUnlock()
	if !okc || !okt {
		c, t = m.add(key)
	}
	c.Inc()
	t.Observe(d.Seconds())
}

// add creates the series of key; the first request of a route and code
// pays for it.
func (m *Metrics) add(key routeCode) (prometheus.Counter, prometheus.Observer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.counts[key]
	if !ok {
		c = m.requests.WithLabelValues(key.route, m.codes[key.code])
		m.counts[key] = c
	}
	t, ok := m.timers[key.route]
	if !ok {
		t = m.durations.WithLabelValues(key.route)
		m.timers[key.route] = t
	}
	return c, t
}

// UploadKinds are the kind labels of eventbox_uploads_total.
func UploadKinds() []string { return []string{"photo", "video", "voice", "import"} }

// Upload counts one stored upload of kind (one of UploadKinds).
func (m *Metrics) Upload(kind string) { m.uploads.WithLabelValues(kind).Inc() }

// Processing records the time one photo's variants took.
func (m *Metrics) Processing(d time.Duration) { m.processing.Observe(d.Seconds()) }

// vitals reads the box's state at each scrape.
type vitals struct {
	cfg                                       Config
	free, pending, temp, throttled, backupAge *prometheus.Desc
}

func newVitals(cfg Config) *vitals {
	return &vitals{
		cfg:  cfg,
		free: prometheus.NewDesc("eventbox_storage_free_bytes", "Bytes free for eventbox on the DATA_DIR filesystem.", nil, nil),
		pending: prometheus.NewDesc("eventbox_outbox_pending", "Unfinished background jobs (webhooks, mail, notices, variants…) by kind.",
			[]string{"kind"}, nil),
		temp: prometheus.NewDesc("eventbox_soc_temperature_celsius", "SoC temperature (thermal_zone0), where /sys has it.", nil, nil),
		throttled: prometheus.NewDesc("eventbox_soc_throttled", "The firmware's get_throttled bits (bit 0 under-voltage, 2 throttled, 3 soft temperature limit; bits 16-19 the same since boot), on a Raspberry Pi.",
			nil, nil),
		backupAge: prometheus.NewDesc("eventbox_backup_age_seconds", "Seconds since the last good backup; absent before the first.", nil, nil),
	}
}

func (v *vitals) Describe(ch chan<- *prometheus.Desc) {
	ch <- v.free
	ch <- v.pending
	ch <- v.temp
	ch <- v.throttled
	ch <- v.backupAge
}

func (v *vitals) Collect(ch chan<- prometheus.Metric) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(v.cfg.DataDir, &fs); err == nil {
		ch <- prometheus.MustNewConstMetric(v.free, prometheus.GaugeValue, float64(fs.Bavail)*float64(fs.Bsize))
	} else {
		v.cfg.Logger.Warn("metrics: reading free space", "error", err)
	}
	if v.cfg.Pending != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		byKind, err := v.cfg.Pending(ctx)
		cancel()
		if err != nil {
			v.cfg.Logger.Warn("metrics: counting unfinished jobs", "error", err)
		}
		for kind, n := range byKind {
			ch <- prometheus.MustNewConstMetric(v.pending, prometheus.GaugeValue, float64(n), kind)
		}
	}
	if mc, ok := v.readInt("sys/class/thermal/thermal_zone0/temp", 10); ok {
		ch <- prometheus.MustNewConstMetric(v.temp, prometheus.GaugeValue, float64(mc)/1000)
	}
	if bits, ok := v.readInt("sys/devices/platform/soc/soc:firmware/get_throttled", 0); ok {
		ch <- prometheus.MustNewConstMetric(v.throttled, prometheus.GaugeValue, float64(bits))
	}
	if v.cfg.LastBackup != nil {
		if at, ok := v.cfg.LastBackup(); ok {
			ch <- prometheus.MustNewConstMetric(v.backupAge, prometheus.GaugeValue, v.cfg.Now().Sub(at).Seconds())
		}
	}
}

// readInt reads a number from a /sys file (base 0 takes "0x…" too); false
// when the file is not there.
func (v *vitals) readInt(rel string, base int) (int64, bool) {
	b, err := os.ReadFile(filepath.Join(v.cfg.SysRoot, rel))
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), base, 64)
	return n, err == nil
}
