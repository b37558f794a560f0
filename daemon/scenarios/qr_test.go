package scenarios_test

import (
	"bytes"
	"context"
	"mime"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// needTool skips the test when a real-reader tool is not installed.
func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	testtool.Need(t, pkg, name)
}

// zbarDecode decodes the QR code of a PNG with zbarimg.
func zbarDecode(t *testing.T, pngData []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "code.png")
	if err := os.WriteFile(path, pngData, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zbarimg found no code: %v (%s)", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimRight(string(out), "\n")
}

// rasterise renders an SVG to a PNG at its own size with rsvg-convert.
func rasterise(t *testing.T, svg []byte) []byte {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "code.svg"), filepath.Join(dir, "code.png")
	if err := os.WriteFile(in, svg, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if msg, err := exec.CommandContext(ctx, "rsvg-convert", "--format", "png", "--output", out, in).CombinedOutput(); err != nil {
		t.Fatalf("rsvg-convert: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// qrFixture is two events on a box with BASE_URL set: a plain one (black
// square dots, no logo) and a styled one (navy round dots on cream with
// the logo), each with a place.
type qrFixture struct {
	h                       *harness
	owner                   *client
	plain, styled           map[string]any
	plainSpot, styledSpot   store.Spot
	plainID, styledID       string
	plainSlug, styledSlug   string
	plainLabel, styledLabel string
}

func newQRFixture(t *testing.T) *qrFixture {
	t.Helper()
	h := newHarness(t, func(c *daemon.Config) { c.BaseURL = "http://eventbox.local/" })
	f := &qrFixture{h: h, owner: h.owner(), plainLabel: "Bar", styledLabel: "Salle des fêtes · 宴会厅"}
	f.plain = h.createEvent(f.owner, map[string]any{"name": "Plain party"})
	f.styled = h.createEvent(f.owner, map[string]any{"name": "Marie & Paul", "qrStyle": map[string]any{
		"foreground": "#1a235a", "background": "#fffaf0", "dots": "round", "logo": true,
	}})
	f.plainID, f.plainSlug = f.plain["id"].(string), f.plain["slug"].(string)
	f.styledID, f.styledSlug = f.styled["id"].(string), f.styled["slug"].(string)
	f.owner.uploadLogo(f.styledID, photoJPEG(t, 300, 200, 0, false, 3)).expect(t, 200, "")
	ctx := context.Background()
	f.plainSpot = store.Spot{EventID: f.plainID, Label: f.plainLabel}
	f.styledSpot = store.Spot{EventID: f.styledID, Label: f.styledLabel}
	for _, sp := range []*store.Spot{&f.plainSpot, &f.styledSpot} {
		if err := h.st.Spots().Create(ctx, sp); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func TestQRCodesScan(t *testing.T) {
	testtool.Long(t, "QR codes read back by zbarimg")
	testtool.Unraced(t, "drawing 4096 px QR codes")
	needTool(t, "zbarimg", "zbar-tools")
	f := newQRFixture(t)
	// A 4096 px code with a logo takes seconds to draw, many more under
	// the race detector on a busy machine.
	f.owner.hc.Timeout = 3 * time.Minute
	tests := []struct {
		name   string
		event  string
		format string
		size   int
		spot   string
		want   string
	}{
		{"a plain event code as the smallest PNG", f.plainID, "png", 512, "", "http://eventbox.local/e/" + f.plainSlug},
		{"a styled event code with logo and round dots as the smallest PNG", f.styledID, "png", 512, "", "http://eventbox.local/e/" + f.styledSlug},
		{"a styled event code with logo and round dots as the largest PNG", f.styledID, "png", 4096, "", "http://eventbox.local/e/" + f.styledSlug},
		{"a plain place code as the smallest PNG", f.plainID, "png", 512, f.plainSpot.ID, "http://eventbox.local/e/" + f.plainSlug + "?at=" + f.plainSpot.ID},
		{"a styled place code as the smallest PNG", f.styledID, "png", 512, f.styledSpot.ID, "http://eventbox.local/e/" + f.styledSlug + "?at=" + f.styledSpot.ID},
		{"a plain place code as the largest PNG", f.plainID, "png", 4096, f.plainSpot.ID, "http://eventbox.local/e/" + f.plainSlug + "?at=" + f.plainSpot.ID},
		{"a plain event code as the smallest SVG", f.plainID, "svg", 512, "", "http://eventbox.local/e/" + f.plainSlug},
		{"a styled event code as the largest SVG", f.styledID, "svg", 4096, "", "http://eventbox.local/e/" + f.styledSlug},
		{"a styled place code as the smallest SVG", f.styledID, "svg", 512, f.styledSpot.ID, "http://eventbox.local/e/" + f.styledSlug + "?at=" + f.styledSpot.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && tt.size > 512 {
				t.Skip("large codes take seconds to decode; skipped with -short")
			}
			path := "/api/admin/events/" + tt.event + "/qr?format=" + tt.format + "&size=" + strconv.Itoa(tt.size)
			if tt.spot != "" {
				path += "&spot=" + tt.spot
			}
			r := f.owner.do("GET", path, nil).expect(t, 200, "")
			img := r.Body
			if tt.format == "svg" {
				needTool(t, "rsvg-convert", "librsvg2-bin")
				if ct := r.Header.Get("Content-Type"); ct != "image/svg+xml; charset=utf-8" {
					t.Errorf("Content-Type %q", ct)
				}
				img = rasterise(t, r.Body)
			} else if ct := r.Header.Get("Content-Type"); ct != "image/png" {
				t.Errorf("Content-Type %q", ct)
			}
			if b := decodePNG(t, img).Bounds(); b.Dx() != tt.size || b.Dy() != tt.size {
				t.Errorf("image is %v, want %d×%d", b.Size(), tt.size, tt.size)
			}
			if got := zbarDecode(t, img); got != tt.want {
				t.Errorf("code reads %q, want %q", got, tt.want)
			}
		})
	}
}

func TestQRCodeAnswers(t *testing.T) {
	f := newQRFixture(t)
	other := f.h.createEvent(f.owner, map[string]any{"name": "Other"})["id"].(string)
	org := f.h.organizer("olga", f.plainID)
	base := "/api/admin/events/" + f.plainID + "/qr"
	tests := []struct {
		name   string
		c      *client
		path   string
		status int
		code   string
		field  string // named in details
	}{
		{"the default is a 1024 px PNG", f.owner, base, 200, "", ""},
		{"a size below 512 is refused", f.owner, base + "?size=511", 400, "bad_request", "size"},
		{"a size above 4096 is refused", f.owner, base + "?size=4097", 400, "bad_request", "size"},
		{"a size that is not a number is refused", f.owner, base + "?size=big", 400, "bad_request", "size"},
		{"an unknown format is refused", f.owner, base + "?format=gif", 400, "bad_request", "format"},
		{"a place of another event is not found", f.owner, base + "?spot=" + f.styledSpot.ID, 404, "not_found", ""},
		{"a made-up place is not found", f.owner, base + "?spot=nothinglikeanid", 404, "not_found", ""},
		{"an organizer draws the code of an event of theirs", org, base + "?size=512", 200, "", ""},
		{"an organizer cannot reach another event's code", org, "/api/admin/events/" + other + "/qr", 404, "not_found", ""},
		{"a visitor is not signed in", f.h.client(), base, 401, "unauthorized", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.c.do("GET", tt.path, nil).expect(t, tt.status, tt.code)
			if tt.field != "" {
				if _, ok := r.details()[tt.field]; !ok {
					t.Errorf("details %v do not name %q", r.details(), tt.field)
				}
			}
			if tt.status == 200 && tt.path == base {
				if b := decodePNG(t, r.Body).Bounds(); b.Dx() != 1024 {
					t.Errorf("default size %v", b.Size())
				}
				if d := r.Header.Get("Content-Disposition"); d != "" {
					t.Errorf("Content-Disposition %q without download=1", d)
				}
			}
		})
	}
	t.Run("download=1 names the file after the event and the place", func(t *testing.T) {
		r := f.owner.do("GET", "/api/admin/events/"+f.styledID+"/qr?format=svg&size=512&download=1&spot="+f.styledSpot.ID, nil).expect(t, 200, "")
		disp, params, err := mime.ParseMediaType(r.Header.Get("Content-Disposition"))
		if err != nil || disp != "attachment" || params["filename"] != "Marie-Paul-Salle-des-fêtes-宴会厅-qr.svg" {
			t.Errorf("Content-Disposition %q: %s %v %v", r.Header.Get("Content-Disposition"), disp, params, err)
		}
	})
	t.Run("a place's code carries its name as text in the SVG", func(t *testing.T) {
		r := f.owner.do("GET", "/api/admin/events/"+f.styledID+"/qr?format=svg&size=512&spot="+f.styledSpot.ID, nil).expect(t, 200, "")
		if !bytes.Contains(r.Body, []byte(">Salle des fêtes · 宴会厅</text>")) {
			t.Errorf("the SVG has no caption text")
		}
		if !bytes.Contains(r.Body, []byte(`fill="#1a235a"`)) || !bytes.Contains(r.Body, []byte("data:image/png;base64,")) {
			t.Errorf("the SVG is not in the event's colours with its logo")
		}
	})
	t.Run("without BASE_URL the code points at the request's own origin", func(t *testing.T) {
		needTool(t, "zbarimg", "zbar-tools")
		h := newHarness(t)
		owner := h.owner()
		ev := h.createEvent(owner, map[string]any{"name": "P"})
		r := owner.do("GET", "/api/admin/events/"+ev["id"].(string)+"/qr?size=512", nil).expect(t, 200, "")
		if got, want := zbarDecode(t, r.Body), h.srv.URL+"/e/"+ev["slug"].(string); got != want {
			t.Errorf("code reads %q, want %q", got, want)
		}
	})
}
