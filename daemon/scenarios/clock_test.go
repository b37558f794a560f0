package scenarios_test

import (
	"context"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/store"
)

// unsureBox starts the box three days behind the real time, as a Pi
// without a battery-backed clock at a venue with no internet: NTP keeps
// nothing, and setting the clock moves the harness's clock. It answers the
// real time at the start.
func unsureBox(t *testing.T) (*harness, time.Time) {
	t.Helper()
	var h *harness
	h = newHarness(t, func(c *daemon.Config) {
		c.Clock.Synced = func() (bool, error) { return false, nil }
		c.Clock.BootID = func() (string, error) { return "boot-1", nil }
		c.Clock.SetTime = func(at time.Time) error {
			h.clock.Advance(at.Sub(h.clock.Now()))
			return nil
		}
	})
	return h, h.clock.Now().Add(72 * time.Hour)
}

func clockState(t *testing.T, h *harness) string {
	t.Helper()
	s, _ := h.client().do("GET", "/api/health", nil).expect(t, 200, "").JSON["clock"].(string)
	return s
}

// near: a and b are within a minute of each other.
func near(a, b time.Time) bool { d := a.Sub(b); return d > -time.Minute && d < time.Minute }

// TestClockSetByTheFirstOwner: the box says its clock is unsure until the
// owner's console sets it, and then the upload window is the real one.
func TestClockSetByTheFirstOwner(t *testing.T) {
	h, real := unsureBox(t)
	if got := clockState(t, h); got != "unsure" {
		t.Fatalf("health clock = %q, want unsure", got)
	}
	owner := h.owner()
	// Uploads close five hours from the real now, as the hosts typed it.
	closeAt := real.Add(5 * time.Hour)
	ev := h.createEvent(owner, map[string]any{"name": "Party", "uploadsOpen": true, "uploadsCloseAt": closeAt.UnixMilli()})
	slug := ev["slug"].(string)
	guest := h.guest(slug)

	t.Run("bad times are refused", func(t *testing.T) {
		for _, body := range []map[string]any{{}, {"now": 0}, {"now": time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()}} {
			owner.do("POST", "/api/admin/clock", body).expect(t, 400, "bad_request")
		}
		if got := clockState(t, h); got != "unsure" {
			t.Fatalf("clock = %q after refused times", got)
		}
	})
	t.Run("the owner's browser sets it", func(t *testing.T) {
		r := owner.do("POST", "/api/admin/clock", map[string]any{"now": real.UnixMilli()}).expect(t, 200, "")
		if r.JSON["clock"] != "set" || r.JSON["changed"] != true || r.JSON["offsetMs"] != float64(72*time.Hour/time.Millisecond) {
			t.Fatalf("answer %s", r.Body)
		}
		if got := clockState(t, h); got != "set" {
			t.Fatalf("health clock = %q, want set", got)
		}
		if !h.clock.Now().Equal(real) {
			t.Fatalf("box time %v, want %v", h.clock.Now(), real)
		}
		// A second browser changes nothing.
		r = owner.do("POST", "/api/admin/clock", map[string]any{"now": real.Add(time.Hour).UnixMilli()}).expect(t, 200, "")
		if r.JSON["changed"] != false || !h.clock.Now().Equal(real) {
			t.Fatalf("second set: %s, box time %v", r.Body, h.clock.Now())
		}
	})
	t.Run("a guest uploads inside the real window, not after it", func(t *testing.T) {
		h.clock.Advance(4 * time.Hour)
		guest.upload(slug, photoJPEG(t, 64, 48, 1, false, 1), nil, "").expect(t, 201, "")
		h.clock.Advance(2 * time.Hour) // past the real close; a box still three days behind would take it
		guest.upload(slug, photoJPEG(t, 64, 48, 1, false, 2), nil, "").expect(t, 403, "uploads_closed")
	})
	t.Run("the session made while unsure is still good", func(t *testing.T) {
		owner.do("GET", "/api/admin/me", nil).expect(t, 200, "")
	})
}

