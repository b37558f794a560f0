package network_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"eventbox/daemon/network"
	"eventbox/daemon/web"
	"eventbox/netsetup"
	"eventbox/netsetup/nmtest"
	"eventbox/store"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

var t0 = time.Date(2026, 6, 20, 21, 0, 0, 0, time.UTC)

// activityAt is a web.Activity with each address's last request at the
// given time, and the addresses of busy with a request in progress.
func activityAt(now func() time.Time, clk *fakeClock, last map[string]time.Time, busy ...string) *web.Activity {
	a := web.NewActivity(now, 0)
	for ip, at := range last {
		clk.mu.Lock()
		saved := clk.t
		clk.t = at
		clk.mu.Unlock()
		a.Begin(netip.MustParseAddr(ip))()
		clk.mu.Lock()
		clk.t = saved
		clk.mu.Unlock()
	}
	for _, ip := range busy {
		a.Begin(netip.MustParseAddr(ip))
	}
	return a
}

func TestIdlePhonesListsTheLongestIdleFirstAndNeverABusyOne(t *testing.T) {
	const (
		a, b, c, d = "02:00:00:00:00:0a", "02:00:00:00:00:0b", "02:00:00:00:00:0c", "02:00:00:00:00:0d"
	)
	neigh := map[string][]netip.Addr{
		a: {netip.MustParseAddr("10.42.0.10")},
		b: {netip.MustParseAddr("10.42.0.11")},
		c: {netip.MustParseAddr("10.42.0.12"), netip.MustParseAddr("fe80::c")},
	}
	now := t0.Add(time.Hour)
	started := t0
	for _, tc := range []struct {
		name     string
		stations []netsetup.Station
		last     map[string]time.Time
		busy     []string
		want     []network.IdlePhone
	}{
		{name: "no phones"},
		{name: "all recent", stations: []netsetup.Station{{MAC: a}, {MAC: b}},
			last: map[string]time.Time{"10.42.0.10": now.Add(-time.Minute), "10.42.0.11": now.Add(-4 * time.Minute)}},
		{name: "longest idle first", stations: []netsetup.Station{{MAC: a}, {MAC: b}, {MAC: c}},
			last: map[string]time.Time{"10.42.0.10": now.Add(-6 * time.Minute), "10.42.0.11": now.Add(-20 * time.Minute), "10.42.0.12": now.Add(-time.Minute)},
			want: []network.IdlePhone{{MAC: b, Idle: 20 * time.Minute}, {MAC: a, Idle: 6 * time.Minute}}},
		{name: "an upload in progress is never idle, however old its start", stations: []netsetup.Station{{MAC: a}, {MAC: b}},
			last: map[string]time.Time{"10.42.0.10": now.Add(-50 * time.Minute), "10.42.0.11": now.Add(-20 * time.Minute)},
			busy: []string{"10.42.0.10"},
			want: []network.IdlePhone{{MAC: b, Idle: 20 * time.Minute}}},
		{name: "busy on its IPv6 address", stations: []netsetup.Station{{MAC: c}},
			last: map[string]time.Time{"10.42.0.12": now.Add(-50 * time.Minute)}, busy: []string{"fe80::c"}},
		{name: "a phone that just joined is not idle", stations: []netsetup.Station{{MAC: d, Connected: 2 * time.Minute, ConnectedKnown: true}}},
		{name: "a phone that joined in the last second is not idle", stations: []netsetup.Station{{MAC: d, ConnectedKnown: true}}},
		{name: "a phone whose joining the radio does not say is idle since the watch began", stations: []netsetup.Station{{MAC: d}},
			want: []network.IdlePhone{{MAC: d, Idle: time.Hour}}},
		{name: "a phone never seen is idle since it joined", stations: []netsetup.Station{{MAC: d, Connected: 7 * time.Minute, ConnectedKnown: true}},
			want: []network.IdlePhone{{MAC: d, Idle: 7 * time.Minute}}},
		{name: "nothing known before the watch began", stations: []netsetup.Station{{MAC: d, Connected: 5 * time.Hour, ConnectedKnown: true}},
			want: []network.IdlePhone{{MAC: d, Idle: time.Hour}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &fakeClock{t: now}
			act := activityAt(clk.Now, clk, tc.last, tc.busy...)
			got := network.IdlePhones(now, started, 5*time.Minute, tc.stations, neigh, act)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestCrowdedWhenNearlyFullForTenMinutes(t *testing.T) {
	every, full := time.Minute, 10*time.Minute
	run := func(from, n, phones, capacity int) []store.PhoneSample {
		var out []store.PhoneSample
		for i := range n {
			out = append(out, store.PhoneSample{At: t0.Add(time.Duration(from+i) * time.Minute).UnixMilli(), Phones: phones, Capacity: capacity})
		}
		return out
	}
	join := func(parts ...[]store.PhoneSample) []store.PhoneSample {
		var out []store.PhoneSample
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		samples   []store.PhoneSample
		now       int // minutes from t0
		want      bool
		wantSince int // minutes from t0, when nearly full
	}{
		{name: "no samples", now: 30},
		{name: "nine minutes at 7 of 8", samples: run(0, 10, 7, 8), now: 9, wantSince: 0},
		{name: "ten minutes at 7 of 8", samples: run(0, 11, 7, 8), now: 10, want: true, wantSince: 0},
		{name: "full since the count rose", samples: join(run(0, 5, 3, 8), run(5, 15, 8, 8)), now: 19, want: true, wantSince: 5},
		{name: "it dropped: cleared", samples: join(run(0, 15, 8, 8), run(15, 1, 5, 8)), now: 15},
		{name: "a gap breaks the run", samples: join(run(0, 8, 8, 8), run(12, 6, 8, 8)), now: 17, wantSince: 12},
		{name: "the last sample is old", samples: run(0, 20, 8, 8), now: 40},
		{name: "capacity unknown", samples: run(0, 20, 30, 0), now: 19},
		{name: "many phones under a large figure", samples: run(0, 20, 15, 19), now: 19},
	} {
		since, got := network.Crowded(tc.samples, t0.Add(time.Duration(tc.now)*time.Minute), every, full)
		if got != tc.want {
			t.Errorf("%s: crowded %v, want %v", tc.name, got, tc.want)
		}
		if since != 0 && since != t0.Add(time.Duration(tc.wantSince)*time.Minute).UnixMilli() {
			t.Errorf("%s: since minute %d, want %d", tc.name, (since-t0.UnixMilli())/60000, tc.wantSince)
		}
	}
}

// crowdRig is the crowd watch over nmtest's phones, a store, an activity
// behind its middleware, and a clock whose ticks the test gives.
type crowdRig struct {
	t     *testing.T
	nm    *nmtest.NM
	st    *store.Store
	clk   *fakeClock
	act   *web.Activity
	api   *network.API
	ticks chan time.Time
	waits chan struct{}
}

func newCrowdRig(t *testing.T, capacity int, phones []nmtest.Phone) *crowdRig {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	nm := nmtest.New()
	nm.Phones = phones
	r := &crowdRig{t: t, nm: nm, st: st, clk: &fakeClock{t: t0}, ticks: make(chan time.Time), waits: make(chan struct{}, 100)}
	r.act = web.NewActivity(r.clk.Now, 0)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r.api = network.New(network.Config{Box: network.NM{WiFi: netsetup.WiFi{Runner: nm, Logger: log}}, Jobs: st.Jobs(),
		Settings: st.Network(), PhoneCapacity: capacity, Samples: st.Network(), Activity: r.act, Logger: log,
		Crowd: network.CrowdConfig{Now: r.clk.Now, After: func(time.Duration) <-chan time.Time { r.waits <- struct{}{}; return r.ticks }}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.api.Crowd().Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	<-r.waits
	return r
}

// tick moves the clock by d and lets the watch look once.
func (r *crowdRig) tick(d time.Duration) {
	r.clk.Advance(d)
	r.ticks <- r.clk.Now()
	<-r.waits // it waits for the next: this look is done
}

// request is a request from ip through the activity's middleware, left in
// progress until the function it returns is called.
func (r *crowdRig) request(ip string) (finish func()) {
	release := make(chan struct{})
	started := make(chan struct{})
	done := make(chan struct{})
	h := r.act.Middleware(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		close(started)
		io.Copy(io.Discard, req.Body) // the upload's body, still coming
		<-release
	}))
	req := httptest.NewRequest("POST", "/api/e/party/photos", strings.NewReader("photo bytes"))
	req.RemoteAddr = ip + ":51234"
	go func() { defer close(done); h.ServeHTTP(httptest.NewRecorder(), req) }()
	<-started
	return func() { close(release); <-done }
}

func phonesOf(n int) []nmtest.Phone {
	var out []nmtest.Phone
	for i := range n {
		out = append(out, nmtest.Phone{MAC: "02:00:00:00:00:" + string("0123456789abcdef"[i/16]) + string("0123456789abcdef"[i%16]),
			IP: netip.AddrFrom4([4]byte{10, 42, 0, byte(10 + i)}).String(), Connected: time.Hour})
	}
	return out
}

// TestCrowdLetsIdlePhonesGoButNeverOneMidUpload: with the hotspot nearly
// full, the idle phones go, the longest idle first, only as many as keep
// two slots free; a phone in the middle of an upload (its request in
// progress, however long ago it began) stays, whatever its idleness.
func TestCrowdLetsIdlePhonesGoButNeverOneMidUpload(t *testing.T) {
	for _, tc := range []struct {
		name      string
		phones    int
		uploading []int // phones with an upload in progress
		recent    []int // phones that made a request a minute ago
		wantGone  []int
	}{
		{name: "not nearly full: nobody goes", phones: 6},
		{name: "7 of 8: one goes", phones: 7, wantGone: []int{0}},
		{name: "8 of 8: two go", phones: 8, wantGone: []int{0, 1}},
		{name: "the uploading phone stays, the next idle goes", phones: 8, uploading: []int{0}, wantGone: []int{1, 2}},
		{name: "everybody busy: nobody goes", phones: 8, uploading: []int{0, 1, 2, 3}, recent: []int{4, 5, 6, 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			phones := phonesOf(tc.phones)
			r := newCrowdRig(t, 8, phones)
			// Every phone made a request at the start, the lower numbers
			// earlier: phone 0 is the longest idle.
			for i := range phones {
				r.request(phones[i].IP)()
				r.clk.Advance(time.Second)
			}
			var finish []func()
			for _, i := range tc.uploading {
				finish = append(finish, r.request(phones[i].IP))
			}
			r.clk.Advance(9 * time.Minute)
			for _, i := range tc.recent {
				r.request(phones[i].IP)()
			}
			r.tick(time.Minute)
			var want []string
			for _, i := range tc.wantGone {
				want = append(want, phones[i].MAC)
			}
			r.nm.Lock(func(*nmtest.NM) {
				if !reflect.DeepEqual(r.nm.LetGone, want) {
					t.Errorf("let go %q, want %q", r.nm.LetGone, want)
				}
			})
			samples, err := r.st.Network().PhoneSamples(context.Background(), 0)
			if err != nil || len(samples) != 1 || samples[0].Phones != tc.phones || samples[0].Capacity != 8 || samples[0].LetGo != len(want) {
				t.Errorf("samples %+v, %v; want one of %d phones of 8, %d let go", samples, err, tc.phones, len(want))
			}
			for _, f := range finish {
				f()
			}
		})
	}
}

// TestCrowdNeverLetsGoAPhoneMidUpload: an upload that lasts the whole
// evening keeps its phone on the hotspot through every look, while the
// idle phones around it go.
func TestCrowdNeverLetsGoAPhoneMidUpload(t *testing.T) {
	phones := phonesOf(8)
	r := newCrowdRig(t, 8, phones)
	finish := r.request(phones[0].IP) // a long video, slowly
	defer finish()
	for range 60 {
		r.tick(time.Minute)
		r.nm.Lock(func(*nmtest.NM) {
			for _, mac := range r.nm.LetGone {
				if mac == phones[0].MAC {
					t.Fatalf("the phone mid-upload was let go at %s", r.clk.Now())
				}
			}
			// More phones join as slots free up.
			for len(r.nm.Phones) < 8 {
				p := phonesOf(len(r.nm.LetGone) + 8)[len(r.nm.LetGone)+7]
				p.Connected = 0
				r.nm.Phones = append(r.nm.Phones, p)
			}
		})
	}
	r.nm.Lock(func(*nmtest.NM) {
		if len(r.nm.LetGone) == 0 {
			t.Error("no idle phone went in an hour at 8 of 8")
		}
	})
}
