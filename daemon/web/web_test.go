package web_test

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventbox/daemon/web"
	"eventbox/store"
)

// TestToError: every kind of error a handler returns maps to the spec's
// status and code, and unknown ones to a 500 that says nothing.
func TestToError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"declared", web.ErrForbidden, 403, "forbidden"},
		{"wrapped declared", fmt.Errorf("loading: %w", web.ErrUploadsClosed), 403, "uploads_closed"},
		{"field", web.Field("name", "must be set"), 400, "bad_request"},
		{"missing record", fmt.Errorf("event: %w", store.ErrNotFound), 404, "not_found"},
		{"quota", store.ErrQuota, 403, "quota_reached"},
		{"full card", &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, 507, "insufficient_storage"},
		{"disk fault", &fs.PathError{Op: "open", Path: "x", Err: syscall.EIO}, 503, "unavailable"},
		{"body cut", &http.MaxBytesError{Limit: 1}, 413, "too_large"},
		{"rate", web.RateLimited(7), 429, "rate_limited"},
		{"anything else", errors.New("boom"), 500, "internal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ae := web.ToError(tc.err)
			if ae.Status != tc.status || ae.Code != tc.code {
				t.Fatalf("ToError = %d %s, want %d %s", ae.Status, ae.Code, tc.status, tc.code)
			}
		})
	}
}

// TestWriteErrorAnswersTheSpecShape: { error, details }, Retry-After for
// rate_limited, and never the text of an internal error.
func TestWriteErrorAnswersTheSpecShape(t *testing.T) {
	for _, tc := range []struct {
		err        error
		want, mute string
		retry      string
	}{
		{web.Field("label", "too long"), `{"error":"bad_request","details":{"label":"too long"}}`, "", ""},
		{web.RateLimited(3), `{"error":"rate_limited"}`, "", "3"},
		{errors.New("secret path /data/x"), `{"error":"internal"}`, "/data/x", ""},
	} {
		rec := httptest.NewRecorder()
		web.WriteError(discard(), rec, httptest.NewRequest("GET", "/api/x", nil), tc.err)
		body := strings.TrimSpace(rec.Body.String())
		if body != tc.want || (tc.mute != "" && strings.Contains(body, tc.mute)) {
			t.Errorf("answer %s, want %s", body, tc.want)
		}
		if got := rec.Header().Get("Retry-After"); got != tc.retry {
			t.Errorf("Retry-After %q, want %q", got, tc.retry)
		}
	}
}

// TestDecodeJSONIsStrict: unknown keys, wrong types and non-objects are a
// 400 naming the field; an empty body is {}.
func TestDecodeJSONIsStrict(t *testing.T) {
	type req struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	for _, tc := range []struct {
		body  string
		field string
	}{
		{`{"name":"a","count":2}`, ""},
		{``, ""},
		{`{"nmae":"a"}`, "nmae"},
		{`{"count":"two"}`, "count"},
		{`[1,2]`, "body"},
		{`{"name":`, "body"},
		{`{"name":"` + strings.Repeat("a", web.MaxJSONBody) + `"}`, "body"},
	} {
		var v req
		err := web.DecodeJSON(httptest.NewRequest("POST", "/", strings.NewReader(tc.body)), &v)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%.40q: %v", tc.body, err)
			}
			continue
		}
		ae := web.ToError(err)
		if ae.Status != 400 || ae.Details[tc.field] == "" {
			t.Errorf("%.40q: %v, want a 400 naming %s", tc.body, err, tc.field)
		}
	}
}

// TestRateLimiterWindows: limit requests a window per key, then a refusal
// with the seconds left, and a fresh budget in the next window.
func TestRateLimiterWindows(t *testing.T) {
	now := time.Unix(1000, 0)
	l := web.NewRateLimiter(2, time.Minute, func() time.Time { return now })
	for i := range 2 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d refused", i+1)
		}
	}
	ok, retry := l.Allow("a")
	if ok || retry != 60 {
		t.Fatalf("third request: %v, retry %d", ok, retry)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another key was held by a's budget")
	}
	now = now.Add(time.Minute)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("a new window did not give a new budget")
	}
}

// TestGuessGuardHoldsOnlyGuessers: once a key's failure budget is spent,
// addresses that failed on it wait; a fresh address still gets its try.
func TestGuessGuardHoldsOnlyGuessers(t *testing.T) {
	now := time.Unix(1000, 0)
	g := web.NewGuessGuard(3, time.Minute, func() time.Time { return now })
	for range 3 {
		if ok, _ := g.Allow("event", "10.0.0.9"); !ok {
			t.Fatal("refused within the budget")
		}
		g.Fail("event", "10.0.0.9")
	}
	if ok, _ := g.Allow("event", "10.0.0.9"); ok {
		t.Fatal("the guesser was let through past the budget")
	}
	if ok, _ := g.Allow("event", "10.0.0.2"); !ok {
		t.Fatal("an address that never failed was locked out")
	}
	now = now.Add(time.Minute)
	if ok, _ := g.Allow("event", "10.0.0.9"); !ok {
		t.Fatal("the next window still held the guesser")
	}
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
