package scenarios_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/internal/testtool"
)

// pdfCodes renders every page of a PDF with pdftoppm and decodes every QR
// code on them with zbarimg; it returns the codes' texts, sorted, and
// the PDF's text (pdftotext).
func pdfCodes(t *testing.T, pdf []byte) ([]string, string) {
	t.Helper()
	needTool(t, "pdftoppm", "poppler-utils")
	needTool(t, "zbarimg", "zbar-tools")
	dir := t.TempDir()
	if d := os.Getenv("SIGNAGE_DIR"); d != "" {
		// Keep the pages to look at them.
		dir, _ = os.MkdirTemp(d, strings.ReplaceAll(t.Name(), "/", "-"))
	}
	in := filepath.Join(dir, "sign.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "pdftoppm", "-r", "110", "-gray", "-png", in, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	if len(pages) == 0 {
		t.Fatal("pdftoppm drew no page")
	}
	var codes []string
	for _, p := range pages {
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", p)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("zbarimg on %s: %v (%s)", filepath.Base(p), err, stderr.String())
		}
		codes = append(codes, strings.Split(strings.TrimRight(string(out), "\n"), "\n")...)
	}
	sort.Strings(codes)
	txt, err := exec.CommandContext(ctx, "pdftotext", in, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return codes, string(txt)
}

func TestSignage(t *testing.T) {
	testtool.Unraced(t, "rendering signs and reading their codes back")
	t.Parallel()
	h := newHarness(t, func(c *daemon.Config) {
		c.HotspotWiFi = func(context.Context) (string, string, bool) { return "Anna;Marco", `pa:ss"word`, true }
	})
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Anna & Marco’s wedding", "accessCode": "ROSE42", "accentColor": "#b0306a", "defaultLocale": "fr"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	join := h.srv.URL + "/e/" + slug
	wifi := `WIFI:T:WPA;S:Anna\;Marco;P:pa\:ss\"word;;`
	path := "/api/admin/events/" + id + "/signage"

	t.Run("a sheet of A6 table cards joins the hotspot, then the event, in the event's language", func(t *testing.T) {
		r := owner.do("GET", path+"?kind=table", nil).expect(t, 200, "")
		if r.Header.Get("Content-Type") != "application/pdf" {
			t.Fatalf("type %q", r.Header.Get("Content-Type"))
		}
		codes, txt := pdfCodes(t, r.Body)
		want := []string{join, join, join, join, wifi, wifi, wifi, wifi}
		sort.Strings(want)
		if strings.Join(codes, "\n") != strings.Join(want, "\n") {
			t.Fatalf("codes = %q, want four cards of %q and %q", codes, join, wifi)
		}
		for _, s := range []string{"Rejoignez le Wi-Fi", "Anna;Marco", `pa:ss"word`, "ROSE42", "Scannez pour partager"} {
			if !strings.Contains(txt, s) {
				t.Errorf("the card lacks %q; text: %q", s, txt)
			}
		}
	})
	t.Run("a poster names the network the host typed", func(t *testing.T) {
		r := owner.do("GET", path+"?kind=poster&size=a3&lang=en&ssid=Garden&wifiPassword=", nil).expect(t, 200, "")
		codes, txt := pdfCodes(t, r.Body)
		want := []string{join, "WIFI:T:nopass;S:Garden;;"}
		sort.Strings(want)
		if strings.Join(codes, "\n") != strings.Join(want, "\n") {
			t.Fatalf("codes = %q, want %q", codes, want)
		}
		if !strings.Contains(txt, "Join the Wi-Fi") || !strings.Contains(txt, "No password") {
			t.Errorf("poster text: %q", txt)
		}
	})
	t.Run("without the Wi-Fi step a card has the event's code only", func(t *testing.T) {
		r := owner.do("GET", path+"?kind=table&size=a5&wifi=0", nil).expect(t, 200, "")
		codes, _ := pdfCodes(t, r.Body)
		if want := []string{join, join}; strings.Join(codes, "\n") != strings.Join(want, "\n") {
			t.Fatalf("codes = %q, want two A5 cards of %q", codes, join)
		}
	})
	t.Run("place cards need places, then have one card each", func(t *testing.T) {
		owner.do("GET", path+"?kind=place", nil).expect(t, 400, "bad_request")
		var ids []string
		for _, l := range []string{"Bar", "Dance floor"} {
			sp := owner.do("POST", "/api/admin/events/"+id+"/spots", map[string]any{"label": l}).expect(t, 201, "")
			ids = append(ids, sp.JSON["spot"].(map[string]any)["id"].(string))
		}
		r := owner.do("GET", path+"?kind=place&wifi=0", nil).expect(t, 200, "")
		codes, txt := pdfCodes(t, r.Body)
		want := []string{join + "?at=" + ids[0], join + "?at=" + ids[1]}
		sort.Strings(want)
		if strings.Join(codes, "\n") != strings.Join(want, "\n") {
			t.Fatalf("codes = %q, want %q", codes, want)
		}
		if !strings.Contains(txt, "Dance floor") {
			t.Errorf("place card text: %q", txt)
		}
	})
	t.Run("a mixed party's sign speaks two languages where both fit", func(t *testing.T) {
		// A word both languages spell alike is printed once: Italian
		// and English both say "Password".
		for _, tt := range []struct{ query, first, second, once string }{
			{"?kind=poster&size=a4&lang=fr,en", "Rejoignez le Wi-Fi", "Join the Wi-Fi", "Mot de passe / Password"},
			{"?kind=table&lang=it,fr", "Collegati al Wi-Fi", "Rejoignez le Wi-Fi", "Password / Mot de passe"},
			{"?kind=poster&size=a4&lang=it,en", "Collegati al Wi-Fi", "Join the Wi-Fi", "Password"},
			{"?kind=table&size=a5&lang=en,it", "Join the Wi-Fi", "Collegati al Wi-Fi", "Password"},
		} {
			r := owner.do("GET", path+tt.query, nil).expect(t, 200, "")
			codes, txt := pdfCodes(t, r.Body)
			if !slices.Contains(codes, join) {
				t.Errorf("%s: codes = %q, want the event's among them", tt.query, codes)
			}
			flat := strings.Join(strings.Fields(txt), " ")
			for _, s := range []string{tt.first, tt.second, "ROSE42", tt.once} {
				if !strings.Contains(flat, s) {
					t.Errorf("%s: the sign lacks %q; text: %q", tt.query, s, flat)
				}
			}
			if strings.Contains(flat, tt.once+" / "+tt.once) {
				t.Errorf("%s: the sign prints %q twice over: %q", tt.query, tt.once, flat)
			}
		}
		for _, bad := range []string{"fr,fr", "fr,de", "fr,en,it", ",en", "fr,"} {
			r := owner.do("GET", path+"?kind=poster&lang="+bad, nil).expect(t, 400, "bad_request")
			if d := r.details(); d["lang"] == nil {
				t.Errorf("lang=%s: details = %v, want lang named", bad, d)
			}
		}
	})
	t.Run("bad parameters are named", func(t *testing.T) {
		r := owner.do("GET", path+"?kind=flyer&lang=de", nil).expect(t, 400, "bad_request")
		if d := r.details(); d["kind"] == nil || d["lang"] == nil {
			t.Fatalf("details = %v", d)
		}
		owner.do("GET", path+"?kind=poster&size=a6", nil).expect(t, 400, "bad_request")
	})
}

