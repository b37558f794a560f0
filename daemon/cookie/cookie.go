// Package cookie is the box's one signed-cookie codec: the guest
// (gr_guest), gallery (gr_share) and device (gr_device) cookies are JSON
// values signed with HMAC-SHA256 under the box's cookie key, read back
// only when the signature holds. A forged, garbled or foreign cookie
// reads as absent.
package cookie

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Codec signs and reads the box's cookies. It holds only its key and is
// safe for concurrent use.
type Codec struct {
	key []byte
}

// New returns a codec over key (at least 32 random bytes, kept by the
// box: a new key signs every browser out of its events and links).
func New(key []byte) (*Codec, error) {
	if len(key) < 32 {
		return nil, fmt.Errorf("cookie key is %d bytes, want at least 32", len(key))
	}
	return &Codec{key: append([]byte(nil), key...)}, nil
}

// Seal encodes v as base64url(json) "." base64url(hmac).
func (c *Codec) Seal(v any) (string, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encoding a cookie: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(c.sum(payload)), nil
}

// Open decodes a value made by Seal into v; a forged or garbled value
// gives false and leaves v as it was or partly set (callers start from an
// empty value and drop it on false).
func (c *Codec) Open(value string, v any) bool {
	p, sig, ok := strings.Cut(value, ".")
	if !ok {
		return false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return false
	}
	if !hmac.Equal(got, c.sum(payload)) {
		return false
	}
	return json.Unmarshal(payload, v) == nil
}

func (c *Codec) sum(payload []byte) []byte {
	mac := hmac.New(sha256.New, c.key)
	mac.Write(payload)
	return mac.Sum(nil)
}

// Kind is one of the box's cookies: its name, the paths it is sent to
// ("/" when empty) and how long a browser keeps it.
type Kind struct {
	Name string
	Path string
	Age  time.Duration
}

func (k Kind) path() string {
	if k.Path == "" {
		return "/"
	}
	return k.Path
}

// Read decodes the request's cookie of kind k into v and reports whether
// it was there and signed by this box.
func (c *Codec) Read(r *http.Request, k Kind, v any) bool {
	ck, err := r.Cookie(k.Name)
	if err != nil {
		return false
	}
	return c.Open(ck.Value, v)
}

// Write seals v into the cookie of kind k: HttpOnly, SameSite=Lax,
// Secure over HTTPS.
func (c *Codec) Write(w http.ResponseWriter, r *http.Request, k Kind, v any) error {
	value, err := c.Seal(v)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: k.Name, Value: value, Path: k.path(), MaxAge: int(k.Age / time.Second),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode,
	})
	return nil
}

// Clear removes the cookie name (set for the whole site) from the
// browser.
func Clear(w http.ResponseWriter, r *http.Request, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
}

// Trim drops the oldest entries of a cookie's map past max, oldest by at,
// so that a cookie stays far below the 4 KB browsers keep.
func Trim[E any](m map[string]E, max int, at func(E) int64) {
	if len(m) <= max {
		return
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return at(m[ids[i]]) < at(m[ids[j]]) })
	for _, id := range ids[:len(ids)-max] {
		delete(m, id)
	}
}
