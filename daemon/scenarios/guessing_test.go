package scenarios_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// attempt is one row of a guessing scenario: who sends what, how many
// times, and what each answer must be.
type attempt struct {
	name   string
	c      *client
	path   string
	body   any
	times  int
	status int
	code   string
}

// run sends the rows in order; every 429 must carry a Retry-After of 1 to
// 60 seconds.
func runAttempts(t *testing.T, rows []attempt) {
	t.Helper()
	for _, a := range rows {
		t.Run(a.name, func(t *testing.T) {
			for i := 0; i < max(a.times, 1); i++ {
				r := a.c.do("POST", a.path, a.body).expect(t, a.status, a.code)
				if a.status == http.StatusTooManyRequests {
					expectRetryAfter(t, r)
				}
			}
		})
	}
}

func expectRetryAfter(t *testing.T, r response) {
	t.Helper()
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Fatalf("Retry-After = %q, want 1 to 60 seconds", r.Header.Get("Retry-After"))
	}
}

// addr is the n-th loopback address of a block, for sending from many
// clients.
func addr(block, n int) string { return fmt.Sprintf("127.0.%d.%d", block, n) }

// guessFromMany sends a wrong secret from 40 addresses, rounds times each,
// and counts the answers by status.
func guessFromMany(t *testing.T, h *harness, block, rounds int, path string, body any) map[int]int {
	t.Helper()
	guessers := make([]*client, 40)
	for i := range guessers {
		guessers[i] = from(h.client(), addr(block, i+1))
	}
	got := map[int]int{}
	for round := 0; round < rounds; round++ {
		for _, g := range guessers {
			r := g.do("POST", path, body)
			got[r.Status]++
			switch r.Status {
			case http.StatusUnauthorized:
				r.expect(t, 401, "invalid_code")
			case http.StatusTooManyRequests:
				r.expect(t, 429, "rate_limited")
				expectRetryAfter(t, r)
			default:
				t.Fatalf("a wrong guess answered %d: %s", r.Status, r.Body)
			}
		}
	}
	return got
}

// TestGuesserCannotLockTheOwnerOut: a guest who keeps sending wrong
// passwords for the owner is held, while the owner still signs in from a
// browser that signed in before (even behind the guesser's address) and
// from a fresh address.
func TestGuesserCannotLockTheOwnerOut(t *testing.T) {
	h := newHarness(t)
	const login = "/api/admin/login"
	wrong := map[string]any{"username": "admin", "password": "not-the-password"}
	right := map[string]any{"username": "admin", "password": ownerPassword}
	phone := from(h.client(), "127.0.0.2")
	phone.do("POST", login, right).expect(t, 200, "")
	// The owner's phone then joins the guesser's network (one venue
	// router: one address for both).
	from(phone, "127.0.0.3")
	guesser := from(h.client(), "127.0.0.3")
	runAttempts(t, []attempt{
		{"the guesser's first ten wrong passwords are answered", guesser, login, wrong, 10, 401, "unauthorized"},
		{"then the guesser is held however long it keeps at it", guesser, login, wrong, 5, 429, "rate_limited"},
		{"a browser that signed in before still signs in, from the guesser's own address", phone, login, right, 1, 200, ""},
		{"a new browser at a fresh address signs in with the right password", from(h.client(), "127.0.0.4"), login, right, 1, 200, ""},
		{"the guesser, still at it, is still held", guesser, login, wrong, 3, 429, "rate_limited"},
	})
	t.Run("guessing from 40 addresses gets one try per address per minute", func(t *testing.T) {
		for i := 1; i <= 40; i++ {
			c := from(h.client(), addr(1, i))
			c.do("POST", login, wrong).expect(t, 401, "unauthorized")
			expectRetryAfter(t, c.do("POST", login, wrong).expect(t, 429, "rate_limited"))
			expectRetryAfter(t, c.do("POST", login, right).expect(t, 429, "rate_limited"))
		}
	})
	t.Run("the owner still signs in from a fresh address meanwhile", func(t *testing.T) {
		from(h.client(), "127.0.0.5").do("POST", login, right).expect(t, 200, "")
	})
	h.clock.Advance(time.Minute)
	runAttempts(t, []attempt{
		{"a minute later the guesser's tries are answered again", guesser, login, wrong, 1, 401, "unauthorized"},
		{"and a once-held address signs in with the right password", from(h.client(), addr(1, 1)), login, right, 1, 200, ""},
	})
}

