package boxtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// partySettings is the settings file a host writes on the boot partition.
const partySettings = `hotspot_name = Anna & Marc
hotspot_password = confetti2025
country = FR
time_zone = Europe/Paris
owner_name = anna
owner_password = a-long-party-password
`

// phoneReport mirrors boxagent's PhoneReport.
type phoneReport struct {
	Joined   string `json:"joined"`
	JoinTook string `json:"joinTook"`
	Lease    struct {
		IP     net.IP `json:"ip"`
		Router net.IP `json:"router"`
		DNS    net.IP `json:"dns"`
	} `json:"lease"`
	Captive   map[string]string `json:"captiveDNS"`
	Probe     string            `json:"probe"`
	MDNS      string            `json:"mdns"`
	EventPage int               `json:"eventPage"`
	Home      string            `json:"home"`
	Setup     string            `json:"setup"`
	Uploads   []struct {
		File   string `json:"file"`
		SHA256 string `json:"sha256"`
		Status int    `json:"status"`
		ID     string `json:"id"`
	} `json:"uploads"`
}

// repoFile is a file of the repository, from this package's directory.
func repoFile(parts ...string) string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(append([]string{filepath.Dir(here), "..", ".."}, parts...)...)
}

// onePhoneOnTheHotspot is a box booted with a settings file, as a host
// who wrote eventbox.txt: the box applies it and opens its hotspot on its
// radio with its own NetworkManager setup; a phone on a second radio joins
// with the password, gets an address, finds every name resolving to the
// box (the captive portal's trigger), resolves eventbox.local by mDNS,
// opens the event and uploads a photo and a video, which the hosts' console
// lists byte for byte; the console, opened in this machine's Chromium
// through the forwarded port, signs the host in and shows both.
func onePhoneOnTheHotspot(t *testing.T, m *machine) {
	t.Logf("the box's devices:\n%s", m.sh("", "nmcli", "-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device"))
	left := m.sh("", "cat", "/boot/firmware/eventbox.txt")
	if strings.Contains(left, "confetti2025") || strings.Contains(left, "a-long-party-password") {
		t.Errorf("the passwords are still readable on the boot partition:\n%s", left)
	}

	h := m.signIn("anna", "a-long-party-password")
	ev := h.json("POST", "/api/admin/events", map[string]any{"name": "Anna & Marc", "allowVideos": true}, http.StatusCreated)["event"].(map[string]any)
	slug, id := ev["slug"].(string), ev["id"].(string)
	t.Logf("the hosts made the event %q (%s) from the console", ev["name"], slug)

	m.put(repoFile("imaging", "testdata", "phone-gps.jpg"), "/run/boxtest/photo.jpg")
	m.put(repoFile("imaging", "testdata", "phone-gps.mp4"), "/run/boxtest/video.mp4")
	out := m.sh("phone", "/usr/local/lib/boxtest/boxagent", "phone", "-i", "wlan1",
		"-ssid", "Anna & Marc", "-psk", "confetti2025", "-slug", slug,
		"-photo", "/run/boxtest/photo.jpg", "-video", "/run/boxtest/video.mp4", "-poster", "/run/boxtest/photo.jpg")
	var rep phoneReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("the phone's report: %v\n%s", err, out)
	}
	t.Logf("the phone joined %q in %s, got %s (router %s, DNS %s); eventbox.local is %s; Android's probe got %q",
		rep.Joined, rep.JoinTook, rep.Lease.IP, rep.Lease.Router, rep.Lease.DNS, rep.MDNS, rep.Probe)
	box := rep.Lease.Router.String()
	if rep.Lease.IP == nil || rep.Lease.Router == nil {
		t.Fatalf("the phone got no address and router: %+v", rep.Lease)
	}
	for name, ip := range rep.Captive {
		if ip != box {
			t.Errorf("on the hotspot %s resolves to %s, want the box %s (the captive portal's trigger)", name, ip, box)
		}
	}
	if rep.MDNS != box {
		t.Errorf("eventbox.local resolves by mDNS to %q, want %s", rep.MDNS, box)
	}
	if strings.HasPrefix(rep.Probe, "204") || strings.HasPrefix(rep.Probe, "error") {
		t.Errorf("Android's connectivity probe got %q: the phone would not show the captive sheet", rep.Probe)
	}
	if rep.EventPage != http.StatusOK {
		t.Errorf("the event page answered %d", rep.EventPage)
	}
	if len(rep.Uploads) != 2 {
		t.Fatalf("the phone sent %d files, want a photo and a video", len(rep.Uploads))
	}
	for _, u := range rep.Uploads {
		if u.Status != http.StatusCreated || u.ID == "" {
			t.Errorf("uploading %s answered %d (id %q)", u.File, u.Status, u.ID)
			continue
		}
		st, b := h.do("GET", "/api/media/"+u.ID+"?v=original", nil, "")
		sum := sha256.Sum256(b)
		if st != http.StatusOK || hex.EncodeToString(sum[:]) != u.SHA256 {
			t.Errorf("the console's copy of %s: %d, sha256 %x, want %s", u.File, st, sum, u.SHA256)
		}
		t.Logf("%s: uploaded as %s, %d bytes, byte-identical in the console", u.File, u.ID, len(b))
	}
	list := h.json("GET", "/api/admin/events/"+id+"/photos", nil, http.StatusOK)["photos"].([]any)
	if len(list) != 2 {
		t.Errorf("the console lists %d photos, want 2", len(list))
	}
	// The hosts' console in a real browser, through the forwarded port.
	tiles, title := consoleInChromium(t, m.http, "anna", "a-long-party-password", id)
	t.Logf("the console in Chromium: signed in as anna, the event's photos page %q shows %d photos", title, tiles)
	if tiles != 2 {
		t.Errorf("the console in Chromium shows %d photos, want 2", tiles)
	}
}