// TestSignageTwoLanguagesFallBackToOne: a sign asked in two languages
// (lang=es,fr) prints both on every card where both fit, and a card where
// they do not (a place's long name, a long network name and password on
// an A6 place card) prints the first language alone, whole: every fixed
// text in Spanish, none of it in French, and no card left without its
// steps. The route does not refuse or shrink below the codes' least size.
func TestSignageTwoLanguagesFallBackToOne(t *testing.T) {
	testtool.Unraced(t, "rendering signs and reading their text back")
	t.Parallel()
	h := newHarness(t, func(c *daemon.Config) {
		c.HotspotWiFi = func(context.Context) (string, string, bool) { return "", "", false }
	})
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "The wedding of Annabella Margherita & Marco Francesco Bellandi", "accessCode": "ROSE42"})
	id := ev["id"].(string)
	path := "/api/admin/events/" + id + "/signage"
	for _, l := range []string{"Bar", "The dance floor under the old oak trees"} {
		owner.do("POST", "/api/admin/events/"+id+"/spots", map[string]any{"label": l}).expect(t, 201, "")
	}
	const (
		short = "&ssid=Anna%20%26%20Marco&wifiPassword=celebrate2026"
		long  = "&ssid=Anna%20%26%20Marco%20wedding%20guests&wifiPassword=celebrate-2026-with-us-all-night-long"
	)
	// Each card's fixed texts, in the first language and the second (the
	// Wi-Fi step's when it has one).
	es := []string{"Escanea para compartir tus fotos", "Código de acceso", "¡Comparte tus fotos y vídeos del día!"}
	fr := []string{"Scannez pour partager vos photos", "Code d’accès", "Partagez vos photos et vidéos de la journée"}
	tests := []struct {
		name, query string
		wifi        bool
		cards, both int
	}{
		{"place cards: the bar's has both, the long place's Spanish alone", "?kind=place&lang=es,fr" + short, true, 2, 1},
		{"place cards with a long network and password: Spanish alone on each", "?kind=place&lang=es,fr" + long, true, 2, 0},
		{"table cards keep both with the long network", "?kind=table&size=a6&lang=es,fr" + long, true, 4, 4},
		{"a poster keeps both with the long network", "?kind=poster&size=a4&lang=es,fr" + long, true, 1, 1},
		{"place cards without the Wi-Fi step keep both", "?kind=place&lang=es,fr&wifi=0", false, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.do("GET", path+tt.query, nil).expect(t, 200, "")
			codes, txt := pdfCodes(t, r.Body)
			flat := strings.Join(strings.Fields(txt), " ")
			first, second := es, fr
			if tt.wifi {
				first = append([]string{"Conéctate al Wi-Fi", "Contraseña"}, first...)
				second = append([]string{"Rejoignez le Wi-Fi", "Red / Réseau", "Contraseña / Mot de passe"}, second...)
			}
			if want := map[bool]int{true: 2, false: 1}[tt.wifi] * tt.cards; len(codes) != want {
				t.Errorf("%d codes, want %d on %d cards: %q", len(codes), want, tt.cards, codes)
			}
			for _, s := range first {
				if n := strings.Count(flat, s); n != tt.cards {
					t.Errorf("%q is on %d cards, want every one of %d", s, n, tt.cards)
				}
			}
			for _, s := range second {
				if n := strings.Count(flat, s); n != tt.both {
					t.Errorf("%q is on %d cards, want %d (those where both languages fit)", s, n, tt.both)
				}
			}
			if t.Failed() {
				t.Logf("the sign says %q", flat)
			}
		})
	}
}
