package mediafile_test

import (
	"testing"
	"time"

	"eventbox/daemon/mediafile"
	"eventbox/store"
)

func TestDownloadName(t *testing.T) {
	at := time.Date(2026, 6, 20, 15, 4, 5, 0, time.UTC).UnixMilli()
	for _, tc := range []struct {
		name string
		p    store.Photo
		v    string
		want string
	}{
		{"taken time first", store.Photo{ID: "p1", GuestName: "Léa", CreatedAt: at + 3600e3, TakenAt: at}, "original", "20260620-150405-Léa-p1.jpg"},
		{"arrival without a taken time", store.Photo{ID: "p1", CreatedAt: at}, "original", "20260620-150405-p1.jpg"},
		{"a variant is named", store.Photo{ID: "p1", CreatedAt: at}, "thumb", "20260620-150405-p1-thumb.jpg"},
		{"unsafe characters become dashes", store.Photo{ID: "p1", GuestName: `../a:b*c?`, CreatedAt: at}, "original", "20260620-150405-a-b-c-p1.jpg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mediafile.DownloadName(tc.p, tc.v, ".jpg"); got != tc.want {
				t.Fatalf("DownloadName = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestContentDisposition(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"a.jpg", `attachment; filename="a.jpg"; filename*=UTF-8''a.jpg`},
		{`Léa "x".jpg`, `attachment; filename="L_a _x_.jpg"; filename*=UTF-8''L%C3%A9a%20%22x%22.jpg`},
	} {
		if got := mediafile.ContentDisposition(tc.name); got != tc.want {
			t.Errorf("ContentDisposition(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestExtensions(t *testing.T) {
	if mediafile.FormatExt("jpeg") != "jpg" || mediafile.FormatExt("heic") != "heic" {
		t.Error("FormatExt")
	}
	for mime, want := range map[string]string{"video/quicktime": ".mov", "video/webm": ".webm", "video/mp4": ".mp4", "": ".mp4"} {
		if got := mediafile.VideoExt(mime); got != want {
			t.Errorf("VideoExt(%q) = %q, want %q", mime, got, want)
		}
	}
}
