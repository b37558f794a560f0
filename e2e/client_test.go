package e2e

import (
	"bytes"
	"encoding/json"
	"image"
	_ "image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// client calls the box's API as the console or a guest's phone would,
// with its own cookies and a same-origin Origin header. Tests use it to
// set the stage that the page under test then shows.
type client struct {
	base string
	http *http.Client
}

func newClient(t *testing.T, base string) *client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &client{base: base, http: &http.Client{Jar: jar, Timeout: 20 * time.Second}}
}

// do sends a request and decodes a JSON answer into out (when not nil);
// it returns the status.
func (c *client) do(t *testing.T, method, path, contentType string, body io.Reader, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", c.base)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading answer: %v", method, path, err)
	}
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: decoding %s: %v", method, path, raw, err)
		}
	}
	return res.StatusCode
}

// json sends a JSON body (nil: none).
func (c *client) json(t *testing.T, method, path string, in, out any) int {
	t.Helper()
	var body io.Reader
	ct := ""
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		body, ct = bytes.NewReader(b), "application/json"
	}
	return c.do(t, method, path, ct, body, out)
}

// upload sends a file as the multipart field of a form.
func (c *client) upload(t *testing.T, path, field, file string, out any) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile(field, filepath.Base(file))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return c.do(t, "POST", path, w.FormDataContentType(), &buf, out)
}

// signIn signs the first owner in.
func (c *client) signIn(t *testing.T) {
	t.Helper()
	if st := c.json(t, "POST", "/api/admin/login", map[string]string{"password": ownerPassword}, nil); st != http.StatusOK {
		t.Fatalf("signing in: status %d", st)
	}
}

// image fetches and decodes an image the box serves.
func (c *client) image(t *testing.T, path string) image.Image {
	t.Helper()
	res, err := c.http.Get(c.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", path, res.StatusCode)
	}
	img, _, err := image.Decode(res.Body)
	if err != nil {
		t.Fatalf("GET %s: decoding: %v", path, err)
	}
	return img
}
