package mail_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"regexp"
	"strings"
	"testing"

	eventmail "eventbox/daemon/mail"
	"eventbox/daemon/mail/mailtest"
	"eventbox/store"
)

// thumbJPEG is a photo's thumb as the box makes it: 400 px on its long
// side, with enough detail (noise) to weigh what a real one does.
func thumbJPEG(t *testing.T, seed uint64) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	img := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for y := range 300 {
		for x := range 400 {
			n := uint8(r.IntN(40))
			img.Set(x, y, color.RGBA{uint8(x/2) + n, uint8(y/2) + n, 120 + n, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 82}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func logoPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 256, 128))
	for y := range 128 {
		for x := range 256 {
			if (x-128)*(x-128)+(y-64)*(y-64)*4 < 60*60 {
				img.Set(x, y, color.RGBA{255, 255, 255, 255})
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// english are words of the English gallery mail that no other language
// uses; proper names (the event's, the guest's) hold none of them.
var english = regexp.MustCompile(`\b(Hello|Thank|waiting|gallery|Open|until|because|your|only|hosts|anywhere|the|with|works)\b`)

// mimePart is one leaf of a received mail.
type mimePart struct {
	typ, cid, disposition string
	body                  []byte
}

// leaves walks a mail's MIME tree and answers its structure (the media
// types of its multiparts, outermost first) and its leaves.
func leaves(t *testing.T, ct string, body io.Reader) (tree []string, out []mimePart) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mt, "multipart/") {
		b, _ := io.ReadAll(body)
		return nil, []mimePart{{typ: mt, body: b}}
	}
	tree = append(tree, mt)
	mr := multipart.NewReader(body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return tree, out
		}
		if err != nil {
			t.Fatal(err)
		}
		pct := p.Header.Get("Content-Type")
		if strings.HasPrefix(pct, "multipart/") {
			sub, l := leaves(t, pct, p)
			tree, out = append(tree, sub...), append(out, l...)
			continue
		}
		b, err := io.ReadAll(p)
		if err != nil {
			t.Fatal(err)
		}
		pmt, _, _ := mime.ParseMediaType(pct)
		if p.Header.Get("Content-Transfer-Encoding") == "base64" {
			b, err = io.ReadAll(base64Reader(b))
			if err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, mimePart{typ: pmt, cid: p.Header.Get("Content-ID"), disposition: p.Header.Get("Content-Disposition"), body: b})
	}
}

// TestGalleryMailInEachLanguage: the gallery mail is written in the
// guest's language (en, fr, it, es, whatever the event's), with nothing
// English left in the others; its HTML wears the event's name, colour and
// logo, shows the photos as inline CID parts (multipart/alternative inside
// multipart/related), and the whole mail stays small.
func TestGalleryMailInEachLanguage(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.None)
	st := openStore(t, t.TempDir())
	m := newMailer(t, st, srv, false)
	ev := store.Event{ID: "eeeeeeeeeeeeeeee", Name: "Lia & Marco", DefaultLocale: "en", AccentColor: "#c2185b", LogoVersion: 1}
	if _, err := st.Media().Write(ev.LogoName(), bytes.NewReader(logoPNG(t))); err != nil {
		t.Fatal(err)
	}
	var photos []string
	thumbs := map[string][]byte{}
	for i := range 4 {
		p := store.Photo{EventID: ev.ID, ID: strings.Repeat(string(rune('a'+i)), 16)}
		data := thumbJPEG(t, uint64(i+1))
		if _, err := st.Media().Write(p.VariantName("thumb"), bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		photos = append(photos, p.VariantName("thumb"))
		thumbs["<photo"+string(rune('1'+i))+"@eventbox>"] = data
	}
	want := map[string][]string{
		"en": {"The photos of Lia & Marco", "Hello Zoé", "Open the gallery"},
		"fr": {"Les photos de Lia & Marco", "Bonjour Zoé", "Mot de passe"},
		"it": {"Le foto di Lia & Marco", "Ciao Zoé", "Apri la galleria", "organizzatori"},
		"es": {"Las fotos de Lia & Marco", "Hola Zoé", "Contraseña"},
	}
	for _, lang := range []string{"en", "fr", "it", "es"} {
		t.Run(lang, func(t *testing.T) {
			to := lang + "@guest.example"
			msg, err := eventmail.GalleryMessage(eventmail.Gallery{Event: ev, Locale: lang, To: to, GuestName: "Zoé",
				URL: "https://cloud.example.org/s/Tk0001", Password: "pw-4567890ab", Cloud: true, ExpiresAt: 1_800_000_000_000,
				Photos: photos, Domain: "party.example"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Send(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
			var rc mailtest.Received
			for _, r := range srv.Received() {
				if r.To[0] == to {
					rc = r
				}
			}
			pm := rc.Message(t)
			subject, _ := new(mime.WordDecoder).DecodeHeader(pm.Header.Get("Subject"))
			tree, parts := leaves(t, pm.Header.Get("Content-Type"), pm.Body)
			if strings.Join(tree, ",") != "multipart/related,multipart/alternative" {
				t.Fatalf("structure %v: want multipart/alternative inside multipart/related", tree)
			}
			if pm.Header.Get("Content-Language") != lang {
				t.Errorf("Content-Language %q", pm.Header.Get("Content-Language"))
			}
			var text, html string
			cids := map[string]mimePart{}
			for _, p := range parts {
				switch {
				case p.typ == "text/plain":
					text = string(p.body)
				case p.typ == "text/html":
					html = string(p.body)
				case p.cid != "":
					cids[p.cid] = p
				}
			}
			for _, w := range want[lang] {
				if !strings.Contains(subject+"\n"+text, w) {
					t.Errorf("the %s mail lacks %q:\n%s\n%s", lang, w, subject, text)
				}
			}
			if lang != "en" {
				if w := english.FindString(subject + "\n" + text + "\n" + html); w != "" {
					t.Errorf("the %s mail has English left (%q):\n%s", lang, w, text)
				}
			}
			if !strings.Contains(html, `lang="`+lang+`"`) || !strings.Contains(html, "#c2185b") || !strings.Contains(html, "Lia &amp; Marco</h1>") {
				t.Errorf("the HTML lacks its language, the event's colour or its name:\n%s", html)
			}
			logo, ok := cids["<logo@eventbox>"]
			if !ok || logo.typ != "image/png" || !strings.Contains(html, `src="cid:logo@eventbox"`) || !bytes.Equal(logo.body, logoPNG(t)) {
				t.Errorf("the logo is not an inline part the HTML shows (%v)", ok)
			}
			for i := 1; i <= eventmail.MaxPhotos; i++ {
				cid := "photo" + string(rune('0'+i)) + "@eventbox"
				p, ok := cids["<"+cid+">"]
				if !ok || p.typ != "image/jpeg" || !strings.HasPrefix(p.disposition, "inline") || !bytes.Equal(p.body, thumbs["<"+cid+">"]) {
					t.Errorf("photo %s is not an inline JPEG part", cid)
				}
				if !strings.Contains(html, `src="cid:`+cid+`"`) {
					t.Errorf("the HTML does not show %s", cid)
				}
			}
			if len(cids) != 1+eventmail.MaxPhotos || strings.Contains(html, "http://eventbox.local") {
				t.Errorf("%d inline parts, want the logo and %d photos", len(cids), eventmail.MaxPhotos)
			}
			if !strings.Contains(html, `background:#c2185b;color:#ffffff`) || !strings.Contains(html, `href="https://cloud.example.org/s/Tk0001"`) {
				t.Errorf("the button is not in the event's colour with its link:\n%s", html)
			}
			if n := len(rc.Data); n > 200<<10 {
				t.Errorf("the mail weighs %d KiB with its pictures, want at most 200", n>>10)
			} else {
				t.Logf("%s mail with the logo and %d photos: %d bytes", lang, eventmail.MaxPhotos, n)
			}
		})
	}
}

// base64Reader decodes a base64 body (line breaks are skipped).
func base64Reader(b []byte) io.Reader {
	return base64.NewDecoder(base64.StdEncoding, bytes.NewReader(b))
}
