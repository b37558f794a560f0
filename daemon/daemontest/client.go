package daemontest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventbox/store"
)

// Client is one browser: its own cookie jar, and the page's Origin on
// every request unless told otherwise.
type Client struct {
	// H is the harness whose server the client talks to and whose test
	// its requests fail.
	H *Harness
	// HTTP sends the requests; its Jar holds the client's cookies.
	HTTP *http.Client
	// Origin is sent as the Origin header of every request; empty sends
	// none.
	Origin string
}

// Client returns a new browser with an empty cookie jar and the server's
// own origin.
func (h *Harness) Client() *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{H: h, HTTP: &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: h.transport}, Origin: h.Server.URL}
}

// Response is a decoded answer.
type Response struct {
	// Status is the answer's status code.
	Status int
	// Header is the answer's header.
	Header http.Header
	// Body is the whole body.
	Body []byte
	// JSON is the body decoded, when the answer is application/json.
	JSON map[string]any
}

// Code returns the error code of an { error, details } answer, "" for
// another.
func (r Response) Code() string {
	s, _ := r.JSON["error"].(string)
	return s
}

// Details returns the details of an { error, details } answer, nil for
// another.
func (r Response) Details() map[string]any {
	d, _ := r.JSON["details"].(map[string]any)
	return d
}

// Expect fails the test unless the answer has the status and, for an
// error, the code ("" for none).
func (r Response) Expect(t testing.TB, status int, code string) Response {
	t.Helper()
	if r.Status != status || r.Code() != code {
		t.Fatalf("got %d %q, want %d %q; body: %s", r.Status, r.Code(), status, code, r.Body)
	}
	return r
}

// Do sends a request to path on the harness's server; body is
// JSON-encoded unless it is a string or []byte, sent as is. headers are
// name, value pairs; a Host among them becomes the request's Host. A
// failure to send or read, or a JSON answer that does not decode, fails
// the test.
func (c *Client) Do(method, path string, body any, headers ...string) Response {
	t := c.H.T
	t.Helper()
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rdr = strings.NewReader(b)
	case []byte:
		rdr = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("encoding body: %v", err)
		}
		rdr = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.H.Server.URL+path, rdr)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Origin != "" {
		req.Header.Set("Origin", c.Origin)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if http.CanonicalHeaderKey(headers[i]) == "Host" {
			// net/http sends req.Host, never a Host in the header map.
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading %s %s: %v", method, path, err)
	}
	out := Response{Status: res.StatusCode, Header: res.Header, Body: raw}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.JSON); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %v: %s", method, path, err, raw)
		}
	}
	return out
}

// Upload sends a photo as a guest of the event with the slug (the form's
// "photo" file, named IMG_0001.jpg, and the text fields) and returns the
// answer; query, if not empty, starts with "?".
func (c *Client) Upload(slug string, data []byte, fields map[string]string, query string) Response {
	c.H.T.Helper()
	ct, body := MultipartBody(c.H.T, "photo", "IMG_0001.jpg", data, fields)
	return c.Do("POST", "/api/e/"+slug+"/photos"+query, body, "Content-Type", ct)
}

// Owner returns a client signed in as the first owner.
func (h *Harness) Owner() *Client {
	c := h.Client()
	c.Do("POST", "/api/admin/login", map[string]any{"password": OwnerPassword}).Expect(h.T, 200, "")
	return c
}

// Organizer creates an organizer account for the events and returns a
// client signed in as it.
func (h *Harness) Organizer(username string, eventIDs ...string) *Client {
	h.T.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte("organizer-password"), bcrypt.MinCost)
	if err != nil {
		h.T.Fatal(err)
	}
	a := store.Account{Username: username, Role: store.RoleOrganizer, EventIDs: eventIDs, PasswordHash: string(hash)}
	if err := h.Store.Accounts().Create(context.Background(), &a); err != nil {
		h.T.Fatalf("creating organizer: %v", err)
	}
	c := h.Client()
	c.Do("POST", "/api/admin/login", map[string]any{"username": username, "password": "organizer-password"}).Expect(h.T, 200, "")
	return c
}

// CreateEvent makes an event with the fields as the client (the owner or
// an organizer) and returns its JSON.
func (h *Harness) CreateEvent(c *Client, fields map[string]any) map[string]any {
	h.T.Helper()
	r := c.Do("POST", "/api/admin/events", fields).Expect(h.T, 201, "")
	return r.JSON["event"].(map[string]any)
}

// Guest returns a client that joined the event with the slug.
func (h *Harness) Guest(slug string) *Client {
	c := h.Client()
	c.Do("POST", "/api/e/"+slug+"/join", nil).Expect(h.T, 200, "")
	return c
}
