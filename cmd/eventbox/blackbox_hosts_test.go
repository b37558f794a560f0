package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"mime/multipart"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"eventbox/internal/testtool"
)

// upload sends a multipart photo (or the video content type) and returns
// the photo answer.
func (b *browser) uploadPhoto(path string, data []byte) map[string]any {
	b.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("photo", "IMG.jpg")
	fw.Write(data)
	mw.Close()
	status, _, out := b.call("POST", path, mw.FormDataContentType(), buf.Bytes())
	if status != 201 {
		b.t.Fatalf("upload to %s = %d %s", path, status, out)
	}
	var r map[string]any
	json.Unmarshal(out, &r)
	return r["photo"].(map[string]any)
}

// TestBlackBoxHostsAndGuests walks the rest of a party over HTTP only,
// against the real binary: videos from ffmpeg fetched with Range, the
// guestbook as guest and host, moderation, a password-protected gallery
// link with its ZIP, the album PDF, a QR code, the booth, and the end.
func TestBlackBoxHostsAndGuests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	d := startDaemon(t, bin, t.TempDir(), "ADMIN_PASSWORD=black-box-password")
	host := newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": "black-box-password"}, 200)
	ev := host.json("POST", "/api/admin/events", map[string]any{"name": "Garden party", "eventDate": "2026-07-04", "moderation": "pre"}, 201)["event"].(map[string]any)
	id, slug := ev["id"].(string), ev["slug"].(string)

	guest := newBrowser(t, d.url)
	guest.json("POST", "/api/e/"+slug+"/join", nil, 200)
	guest.json("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Léa"}, 200)

	t.Run("videos made by ffmpeg play back with Range", func(t *testing.T) {
		poster := phoneJPEG(t, 64, 48)
		for _, name := range []string{"moov-at-end.mp4", "quicktime.mov", "streamed.webm"} {
			video, err := os.ReadFile(filepath.Join("..", "..", "probe", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			req := append(append([]byte{}, poster...), video...)
			status, _, out := guest.callWith("POST", "/api/e/"+slug+"/photos", req,
				"Content-Type", "application/vnd.service.video", "X-Poster-Bytes", strconv.Itoa(len(poster)))
			if status != 201 {
				t.Fatalf("%s: %d %s", name, status, out)
			}
			var r map[string]any
			json.Unmarshal(out, &r)
			p := r["photo"].(map[string]any)
			if v, ok := p["video"].(map[string]any); !ok || v["durationMs"].(float64) < 900 {
				t.Fatalf("%s: photo %v", name, p)
			}
			status, h, body := guest.callWith("GET", "/api/media/"+p["id"].(string)+"?v=play", nil, "Range", "bytes=0-99")
			if status != 206 || len(body) != 100 || !strings.HasPrefix(h.Get("Content-Type"), "video/") || !bytes.Equal(body, video[:100]) {
				t.Fatalf("%s play: %d %q %d bytes", name, status, h.Get("Content-Type"), len(body))
			}
		}
	})

	var photoIDs []string
	for i := 0; i < 3; i++ {
		p := guest.uploadPhoto("/api/e/"+slug+"/photos", phoneJPEG(t, 800+i, 600))
		if p["status"] != "pending" {
			t.Fatalf("under pre-moderation a photo is %v", p["status"])
		}
		photoIDs = append(photoIDs, p["id"].(string))
	}
	t.Run("the hosts moderate and favour", func(t *testing.T) {
		r := host.json("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "approve", "ids": photoIDs}, 200)
		if r["changed"] != float64(3) {
			t.Fatalf("approve changed %v", r["changed"])
		}
		host.json("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "favorite", "ids": photoIDs[:1]}, 200)
		list := host.json("GET", "/api/admin/events/"+id+"/photos?favorites=1", nil, 200)["photos"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["favorite"] != true {
			t.Fatalf("favorites = %v", list)
		}
	})
	t.Run("the guestbook as guest and host", func(t *testing.T) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("text", "Merci pour tout !")
		mw.Close()
		status, _, out := guest.call("POST", "/api/e/"+slug+"/messages", mw.FormDataContentType(), buf.Bytes())
		if status != 201 {
			t.Fatalf("message = %d %s", status, out)
		}
		msgs := host.json("GET", "/api/admin/events/"+id+"/messages?status=pending", nil, 200)["messages"].([]any)
		if len(msgs) != 1 {
			t.Fatalf("pending messages = %v", msgs)
		}
		host.json("POST", "/api/admin/events/"+id+"/messages", map[string]any{"action": "approve", "ids": []string{msgs[0].(map[string]any)["id"].(string)}}, 200)
		status, _, zipped := host.call("GET", "/api/admin/events/"+id+"/messages/archive", "", nil)
		zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
		if status != 200 || err != nil || len(zr.File) != 1 || zr.File[0].Name != "guestbook.txt" {
			t.Fatalf("guestbook archive: %d %v", status, err)
		}
	})
	t.Run("a gallery link with a password, its photos and its ZIP", func(t *testing.T) {
		r := host.json("POST", "/api/admin/events/"+id+"/shares", map[string]any{"password": true, "allowDownload": true}, 201)
		share, password := r["share"].(map[string]any), r["password"].(string)
		token := share["token"].(string)
		viewer := newBrowser(t, d.url)
		if g := viewer.json("GET", "/api/g/"+token, nil, 200)["share"].(map[string]any); g["needsPassword"] != true {
			t.Fatalf("gallery = %v", g)
		}
		viewer.json("GET", "/api/g/"+token+"/photos", nil, 403)
		viewer.json("POST", "/api/g/"+token+"/unlock", map[string]any{"password": "wrong"}, 401)
		viewer.json("POST", "/api/g/"+token+"/unlock", map[string]any{"password": password}, 200)
		photos := viewer.json("GET", "/api/g/"+token+"/photos", nil, 200)["photos"].([]any)
		if len(photos) != 3 {
			t.Fatalf("the link shows %d photos, want the 3 approved", len(photos))
		}
		status, _, zipped := viewer.call("GET", "/api/g/"+token+"/archive", "", nil)
		zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
		if status != 200 || err != nil || len(zr.File) != 3 {
			t.Fatalf("gallery archive: %d, %v", status, err)
		}
	})
	t.Run("the album is a PDF", func(t *testing.T) {
		status, h, pdf := host.call("GET", "/api/admin/events/"+id+"/album?layout=2", "", nil)
		if status != 200 || h.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Fatalf("album: %d %q", status, h.Get("Content-Type"))
		}
		if testtool.Has(t, "poppler-utils", "pdfinfo") {
			f := filepath.Join(t.TempDir(), "album.pdf")
			os.WriteFile(f, pdf, 0o600)
			out, err := exec.Command("pdfinfo", f).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Pages:") {
				t.Fatalf("pdfinfo: %v %s", err, out)
			}
		}
	})
	t.Run("the QR code reads back as the guest address", func(t *testing.T) {
		status, h, png := host.call("GET", "/api/admin/events/"+id+"/qr?format=png&size=512", "", nil)
		if status != 200 || h.Get("Content-Type") != "image/png" {
			t.Fatalf("qr: %d %q", status, h.Get("Content-Type"))
		}
		testtool.Need(t, "zbar-tools", "zbarimg")
		f := filepath.Join(t.TempDir(), "qr.png")
		os.WriteFile(f, png, 0o600)
		out, err := exec.Command("zbarimg", "-q", "--raw", f).Output()
		if err != nil || strings.TrimSpace(string(out)) != d.url+"/e/"+slug {
			t.Fatalf("zbarimg read %q (%v), want %s", out, err, d.url+"/e/"+slug)
		}
	})
	t.Run("a booth device uploads as the photo booth", func(t *testing.T) {
		r := host.json("POST", "/api/admin/events/"+id+"/booth", map[string]any{}, 200)
		key := r["boothKey"].(string)
		if !strings.Contains(r["url"].(string), key) {
			t.Fatalf("booth url %v does not carry the key", r["url"])
		}
		booth := newBrowser(t, d.url)
		booth.json("POST", "/api/e/"+slug+"/booth", map[string]any{"key": "not-the-key-at-all"}, 403)
		booth.json("POST", "/api/e/"+slug+"/booth", map[string]any{"key": key}, 200)
		p := booth.uploadPhoto("/api/e/"+slug+"/photos", phoneJPEG(t, 640, 480))
		if p["guestName"] != "Photo booth" {
			t.Fatalf("booth photo = %v", p)
		}
	})
	t.Run("ending closes uploads and makes the gallery link", func(t *testing.T) {
		r := host.json("POST", "/api/admin/events/"+id+"/end", nil, 200)
		result := r["result"].(map[string]any)
		if r["event"].(map[string]any)["endedAt"] == nil || result["share"] == nil || result["shareUrl"] == nil {
			t.Fatalf("end = %v", r)
		}
		host.json("POST", "/api/admin/events/"+id+"/end", nil, 400)
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("photo", "late.jpg")
		fw.Write(phoneJPEG(t, 100, 100))
		mw.Close()
		status, _, out := guest.call("POST", "/api/e/"+slug+"/photos", mw.FormDataContentType(), buf.Bytes())
		if status != 403 || !strings.Contains(string(out), "uploads_closed") {
			t.Fatalf("upload after the end = %d %s", status, out)
		}
	})
}
