package events

import (
	"encoding/json"
	"image"
	"image/color"
	"strings"
	"testing"
	"unicode/utf8"

	"eventbox/daemon/mail"
	"eventbox/store"
)

// TestEndMailsOnePerAddress checks the end's mails without the router:
// one gallery mail per address whatever its case, the link's password in
// it only when the hosts allow it, and the hosts' summary counting the
// guests' mails.
func TestEndMailsOnePerAddress(t *testing.T) {
	contacts := map[string]string{"g1": "Ann@Example.com", "g2": "ann@example.com", "g3": "bob@example.com"}
	share := &store.Share{Token: "tok", PasswordHash: "hash", ExpiresAt: 1_900_000_000_000}
	tests := []struct {
		name         string
		withPassword bool
		share        *store.Share
		guestMails   int
		passwordIn   bool
	}{
		{"password kept out", false, share, 2, false},
		{"password allowed", true, share, 2, true},
		{"no link: no gallery mail", true, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := store.NewEvent("")
			e.ID, e.Name, e.EmailGuestsGallery, e.GalleryMailIncludesPassword = "ev1", "Party", true, tt.withPassword
			m := &endMails{origin: "https://box.example", domain: "box.example", password: "s3cret-pass",
				names: map[string]string{"g1": "Ann", "g3": "Bob"}, summary: &mail.Summary{To: "host@example.com"}}
			jobs, err := m.jobs(e, tt.share, contacts)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs.Guests) != tt.guestMails {
				t.Fatalf("%d guest mails, want %d: %v", len(jobs.Guests), tt.guestMails, jobs.Guests)
			}
			to := map[string]bool{}
			for guestID, spec := range jobs.Guests {
				if spec.Key != "gallery/ev1/"+guestID {
					t.Errorf("key %q for guest %s", spec.Key, guestID)
				}
				var msg mail.Message
				if err := json.Unmarshal(spec.Payload, &msg); err != nil {
					t.Fatal(err)
				}
				to[strings.ToLower(msg.To)] = true
				if !strings.Contains(msg.Text, "https://box.example/g/tok") {
					t.Errorf("mail to %s without the link:\n%s", msg.To, msg.Text)
				}
				if got := strings.Contains(msg.Text, "s3cret-pass"); got != tt.passwordIn {
					t.Errorf("password in the mail to %s: %v, want %v", msg.To, got, tt.passwordIn)
				}
			}
			if len(to) != len(jobs.Guests) {
				t.Errorf("two mails to one address: %v", to)
			}
			if len(jobs.Other) != 1 || jobs.Other[0].Key != "summary/ev1" {
				t.Fatalf("summary jobs %v", jobs.Other)
			}
		})
	}
}

// TestCopyName checks the duplicate's default name stays within the
// event model's longest name.
func TestCopyName(t *testing.T) {
	longest := store.Rules().Name.Max
	long := strings.Repeat("é", longest)
	tests := []struct{ name, want string }{
		{"Party", "Party (copy)"},
		{long, strings.Repeat("é", longest-len([]rune(copySuffix))) + copySuffix},
	}
	for _, tt := range tests {
		got := copyName(tt.name)
		if got != tt.want {
			t.Errorf("copyName(%.20q…) = %.20q…, want %.20q…", tt.name, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > longest {
			t.Errorf("copyName(%.20q…) has %d characters, over %d", tt.name, n, longest)
		}
	}
}

// TestCSVCell checks that a cell a spreadsheet would read as a formula is
// quoted, and no other.
func TestCSVCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Ann", "Ann"}, {"", ""}, {"=1+1", "'=1+1"}, {"+33 1", "'+33 1"}, {"-x", "'-x"},
		{"@SUM(A1)", "'@SUM(A1)"}, {"\tx", "'\tx"}, {"a=b", "a=b"},
	}
	for _, tt := range tests {
		if got := csvCell(tt.in); got != tt.want {
			t.Errorf("csvCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestOrient turns a 3×2 image by each EXIF orientation and checks where
// its top-left pixel lands.
func TestOrient(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 3, 2))
	mark := color.RGBA{R: 255, A: 255}
	src.Set(0, 0, mark)
	tests := []struct {
		o    int
		w, h int
		x, y int // where the top-left pixel goes
	}{
		{1, 3, 2, 0, 0}, {2, 3, 2, 2, 0}, {3, 3, 2, 2, 1}, {4, 3, 2, 0, 1},
		{5, 2, 3, 0, 0}, {6, 2, 3, 1, 0}, {7, 2, 3, 1, 2}, {8, 2, 3, 0, 2},
	}
	for _, tt := range tests {
		got := orient(src, tt.o)
		if b := got.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
			t.Errorf("orientation %d: %dx%d, want %dx%d", tt.o, b.Dx(), b.Dy(), tt.w, tt.h)
			continue
		}
		if c := color.RGBAModel.Convert(got.At(tt.x, tt.y)); c != mark {
			t.Errorf("orientation %d: (%d,%d) is %v, want the top-left pixel", tt.o, tt.x, tt.y, c)
		}
	}
}
