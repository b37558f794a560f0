package box

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"eventbox/daemon/web"
	"eventbox/store"
)

// TestRestoreGate: before a restore is decided every request passes;
// once it is, every API request answers 503 with Retry-After and pages
// still pass, and Restarts is closed exactly once however often a restart
// is asked for.
func TestRestoreGate(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	a := New(Config{Logger: log, WriteError: func(w http.ResponseWriter, r *http.Request, err error) {
		web.WriteError(log, w, r, err)
	}})
	gate := a.RestoreGate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	serve := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		gate.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	for _, path := range []string{"/api/admin/events", "/"} {
		if rec := serve(path); rec.Code != http.StatusTeapot {
			t.Errorf("%s before a restore: %d; want it passed on", path, rec.Code)
		}
	}
	select {
	case <-a.Restarts():
		t.Fatal("Restarts closed before a restore")
	default:
	}
	a.restoring.Store(true)
	a.requestRestart()
	a.requestRestart()
	select {
	case <-a.Restarts():
	default:
		t.Fatal("Restarts not closed after a restore")
	}
	for _, tc := range []struct {
		path  string
		code  int
		retry string
	}{
		{"/api/admin/events", http.StatusServiceUnavailable, "5"},
		{"/api/health", http.StatusServiceUnavailable, "5"},
		{"/", http.StatusTeapot, ""},
		{"/admin/", http.StatusTeapot, ""},
	} {
		rec := serve(tc.path)
		if rec.Code != tc.code || rec.Header().Get("Retry-After") != tc.retry {
			t.Errorf("%s during a restore: %d, Retry-After %q; want %d, %q", tc.path, rec.Code, rec.Header().Get("Retry-After"), tc.code, tc.retry)
		}
	}
}

// TestHourlySeries: quiet hours are zeros between active ones, and the
// series is cut to the week ending at the last active hour.
func TestHourlySeries(t *testing.T) {
	const h = store.HourMs
	for _, tc := range []struct {
		name  string
		hours []store.HourCount
		first int64
		n     int
		zeros int
	}{
		{name: "no activity", n: 0},
		{name: "one hour", hours: []store.HourCount{{Hour: 5 * h, Photos: 2}}, first: 5 * h, n: 1},
		{name: "a gap is filled", hours: []store.HourCount{{Hour: 5 * h, Photos: 2}, {Hour: 9 * h, Messages: 1}},
			first: 5 * h, n: 5, zeros: 3},
		{name: "longer than a week is cut", hours: []store.HourCount{{Hour: 0, Photos: 1}, {Hour: 200 * h, Photos: 1}},
			first: (200 - statsSeriesHours + 1) * h, n: statsSeriesHours, zeros: statsSeriesHours - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hourlySeries(tc.hours)
			if len(got) != tc.n || got == nil {
				t.Fatalf("%d points (nil %v); want %d", len(got), got == nil, tc.n)
			}
			zeros := 0
			for i, p := range got {
				if p.T != tc.first+int64(i)*h {
					t.Fatalf("point %d at %d; want %d", i, p.T, tc.first+int64(i)*h)
				}
				if p.Photos == 0 && p.Messages == 0 {
					zeros++
				}
			}
			if zeros != tc.zeros {
				t.Errorf("%d quiet hours; want %d", zeros, tc.zeros)
			}
		})
	}
}
