package network_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/netsetup/nmtest"
	"eventbox/store"
)

// TestPhonesHistory: GET /api/admin/phones answers the phones now, the
// evening's samples with the radio's figure, the idle phones let go in the
// last hour and day, and whether the hotspot has stayed nearly full long
// enough for the hosts' notice, which clears as soon as the count drops.
func TestPhonesHistory(t *testing.T) {
	t.Parallel()
	now := t0.Add(3 * time.Hour)
	type sample struct{ ago, phones, letGo int } // ago in minutes
	full := func(from, to int) []sample {
		var out []sample
		for m := from; m >= to; m-- {
			out = append(out, sample{ago: m, phones: 8})
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		samples     []sample
		phonesNow   int
		wantCrowded bool
		wantHour    int
		wantDay     int
	}{
		{name: "a quiet evening", samples: []sample{{ago: 120, phones: 2}, {ago: 60, phones: 4, letGo: 0}, {ago: 1, phones: 3}}, phonesNow: 3},
		{name: "nearly full for twelve minutes", samples: append([]sample{{ago: 300, phones: 8, letGo: 2}, {ago: 90, phones: 7, letGo: 1}}, full(12, 0)...),
			phonesNow: 8, wantCrowded: true, wantHour: 0, wantDay: 3},
		{name: "the count dropped: cleared", samples: full(12, 0), phonesNow: 5},
		{name: "let go in the last hour", samples: []sample{{ago: 30, phones: 8, letGo: 2}, {ago: 29, phones: 7, letGo: 1}, {ago: 5, phones: 6}}, phonesNow: 6,
			wantHour: 3, wantDay: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, _ := radioBox(t, nmtest.Uevent43455, nmtest.Ethtool43455Standard, tc.phonesNow,
				func(c *daemon.Config) { c.Now = func() time.Time { return now } })
			for _, s := range tc.samples {
				at := now.Add(-time.Duration(s.ago) * time.Minute).UnixMilli()
				if err := b.st.Network().AddPhoneSample(context.Background(), store.PhoneSample{At: at, Phones: s.phones, Capacity: 8, LetGo: s.letGo}, 0); err != nil {
					t.Fatal(err)
				}
			}
			res, out := b.do("GET", "/api/admin/phones", nil)
			if res.Code != http.StatusOK {
				t.Fatalf("answered %d: %s", res.Code, res.Body)
			}
			wantSamples := 0
			for _, s := range tc.samples {
				if s.ago <= 24*60 {
					wantSamples++
				}
			}
			samples, _ := out["samples"].([]any)
			if len(samples) != wantSamples || out["connected"] != float64(tc.phonesNow) || out["capacity"] != float64(8) {
				t.Errorf("%d samples, %v of %v phones; want %d samples, %d of 8", len(samples), out["connected"], out["capacity"], wantSamples, tc.phonesNow)
			}
			if out["crowded"] != tc.wantCrowded || (out["crowdedSince"] != nil) != tc.wantCrowded {
				t.Errorf("crowded %v since %v, want %v", out["crowded"], out["crowdedSince"], tc.wantCrowded)
			}
			letGo, _ := out["letGo"].(map[string]any)
			if letGo["hour"] != float64(tc.wantHour) || letGo["day"] != float64(tc.wantDay) {
				t.Errorf("let go %v, want %d in the hour, %d in the day", letGo, tc.wantHour, tc.wantDay)
			}
			if out["fullNoticeSeconds"] != float64(600) || out["letGoIdleSeconds"] != float64(300) || out["everySeconds"] != float64(60) {
				t.Errorf("thresholds %v %v %v", out["fullNoticeSeconds"], out["letGoIdleSeconds"], out["everySeconds"])
			}
		})
	}

	t.Run("without NetworkManager: the samples alone", func(t *testing.T) {
		t.Parallel()
		b := newBox(t, nil, func(c *daemon.Config) { c.Now = func() time.Time { return now } })
		if err := b.st.Network().AddPhoneSample(context.Background(), store.PhoneSample{At: now.Add(-time.Minute).UnixMilli(), Phones: 4}, 0); err != nil {
			t.Fatal(err)
		}
		_, out := b.do("GET", "/api/admin/phones", nil)
		if s, _ := out["samples"].([]any); len(s) != 1 || out["connected"] != nil || out["capacity"] != nil {
			t.Errorf("got %v", out)
		}
	})
	t.Run("let-go off", func(t *testing.T) {
		t.Parallel()
		b := newBox(t, nil, func(c *daemon.Config) { c.LetGoIdle = -1 })
		if _, out := b.do("GET", "/api/admin/phones", nil); out["letGoIdleSeconds"] != float64(0) {
			t.Errorf("letGoIdleSeconds %v, want 0", out["letGoIdleSeconds"])
		}
	})
}