// TestGuesserCannotLockTheSecondFactorOut: the same for login/code, whose
// failures share the username's budget with wrong passwords.
func TestGuesserCannotLockTheSecondFactorOut(t *testing.T) {
	h := newHarness(t)
	const login, code = "/api/admin/login", "/api/admin/login/code"
	right := map[string]any{"password": ownerPassword}
	wrong := map[string]any{"password": "not-the-password"}
	_, codes := enrol(t, h, h.owner())
	phone := from(h.client(), "127.0.0.2")
	phone.do("POST", login, right).expect(t, 200, "")
	phone.do("POST", code, map[string]any{"code": codes[3]}).expect(t, 200, "")
	from(phone, "127.0.0.3")
	guesser := from(h.client(), "127.0.0.3")
	codeGuesser := from(h.client(), "127.0.0.6")
	fresh := from(h.client(), "127.0.0.4")
	runAttempts(t, []attempt{
		{"ten wrong passwords spend the username's budget", guesser, login, wrong, 10, 401, "unauthorized"},
		{"the guesser is held", guesser, login, wrong, 2, 429, "rate_limited"},
		{"a browser that signed in before signs in from the guesser's address", phone, login, right, 1, 200, ""},
		{"and gives its second factor", phone, code, map[string]any{"code": codes[0]}, 1, 200, ""},
		{"a fresh address signs in with the password", fresh, login, right, 1, 200, ""},
		{"and gives its second factor", fresh, code, map[string]any{"code": codes[1]}, 1, 200, ""},
		{"someone who knows the password but not the code gets a pending sign-in", codeGuesser, login, right, 1, 200, ""},
		{"and its first wrong code is answered", codeGuesser, code, map[string]any{"code": "000000"}, 1, 401, "unauthorized"},
		{"then it is held like a password guesser", codeGuesser, code, map[string]any{"code": "000001"}, 3, 429, "rate_limited"},
	})
	h.clock.Advance(time.Minute)
	runAttempts(t, []attempt{
		{"a minute later its code is taken", codeGuesser, code, map[string]any{"code": codes[2]}, 1, 200, ""},
	})
}

// TestAccessCodeGuessing: wrong access codes from 40 addresses are
// slowed; the right code from a fresh address opens, and guests already
// in never guess again.
func TestAccessCodeGuessing(t *testing.T) {
	h := newHarness(t)
	slug := h.createEvent(h.owner(), map[string]any{"name": "P", "accessCode": "secret"})["slug"].(string)
	path := "/api/e/" + slug + "/unlock"
	inside := from(h.client(), addr(2, 1)) // shares an address with a guesser
	inside.do("POST", path, map[string]any{"code": "Secret "}).expect(t, 200, "")

	got := guessFromMany(t, h, 2, 5, path, map[string]any{"code": "guess"})
	t.Run("40 addresses get a budget of 20 and one wrong code each a minute", func(t *testing.T) {
		if got[401] > 20+40 || got[429] == 0 {
			t.Fatalf("answers = %v, want at most 60 wrong-code answers and the rest 429", got)
		}
	})
	runAttempts(t, []attempt{
		{"the right code from a fresh address opens", from(h.client(), addr(3, 1)), path, map[string]any{"code": "secret"}, 1, 200, ""},
		{"a guesser's address is held even with the right code, until the minute ends", from(h.client(), addr(2, 2)), path, map[string]any{"code": "secret"}, 1, 429, "rate_limited"},
		{"a guest already in is never asked to guess again", inside, path, map[string]any{"code": "anything"}, 1, 200, ""},
		{"and goes on as a guest", inside, "/api/e/" + slug + "/guest", map[string]any{"name": "Ana"}, 1, 200, ""},
	})
	h.clock.Advance(time.Minute)
	runAttempts(t, []attempt{
		{"a minute later a once-held address opens with the right code", from(h.client(), addr(2, 2)), path, map[string]any{"code": "secret"}, 1, 200, ""},
	})
}

