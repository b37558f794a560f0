package accounts

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"eventbox/daemon/cookie"
	"eventbox/daemon/web"
	"eventbox/store"
)

// deviceBrowser carries the gr_device cookie from one answer to the next
// request, as a browser does.
type deviceBrowser struct{ cookies []*http.Cookie }

func (b *deviceBrowser) request() *http.Request {
	r := httptest.NewRequest("POST", "/api/admin/login", nil)
	r.RemoteAddr = "192.0.2.7:4000"
	for _, c := range b.cookies {
		r.AddCookie(c)
	}
	return r
}

func (b *deviceBrowser) remember(t *testing.T, si *SignIn, accountID string) {
	t.Helper()
	w := httptest.NewRecorder()
	if err := si.rememberDevice(w, b.request(), accountID); err != nil {
		t.Fatalf("remembering the device: %v", err)
	}
	if got := w.Result().Cookies(); len(got) > 0 {
		b.cookies = got
	}
}

func newTestSignIn(t *testing.T, now func() time.Time) *SignIn {
	t.Helper()
	codec, err := cookie.New(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	return NewSignIn(Config{Cookies: codec, Now: now, Limits: Limits{
		Address: web.NewRateLimiter(2, time.Minute, now),
		Guesses: web.NewGuessGuard(2, time.Minute, now),
		Device:  web.NewRateLimiter(3, time.Minute, now),
	}})
}

// TestDeviceMark checks the gr_device mark without the router: a browser
// is known for the accounts it signed in to, keeps its device id, is
// forgotten after a year, holds at most deviceAccounts accounts (the
// oldest goes), and a mark it was not given counts for nothing.
func TestDeviceMark(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	now := func() time.Time { return clock }
	si := newTestSignIn(t, now)
	accounts := make([]string, deviceAccounts+1)
	for i := range accounts {
		accounts[i] = store.NewID()
	}

	var b deviceBrowser
	if dev := si.knownDevice(b.request(), accounts[0]); dev != "" {
		t.Fatalf("a new browser is known as %q", dev)
	}
	b.remember(t, si, accounts[0])
	first := si.knownDevice(b.request(), accounts[0])
	if !store.ValidID(first) {
		t.Fatalf("device id %q after a sign-in", first)
	}
	if dev := si.knownDevice(b.request(), accounts[1]); dev != "" {
		t.Errorf("known for an account it never signed in to, as %q", dev)
	}
	if dev := si.knownDevice(b.request(), ""); dev != "" {
		t.Errorf("known for an unknown username, as %q", dev)
	}
	clock = clock.Add(200 * 24 * time.Hour)
	b.remember(t, si, accounts[0])
	if dev := si.knownDevice(b.request(), accounts[0]); dev != first {
		t.Errorf("device id %q after a second sign-in, want %q kept", dev, first)
	}
	clock = clock.Add(deviceAge - time.Hour)
	if dev := si.knownDevice(b.request(), accounts[0]); dev != first {
		t.Errorf("forgotten %v after the last sign-in", deviceAge-time.Hour)
	}
	clock = clock.Add(2 * time.Hour)
	if dev := si.knownDevice(b.request(), accounts[0]); dev != "" {
		t.Errorf("still known as %q more than %v after the last sign-in", dev, deviceAge)
	}

	for i, id := range accounts {
		clock = clock.Add(time.Minute)
		b.remember(t, si, id)
		if i == 0 {
			first = si.knownDevice(b.request(), id)
		}
	}
	if dev := si.knownDevice(b.request(), accounts[0]); dev != "" {
		t.Errorf("the oldest of %d accounts is still known, as %q", len(accounts), dev)
	}
	for _, id := range accounts[1:] {
		if si.knownDevice(b.request(), id) == "" {
			t.Errorf("account %s forgotten among the last %d", id, deviceAccounts)
		}
	}

	other, err := cookie.New([]byte("another box's key, 32 bytes long"))
	if err != nil {
		t.Fatal(err)
	}
	value, err := other.Seal(devicePass{accounts[1]: {Device: first, At: clock.UnixMilli()}})
	if err != nil {
		t.Fatal(err)
	}
	forged := deviceBrowser{cookies: []*http.Cookie{{Name: deviceCookie, Value: value}}}
	if dev := si.knownDevice(forged.request(), accounts[1]); dev != "" {
		t.Errorf("an unsigned mark is taken, as %q", dev)
	}
}

// TestSignInGate checks which budget an attempt counts against: a known
// browser only its own, so that its address or username running out of
// attempts (a guesser's doing) does not lock it out.
func TestSignInGate(t *testing.T) {
	now := func() time.Time { return time.Unix(1_700_000_000, 0) }
	si := newTestSignIn(t, now)
	owner := store.NewID()
	var known, stranger deviceBrowser
	known.remember(t, si, owner)

	// A stranger at the same address fails twice: the address and the
	// username are spent.
	for range 2 {
		dev, err := si.signInGate(stranger.request(), owner, "owner")
		if err != nil || dev != "" {
			t.Fatalf("stranger's attempt: device %q, %v", dev, err)
		}
		si.signInFailed(stranger.request(), dev, "owner")
	}
	if _, err := si.signInGate(stranger.request(), owner, "owner"); web.ToError(err).Status != http.StatusTooManyRequests {
		t.Fatalf("stranger's third attempt: %v, want 429", err)
	}

	// The known browser still gets its own three attempts, and failing
	// them does not count against the username.
	for i := range 3 {
		dev, err := si.signInGate(known.request(), owner, "owner")
		if err != nil || !store.ValidID(dev) {
			t.Fatalf("known browser's attempt %d: device %q, %v", i+1, dev, err)
		}
		si.signInFailed(known.request(), dev, "owner")
	}
	if _, err := si.signInGate(known.request(), owner, "owner"); web.ToError(err).Status != http.StatusTooManyRequests {
		t.Fatalf("known browser's fourth attempt: %v, want 429", err)
	}
}
