package scenarios_test

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	dto "github.com/prometheus/client_model/go"

	"eventbox/daemon"
)

const metricsToken = "scrape-me-7F3Q"

func TestMetricsTokenRules(t *testing.T) {
	t.Parallel()
	with := newHarness(t, func(c *daemon.Config) { c.MetricsToken = metricsToken })
	without := newHarness(t)
	for _, tc := range []struct {
		name   string
		h      *harness
		header []string
		want   int
	}{
		{"the right token gets the metrics", with, []string{"Authorization", "Bearer " + metricsToken}, 200},
		{"no token gets 404", with, nil, 404},
		{"a wrong token gets 404", with, []string{"Authorization", "Bearer " + metricsToken + "x"}, 404},
		{"a prefix of the token gets 404", with, []string{"Authorization", "Bearer " + metricsToken[:5]}, 404},
		{"the token as basic credentials gets 404", with, []string{"Authorization", "Basic " + metricsToken}, 404},
		{"an empty bearer gets 404", with, []string{"Authorization", "Bearer "}, 404},
		{"without METRICS_TOKEN every request gets 404", without, []string{"Authorization", "Bearer "}, 404},
		{"without METRICS_TOKEN a made-up token gets 404", without, []string{"Authorization", "Bearer x"}, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.h.client().do("GET", "/api/metrics", nil, tc.header...)
			if tc.want == 404 {
				r.expect(t, 404, "not_found")
				return
			}
			r.expect(t, 200, "")
		})
	}
}

// fakeSys makes the /sys files of a Raspberry Pi: 48.3 °C, throttled
// since boot.
func fakeSys(t *testing.T) string {
	root := t.TempDir()
	for path, content := range map[string]string{
		"sys/class/thermal/thermal_zone0/temp":                "48312\n",
		"sys/devices/platform/soc/soc:firmware/get_throttled": "0x50000\n",
	} {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestMetricsText(t *testing.T) {
	t.Parallel()
	backups := &fakeBackups{}
	h := newHarness(t, func(c *daemon.Config) {
		c.MetricsToken = metricsToken
		c.SysRoot = fakeSys(t)
		c.Backups = backups
	})
	backups.last = h.clock.Now().Add(-90 * time.Minute)
	anon := h.client()
	anon.do("GET", "/api/health", nil).expect(t, 200, "")
	anon.do("GET", "/api/e/no-such-event", nil).expect(t, 404, "not_found")
	anon.do("GET", "/api/e/another-one", nil).expect(t, 404, "not_found")
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding"})
	guest := h.client()
	guest.do("POST", "/api/e/"+ev["slug"].(string)+"/join", map[string]any{}).expect(t, 200, "")
	photo := photoJPEG(t, 64, 48, 1, false, 1)
	guest.upload(ev["slug"].(string), photo, nil, "").expect(t, 201, "")
	// The same photo again (a retry) is not a second upload.
	guest.upload(ev["slug"].(string), photo, nil, "").expect(t, 200, "")
	waitVariants(t, h)

	r := anon.do("GET", "/api/metrics", nil, "Authorization", "Bearer "+metricsToken).expect(t, 200, "")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatalf("parsing the metrics: %v\n%s", err, r.Body)
	}
	for _, name := range []string{
		"eventbox_http_requests_total", "eventbox_http_request_duration_seconds", "eventbox_uploads_total",
		"eventbox_media_processing_seconds", "eventbox_outbox_pending", "eventbox_storage_free_bytes",
		"eventbox_soc_temperature_celsius", "eventbox_soc_throttled", "eventbox_backup_age_seconds",
		"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes",
	} {
		if fams[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	requests := map[[2]string]float64{}
	for _, m := range fams["eventbox_http_requests_total"].GetMetric() {
		requests[[2]string{label(m, "route"), label(m, "code")}] = m.GetCounter().GetValue()
	}
	for key, want := range map[[2]string]float64{
		{"/api/health", "200"}:       1,
		{"/api/e/:slug", "404"}:      2,
		{"/api/e/:slug/join", "200"}: 1,
	} {
		if requests[key] != want {
			t.Errorf("requests %v = %v, want %v", key, requests[key], want)
		}
	}
	for key := range requests {
		if key[0] == "/api/e/no-such-event" || key[0] == "/api/e/another-one" {
			t.Errorf("a raw path is a route label: %v", key)
		}
	}
	gauge := func(name string) float64 { return fams[name].GetMetric()[0].GetGauge().GetValue() }
	if v := gauge("eventbox_soc_temperature_celsius"); v != 48.312 {
		t.Errorf("temperature %v", v)
	}
	if v := gauge("eventbox_soc_throttled"); v != 0x50000 {
		t.Errorf("throttled %v", v)
	}
	if v := gauge("eventbox_backup_age_seconds"); v != 5400 {
		t.Errorf("backup age %v", v)
	}
	if v := gauge("eventbox_storage_free_bytes"); v <= 0 {
		t.Errorf("free bytes %v", v)
	}
	uploads := map[string]float64{}
	for _, m := range fams["eventbox_uploads_total"].GetMetric() {
		uploads[label(m, "kind")] = m.GetCounter().GetValue()
	}
	if want := map[string]float64{"photo": 1, "video": 0, "voice": 0, "import": 0}; !maps.Equal(uploads, want) {
		t.Errorf("uploads %v, want %v", uploads, want)
	}
	if n := fams["eventbox_media_processing_seconds"].GetMetric()[0].GetHistogram().GetSampleCount(); n != 1 {
		t.Errorf("media processing observed %d times, want 1", n)
	}
	pending := map[string]float64{}
	for _, m := range fams["eventbox_outbox_pending"].GetMetric() {
		pending[label(m, "kind")] = m.GetGauge().GetValue()
	}
	if v, ok := pending["variants"]; !ok || v != 0 {
		t.Errorf("outbox pending %v, want variants at 0 once the variants are made", pending)
	}
	if requests[[2]string{"/api/e/:slug/photos", "201"}] != 1 {
		t.Errorf("upload requests %v", requests)
	}
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