// TestGalleryPasswordGuessing: the same for a gallery link's password.
func TestGalleryPasswordGuessing(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "P"})["id"].(string)
	sh, _ := createShare(t, owner, id, map[string]any{"password": "lilies and roses"})
	token := sh["token"].(string)
	path := "/api/g/" + token + "/unlock"
	right := map[string]any{"password": "lilies and roses"}
	inside := from(h.client(), addr(2, 1))
	inside.do("POST", path, right).expect(t, 200, "")

	got := guessFromMany(t, h, 2, 3, path, map[string]any{"password": "guess"})
	t.Run("40 addresses get a budget of 10 and one wrong password each a minute", func(t *testing.T) {
		if got[401] > 10+40 || got[429] == 0 {
			t.Fatalf("answers = %v, want at most 50 wrong-password answers and the rest 429", got)
		}
	})
	runAttempts(t, []attempt{
		{"the right password from a fresh address opens", from(h.client(), addr(3, 1)), path, right, 1, 200, ""},
		{"a guesser's address is held even with the right password", from(h.client(), addr(2, 2)), path, right, 1, 429, "rate_limited"},
		{"a browser that unlocked the link never guesses again", inside, path, map[string]any{"password": "anything"}, 1, 200, ""},
	})
	t.Run("and still sees the photos", func(t *testing.T) {
		inside.do("GET", "/api/g/"+token+"/photos", nil).expect(t, 200, "")
	})
	h.clock.Advance(time.Minute)
	runAttempts(t, []attempt{
		{"a minute later a once-held address opens", from(h.client(), addr(2, 2)), path, right, 1, 200, ""},
	})
}

// guestIDs reads the guest ids a gr_guest cookie of the answer carries,
// by event id.
func guestIDs(t *testing.T, r response) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name != "gr_guest" {
			continue
		}
		payload, _, _ := strings.Cut(c.Value, ".")
		raw, err := base64.RawURLEncoding.DecodeString(payload)
		if err != nil {
			t.Fatalf("gr_guest payload: %v", err)
		}
		var pass map[string]struct {
			G string `json:"g"`
		}
		if err := json.Unmarshal(raw, &pass); err != nil {
			t.Fatalf("gr_guest payload: %v", err)
		}
		for ev, e := range pass {
			out[ev] = e.G
		}
	}
	return out
}

