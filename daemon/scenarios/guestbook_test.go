package scenarios_test

import (
	"archive/zip"
	"bytes"
	"io"
	"mime/multipart"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// postMessage sends a guestbook message; audio may be nil.
func (c *client) postMessage(slug, text string, audio []byte, seconds string) response {
	c.h.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if text != "" {
		mw.WriteField("text", text)
	}
	if audio != nil {
		fw, _ := mw.CreateFormFile("audio", "note.ogg")
		fw.Write(audio)
		mw.WriteField("seconds", seconds)
	}
	mw.Close()
	return c.do("POST", "/api/e/"+slug+"/messages", buf.Bytes(), "Content-Type", mw.FormDataContentType())
}

func TestGuestbook(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Ana & Ben", "defaultLocale": "fr"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	otherEv := h.createEvent(owner, map[string]any{"name": "Other"})
	ana, ben := h.guest(slug), h.guest(slug)
	ana.do("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Ana"}).expect(t, 200, "")
	ogg, err := os.ReadFile("../../probe/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	m4a, _ := os.ReadFile("../../probe/testdata/voice.m4a")
	mp3, _ := os.ReadFile("../../probe/testdata/voice-vbr.mp3")
	mp4, _ := os.ReadFile("../../probe/testdata/moov-at-end.mp4")

	tests := []struct {
		name       string
		text       string
		audio      []byte
		seconds    string
		wantStatus int
		wantCode   string
		field      string
	}{
		{"a text message is taken", "Félicitations !", nil, "", 201, "", ""},
		{"an Ogg Opus voice note is taken", "", ogg, "0.8", 201, "", ""},
		{"an MP4/AAC voice note with text is taken", "Bravo", m4a, "0.8", 201, "", ""},
		{"an MP3 voice note is taken", "", mp3, "0.8", 201, "", ""},
		{"an empty message is refused", "   ", nil, "", 400, "bad_request", "text"},
		{"text over 2000 characters is refused", strings.Repeat("é", 2001), nil, "", 400, "bad_request", "text"},
		{"a video is not a voice note", "", mp4, "1", 400, "bad_request", "audio"},
		{"garbage is not a voice note", "", []byte("not audio at all, just words"), "1", 400, "bad_request", "audio"},
		{"seconds far from the recording are refused", "", ogg, "30", 400, "bad_request", "seconds"},
		{"missing seconds are refused", "", ogg, "", 400, "bad_request", "seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ana.postMessage(slug, tt.text, tt.audio, tt.seconds).expect(t, tt.wantStatus, tt.wantCode)
			if tt.field != "" {
				if _, ok := r.details()[tt.field]; !ok {
					t.Errorf("details %v do not name %s", r.details(), tt.field)
				}
				return
			}
			m := r.JSON["message"].(map[string]any)
			if m["mine"] != true || m["status"] != "visible" || m["guestName"] != "Ana" || m["hasAudio"] != (tt.audio != nil) {
				t.Errorf("message = %v", m)
			}
			if tt.audio != nil {
				if s := m["seconds"].(float64); s < 0.5 || s > 1.2 {
					t.Errorf("seconds = %v, want about 0.8", s)
				}
			}
		})
	}
	var voiceID string
	t.Run("the guest lists only their own messages", func(t *testing.T) {
		mine := ana.do("GET", "/api/e/"+slug+"/messages", nil).expect(t, 200, "").JSON["messages"].([]any)
		if len(mine) != 4 {
			t.Fatalf("%d messages, want 4", len(mine))
		}
		for _, m := range mine {
			if mm := m.(map[string]any); mm["hasAudio"] == true && voiceID == "" {
				voiceID = mm["id"].(string)
			}
		}
		if others := ben.do("GET", "/api/e/"+slug+"/messages", nil).expect(t, 200, "").JSON["messages"].([]any); len(others) != 0 {
			t.Fatalf("another guest sees %d messages", len(others))
		}
	})
	t.Run("a voice note is heard by its author and the hosts only", func(t *testing.T) {
		r := ana.do("GET", "/api/messages/"+voiceID+"/audio", nil, "Range", "bytes=0-9").expect(t, 206, "")
		if len(r.Body) != 10 || !strings.HasPrefix(r.Header.Get("Content-Type"), "audio/") {
			t.Fatalf("range answer: %d bytes, %q", len(r.Body), r.Header.Get("Content-Type"))
		}
		owner.do("GET", "/api/messages/"+voiceID+"/audio?download=1", nil).expect(t, 200, "")
		ben.do("GET", "/api/messages/"+voiceID+"/audio", nil).expect(t, 404, "not_found")
		h.client().do("GET", "/api/messages/"+voiceID+"/audio", nil).expect(t, 404, "not_found")
		h.organizer("planner", otherEv["id"].(string)).do("GET", "/api/messages/"+voiceID+"/audio", nil).expect(t, 404, "not_found")
	})
	t.Run("a guest deletes only their own", func(t *testing.T) {
		r := ben.postMessage(slug, "from Ben", nil, "").expect(t, 201, "")
		benMsg := r.JSON["message"].(map[string]any)["id"].(string)
		ana.do("DELETE", "/api/e/"+slug+"/messages/"+benMsg, nil).expect(t, 404, "not_found")
		ben.do("DELETE", "/api/e/"+slug+"/messages/"+benMsg, nil).expect(t, 200, "")
		ben.do("DELETE", "/api/e/"+slug+"/messages/"+benMsg, nil).expect(t, 404, "not_found")
	})
	t.Run("the hosts moderate", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"moderation": "pre"}).expect(t, 200, "")
		h.clock.Advance(time.Second)
		pending := ana.postMessage(slug, "wait for me", nil, "").expect(t, 201, "").JSON["message"].(map[string]any)
		if pending["status"] != "pending" {
			t.Fatalf("status under pre-moderation = %v", pending["status"])
		}
		list := owner.do("GET", "/api/admin/events/"+id+"/messages?status=pending", nil).expect(t, 200, "")
		if msgs := list.JSON["messages"].([]any); len(msgs) != 1 || list.JSON["nextCursor"] != nil {
			t.Fatalf("pending list = %s", list.Body)
		}
		pid := pending["id"].(string)
		for _, tt := range []struct {
			body    map[string]any
			changed float64
			code    int
		}{
			{map[string]any{"action": "approve", "ids": []string{pid}}, 1, 200},
			{map[string]any{"action": "approve", "ids": []string{pid}}, 0, 200},
			{map[string]any{"action": "hide", "ids": []string{pid, "nosuchmessage000"}}, 1, 200},
			{map[string]any{"action": "publish", "ids": []string{pid}}, 0, 400},
			{map[string]any{"action": "hide", "ids": []string{}}, 0, 400},
		} {
			r := owner.do("POST", "/api/admin/events/"+id+"/messages", tt.body)
			if r.Status != tt.code || (tt.code == 200 && r.JSON["changed"] != tt.changed) {
				t.Errorf("%v: %d %s", tt.body, r.Status, r.Body)
			}
		}
		owner.do("POST", "/api/admin/events/"+otherEv["id"].(string)+"/messages", map[string]any{"action": "delete", "ids": []string{pid}}).expect(t, 200, "")
		if _, err := h.st.Messages().Get(t.Context(), pid); err != nil {
			t.Fatalf("another event's action touched the message: %v", err)
		}
		h.organizer("planner2", otherEv["id"].(string)).do("GET", "/api/admin/events/"+id+"/messages", nil).expect(t, 404, "not_found")
	})
	t.Run("the admin list pages with a cursor", func(t *testing.T) {
		for i := 0; i < 55; i++ {
			ben.postMessage(slug, "line", nil, "").expect(t, 201, "")
		}
		first := owner.do("GET", "/api/admin/events/"+id+"/messages", nil).expect(t, 200, "")
		if n := len(first.JSON["messages"].([]any)); n != 50 || first.JSON["nextCursor"] == nil {
			t.Fatalf("first page: %d messages, next %v", n, first.JSON["nextCursor"])
		}
		next := int64(first.JSON["nextCursor"].(float64))
		second := owner.do("GET", "/api/admin/events/"+id+"/messages?before="+itoa(next), nil).expect(t, 200, "")
		if n := len(second.JSON["messages"].([]any)); n != 10 || second.JSON["nextCursor"] != nil {
			t.Fatalf("second page: %d messages, next %v", n, second.JSON["nextCursor"])
		}
	})
	t.Run("the archive holds guestbook.txt and the voice notes", func(t *testing.T) {
		r := owner.do("GET", "/api/admin/events/"+id+"/messages/archive", nil).expect(t, 200, "")
		zr, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
		if err != nil {
			t.Fatalf("not a ZIP: %v", err)
		}
		files := map[string][]byte{}
		for _, f := range zr.File {
			rc, _ := f.Open()
			files[f.Name], _ = io.ReadAll(rc)
			rc.Close()
		}
		txt := string(files["guestbook.txt"])
		for _, want := range []string{"Livre d'or — Ana & Ben", "Ana — ", "Félicitations !", "Message vocal: voice/", "[hidden]"} {
			if !strings.Contains(txt, want) {
				t.Errorf("guestbook.txt lacks %q:\n%s", want, txt)
			}
		}
		voices := 0
		for name, data := range files {
			if strings.HasPrefix(name, "voice/") {
				voices++
				if !strings.Contains(txt, name) {
					t.Errorf("%s is not named in guestbook.txt", name)
				}
				if strings.HasSuffix(name, ".ogg") && !bytes.Equal(data, ogg) {
					t.Errorf("%s differs from the recording", name)
				}
			}
		}
		if voices != 3 {
			t.Errorf("%d voice notes in the archive, want 3", voices)
		}
	})
	t.Run("a guestbook switched off refuses guests", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"guestbookVoice": false}).expect(t, 200, "")
		ana.postMessage(slug, "", ogg, "0.8").expect(t, 403, "forbidden")
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"guestbookEnabled": false}).expect(t, 200, "")
		ana.postMessage(slug, "hello", nil, "").expect(t, 403, "forbidden")
		ana.do("GET", "/api/e/"+slug+"/messages", nil).expect(t, 403, "forbidden")
		h.client().do("GET", "/api/e/"+slug+"/messages", nil).expect(t, 403, "forbidden")
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