// TestClockTwoStepSignInWhileUnsure: an owner with two-step sign-in gets
// in with two consecutive codes of their phone's (right) time, which sets
// the box's clock; one code of the phone's time opens nothing, nor does
// one of the box's time that comes before the last step used at home.
func TestClockTwoStepSignInWhileUnsure(t *testing.T) {
	h, real := unsureBox(t)
	ctx := context.Background()
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	acct, err := h.st.Accounts().ByUsername(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	// Two-step sign-in was turned on at home, with a right clock.
	if _, err := h.st.Accounts().Update(ctx, acct.ID, func(a *store.Account) error {
		a.TOTPSecret, a.TwoFactor, a.LastTOTPStep = secret, true, real.Add(-72*time.Hour).Unix()/30
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c := h.client()
	if r := c.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, ""); r.JSON["codeRequired"] != true {
		t.Fatalf("login answered %s", r.Body)
	}
	phone := real // the phone's time; the box's is three days behind
	for _, tt := range []struct{ name, code string }{
		{"one code of the phone's time", totpAt(t, secret, phone)},
		{"one code of the box's time", totpAt(t, secret, h.clock.Now())},
		// Consecutive codes at the box's wrong time come before the last
		// step used at home: the replay guard refuses them.
		{"two codes of the box's time", totpAt(t, secret, h.clock.Now()) + totpAt(t, secret, h.clock.Now().Add(30*time.Second))},
		{"two codes not consecutive", totpAt(t, secret, phone) + totpAt(t, secret, phone.Add(60*time.Second))},
	} {
		c.do("POST", "/api/admin/login/code", map[string]any{"code": tt.code}).expect(t, 401, "unauthorized")
		if got := clockState(t, h); got != "unsure" {
			t.Fatalf("%s: clock = %q", tt.name, got)
		}
	}
	if got := clockState(t, h); got != "unsure" {
		t.Fatalf("clock = %q", got)
	}
	// The host types the code shown, waits for the next one and types it.
	h.clock.Advance(30 * time.Second)
	pair := totpAt(t, secret, phone) + " " + totpAt(t, secret, phone.Add(30*time.Second))
	c.do("POST", "/api/admin/login/code", map[string]any{"code": pair}).expect(t, 200, "")
	c.do("GET", "/api/admin/me", nil).expect(t, 200, "")
	if got := clockState(t, h); got != "set" {
		t.Fatalf("clock = %q after the pair, want set", got)
	}
	if !near(h.clock.Now(), phone.Add(30*time.Second)) {
		t.Fatalf("box time %v, want about %v", h.clock.Now(), phone.Add(30*time.Second))
	}
	// The same pair again is a replay.
	again := h.client()
	again.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, "")
	again.do("POST", "/api/admin/login/code", map[string]any{"code": pair}).expect(t, 401, "unauthorized")
}

// TestClockTwoStepSignInWhileUnsureWithARightClock: a box whose time is
// right but unsure (a Pi 5 with its battery, a container, a restart after
// the first owner set it) takes one code of its own time, with the usual
// step of skew either way, as a box with a synced clock does. It leaves
// the clock unsure: one code tells the time only to within a minute.
func TestClockTwoStepSignInWhileUnsureWithARightClock(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) {
		c.Clock.Synced = func() (bool, error) { return false, nil }
		c.Clock.BootID = func() (string, error) { return "boot-1", nil }
		c.Clock.SetTime = func(time.Time) error { t.Error("the clock was set"); return nil }
	})
	ctx := context.Background()
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	acct, err := h.st.Accounts().ByUsername(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.st.Accounts().Update(ctx, acct.ID, func(a *store.Account) error {
		a.TOTPSecret, a.TwoFactor, a.LastTOTPStep = secret, true, h.clock.Now().Add(-time.Hour).Unix()/30
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	signIn := func() *client {
		c := h.client()
		if r := c.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword}).expect(t, 200, ""); r.JSON["codeRequired"] != true {
			t.Fatalf("login answered %s", r.Body)
		}
		return c
	}
	if got := clockState(t, h); got != "unsure" {
		t.Fatalf("clock = %q, want unsure", got)
	}
	// The phone runs 30 s behind the box: its code is of the step before.
	c := signIn()
	code := totpAt(t, secret, h.clock.Now().Add(-30*time.Second))
	c.do("POST", "/api/admin/login/code", map[string]any{"code": code}).expect(t, 200, "")
	c.do("GET", "/api/admin/me", nil).expect(t, 200, "")
	// The same code again is a replay.
	signIn().do("POST", "/api/admin/login/code", map[string]any{"code": code}).expect(t, 401, "unauthorized")
	// A code of the box's time two minutes on is not of its window.
	signIn().do("POST", "/api/admin/login/code", map[string]any{"code": totpAt(t, secret, h.clock.Now().Add(2*time.Minute))}).expect(t, 401, "unauthorized")
	// Later, the current code.
	h.clock.Advance(time.Minute)
	c = signIn()
	c.do("POST", "/api/admin/login/code", map[string]any{"code": totpAt(t, secret, h.clock.Now())}).expect(t, 200, "")
	c.do("GET", "/api/admin/me", nil).expect(t, 200, "")
	if got := clockState(t, h); got != "unsure" {
		t.Fatalf("clock = %q after one code, want unsure", got)
	}
}

// TestClockPhotosSortAfterItIsSet: photos taken while the box was three
// days behind sort, once the clock is set, after the photos of the
// party's first day that the box had dated right, and just before those
// taken after it was set.
func TestClockPhotosSortAfterItIsSet(t *testing.T) {
	h, real := unsureBox(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Weekend", "uploadsOpen": true})
	slug, id := ev["slug"].(string), ev["id"].(string)
	guest := h.guest(slug)
	upload := func(seed int) string {
		r := guest.upload(slug, photoJPEG(t, 64, 48, 1, false, seed), nil, "").expect(t, 201, "")
		return r.JSON["photo"].(map[string]any)["id"].(string)
	}
	// Yesterday, with a right clock (the box dated it right before a
	// power cut sent its clock back).
	boxStart := h.clock.Now()
	h.clock.Advance(real.Add(-24 * time.Hour).Sub(boxStart))
	yesterday := upload(1)
	h.clock.Advance(boxStart.Add(time.Minute).Sub(h.clock.Now()))
	// Today, three days behind.
	first := upload(2)
	h.clock.Advance(time.Minute)
	second := upload(3)
	h.clock.Advance(time.Minute)
	wall := real.Add(2 * time.Minute)
	owner.do("POST", "/api/admin/clock", map[string]any{"now": wall.UnixMilli()}).expect(t, 200, "")
	h.clock.Advance(time.Minute)
	after := upload(4)

	r := owner.do("GET", "/api/admin/events/"+id+"/photos", nil).expect(t, 200, "")
	var got []string
	for _, p := range r.JSON["photos"].([]any) {
		got = append(got, p.(map[string]any)["id"].(string))
	}
	want := []string{after, second, first, yesterday} // newest first
	if len(got) != len(want) {
		t.Fatalf("album %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("album %v, want %v (after, second, first, yesterday)", got, want)
		}
	}
	at := time.UnixMilli(int64(photoByID(t, r, first)["createdAt"].(float64)))
	if !near(at, real) {
		t.Fatalf("the first photo of today is dated %v, want about %v", at.UTC(), real.UTC())
	}
}