// TestJoinsAreLimitedAndStoreNothing: joins are limited per address, a
// join alone stores no guest record, a guest is stored once when it first
// does something, and re-joining does not lift the upload limit.
func TestJoinsAreLimitedAndStoreNothing(t *testing.T) {
	testtool.Long(t, "hundreds of joins one after another")
	testtool.Unraced(t, "its requests go one after another")
	h := newHarness(t)
	ctx := context.Background()
	ev := h.createEvent(h.owner(), map[string]any{"name": "P"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	join := "/api/e/" + slug + "/join"

	t.Run("4,000 joins from one address: 60 a minute, no guest record", func(t *testing.T) {
		c := from(h.client(), "127.0.0.2")
		c.hc.Jar = nil // a script that drops its cookie to mint a new guest each time
		got := map[int]int{}
		for i := 0; i < 4000; i++ {
			r := c.do("POST", join, nil)
			got[r.Status]++
			switch r.Status {
			case 200:
				gid := guestIDs(t, r)[id]
				if !store.ValidID(gid) {
					t.Fatalf("join %d answered no guest id", i)
				}
				if _, err := h.st.Guests().Get(ctx, id, gid); !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("a join stored guest %s: %v", gid, err)
				}
			case 429:
				r.expect(t, 429, "rate_limited")
				if i == 60 {
					expectRetryAfter(t, r)
				}
			default:
				t.Fatalf("join %d answered %d: %s", i, r.Status, r.Body)
			}
		}
		if got[200] != 60 || got[429] != 3940 {
			t.Fatalf("answers = %v, want 60 joins and 3940 refusals", got)
		}
	})

	h.clock.Advance(time.Minute)
	g := from(h.client(), "127.0.0.3")
	gid := guestIDs(t, g.do("POST", join, nil).expect(t, 200, ""))[id]
	t.Run("a guest that did nothing yet is joined, with no name and no photos", func(t *testing.T) {
		got := g.do("GET", "/api/e/"+slug, nil).expect(t, 200, "").JSON["guest"].(map[string]any)
		if got["joined"] != true || got["name"] != nil || got["photos"] != 0.0 || got["booth"] != false {
			t.Fatalf("guest = %v", got)
		}
		g.do("GET", "/api/e/"+slug+"/photos", nil).expect(t, 200, "")
		g.do("GET", "/api/e/"+slug+"/messages", nil).expect(t, 200, "")
		g.do("DELETE", "/api/e/"+slug+"/contact", nil).expect(t, 200, "")
		if _, err := h.st.Guests().Get(ctx, id, gid); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("reading did store the guest: %v", err)
		}
	})
	t.Run("its first uploads store it once", func(t *testing.T) {
		before, err := h.st.Events().Counts(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		g.upload(slug, photoJPEG(t, 30, 20, 0, false, 1), nil, "").expect(t, 201, "")
		g.upload(slug, photoJPEG(t, 30, 20, 0, false, 2), nil, "").expect(t, 201, "")
		g.postMessage(slug, "Hello", nil, "").expect(t, 201, "")
		stored, err := h.st.Guests().Get(ctx, id, gid)
		if err != nil || stored.CreatedAt == 0 {
			t.Fatalf("guest after uploading = %+v, %v", stored, err)
		}
		after, err := h.st.Events().Counts(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if after.Guests != before.Guests {
			t.Fatalf("guests %d → %d: a guest is counted once, when it joins", before.Guests, after.Guests)
		}
		got := g.do("GET", "/api/e/"+slug, nil).expect(t, 200, "").JSON["guest"].(map[string]any)
		if got["joined"] != true || got["photos"] != 2.0 {
			t.Fatalf("guest = %v", got)
		}
	})
	t.Run("a name stores a guest with the name", func(t *testing.T) {
		c := from(h.client(), "127.0.0.4")
		cid := guestIDs(t, c.do("POST", join, nil).expect(t, 200, ""))[id]
		c.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana"}).expect(t, 200, "")
		stored, err := h.st.Guests().Get(ctx, id, cid)
		if err != nil || stored.Name != "Ana" {
			t.Fatalf("guest = %+v, %v", stored, err)
		}
	})
	t.Run("re-joining for a new guest does not lift the upload limit", func(t *testing.T) {
		h.clock.Advance(time.Minute)
		post := func(c *client, n, status int) {
			t.Helper()
			for i := 0; i < n; i++ {
				code := ""
				if status == http.StatusTooManyRequests {
					code = "rate_limited"
				}
				c.postMessage(slug, "hi", nil, "").expect(t, status, code)
			}
		}
		first := from(h.client(), "127.0.0.5")
		first.do("POST", join, nil).expect(t, 200, "")
		post(first, 120, 201)
		post(first, 1, 429)
		second := from(h.client(), "127.0.0.5")
		second.do("POST", join, nil).expect(t, 200, "")
		post(second, 120, 201)
		third := from(h.client(), "127.0.0.5")
		third.do("POST", join, nil).expect(t, 200, "")
		post(third, 1, 429)
	})
}
