package cookie_test

import (
	"bytes"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"eventbox/daemon/cookie"
)

type pass map[string]entry

type entry struct {
	ID string `json:"g"`
	At int64  `json:"t"`
}

func codec(t *testing.T, b byte) *cookie.Codec {
	t.Helper()
	c, err := cookie.New(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOpenReadsOnlyWhatThisBoxSealed: a value sealed under the key reads
// back; anything changed, or sealed under another key, reads as absent.
func TestOpenReadsOnlyWhatThisBoxSealed(t *testing.T) {
	c := codec(t, 1)
	sealed, err := c.Seal(pass{"e1": {ID: "g1", At: 5}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := codec(t, 2).Seal(pass{"e1": {ID: "g1", At: 5}})
	if err != nil {
		t.Fatal(err)
	}
	payload, sig, _ := strings.Cut(sealed, ".")
	flip := func(s string) string {
		b := []byte(s)
		if b[0] == 'A' {
			b[0] = 'B'
		} else {
			b[0] = 'A'
		}
		return string(b)
	}
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{"as sealed", sealed, true},
		{"another box's key", other, false},
		{"payload changed", flip(payload) + "." + sig, false},
		{"signature changed", payload + "." + flip(sig), false},
		{"no signature", payload, false},
		{"empty", "", false},
		{"not base64", "%%%.%%%", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got pass
			ok := c.Open(tc.value, &got)
			if ok != tc.ok {
				t.Fatalf("Open = %v, want %v", ok, tc.ok)
			}
			if ok && got["e1"].ID != "g1" {
				t.Fatalf("read %+v", got)
			}
		})
	}
}

func TestNewRefusesShortKeys(t *testing.T) {
	if _, err := cookie.New(make([]byte, 16)); err == nil {
		t.Fatal("a 16-byte key was taken")
	}
}

// TestWriteThenRead: the cookie a response sets is read back from the
// next request, with the kind's path and age, HttpOnly, Lax, and Secure
// only over HTTPS.
func TestWriteThenRead(t *testing.T) {
	c := codec(t, 1)
	k := cookie.Kind{Name: "gr_test", Path: "/api/admin/", Age: time.Hour}
	for _, https := range []bool{false, true} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/", nil)
		if https {
			req.TLS = &tls.ConnectionState{}
		}
		if err := c.Write(rec, req, k, pass{"e": {ID: "x"}}); err != nil {
			t.Fatal(err)
		}
		set := rec.Result().Cookies()
		if len(set) != 1 {
			t.Fatalf("%d cookies set", len(set))
		}
		ck := set[0]
		if ck.Path != "/api/admin/" || ck.MaxAge != 3600 || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure != https {
			t.Fatalf("cookie %+v (https %v)", ck, https)
		}
		next := httptest.NewRequest("GET", "/", nil)
		next.AddCookie(ck)
		var got pass
		if !c.Read(next, k, &got) || got["e"].ID != "x" {
			t.Fatalf("read back %v %+v", c.Read(next, k, &got), got)
		}
		if codec(t, 3).Read(next, k, &got) {
			t.Fatal("another key read the cookie")
		}
	}
}

// TestTrimKeepsTheNewest: past max, the oldest entries go.
func TestTrimKeepsTheNewest(t *testing.T) {
	m := pass{"a": {At: 3}, "b": {At: 1}, "c": {At: 4}, "d": {At: 2}}
	cookie.Trim(m, 2, func(e entry) int64 { return e.At })
	if len(m) != 2 || m["a"].At != 3 || m["c"].At != 4 {
		t.Fatalf("kept %+v", m)
	}
	cookie.Trim(m, 5, func(e entry) int64 { return e.At })
	if len(m) != 2 {
		t.Fatalf("trim under max changed the map: %+v", m)
	}
}
