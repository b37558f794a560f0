package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/chromedp/chromedp"

	"eventbox/i18n"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// notEnglish are the words of the English catalogue a French, Italian or
// Spanish page may still show: the names of products, protocols and
// formats, which every language writes the same. Keep it short: a word
// here is a word the test no longer sees.
var notEnglish = map[string]bool{
	"eventbox": true, "wi": true, "fi": true, "wifi": true, "qr": true, "pdf": true, "zip": true,
	"webdav": true, "smtp": true, "ntfy": true, "discord": true, "slack": true, "json": true,
	"csv": true, "https": true, "http": true, "tls": true, "starttls": true, "ssid": true,
	"heic": true, "jpeg": true, "mp4": true, "webm": true, "id": true, "url": true, "ok": true,
	"ca": true, "ios": true, "android": true, "totp": true, "dhcp": true, "mdns": true,
	"kb": true, "mb": true, "gb": true, // Italian and Spanish write them so; French's are checked apart
	"admin": true, // the first owner's name and the console's path (/admin)
}

// words are the lowercase words of s, split at whatever is not a letter.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
}

// englishOnly is, for each language, the set of the words of the English
// catalogue that the language's own catalogue never uses ("uploads",
// "closed", "pending"; "photos" for Italian and Spanish, not French): such
// a word on a page in that language is English left there.
func englishOnly(t *testing.T) map[string]map[string]bool {
	t.Helper()
	c, err := i18n.Load(os.DirFS("../assets/web/locales"))
	if err != nil {
		t.Fatalf("reading the catalogue: %v", err)
	}
	texts := func(code string) []string {
		l := c.Lang(code)
		var out []string
		for _, s := range l.Sections() {
			if s == "meta" {
				continue
			}
			for k, v := range l.Section(s) {
				out = append(out, v)
				if s == "console" && code == i18n.Reference {
					out = append(out, k)
				}
			}
		}
		return out
	}
	out := map[string]map[string]bool{}
	for _, code := range c.Codes() {
		if code == i18n.Reference {
			continue
		}
		en := map[string]bool{}
		for _, s := range texts(i18n.Reference) {
			for _, w := range words(s) {
				if len([]rune(w)) >= 2 && !notEnglish[w] {
					en[w] = true
				}
			}
		}
		for _, s := range texts(code) {
			for _, w := range words(s) {
				delete(en, w)
			}
		}
		out[code] = en
	}
	return out
}

var (
	// missingKeyRE is a catalogue key shown as it is: the guest, wall,
	// setup and portal sections' keys are identifiers (uploadsClosed,
	// filter_none), and a {blank} left unfilled.
	missingKeyRE = regexp.MustCompile(`\b[a-z]+[A-Z][A-Za-z]+\b|\b[a-z]+_[a-z_]+\b|\{\w+\}`)
	// pluralOneRE is a count of one with a plural noun in French or
	// Spanish ("1 photos", "1 envoyés").
	pluralOneRE = regexp.MustCompile(`(?:^|[^\d.,:/])1\s+(\p{L}+s)\b`)
	// dotDecimalRE is a decimal number written the English way before a
	// unit, in a language whose decimal mark is a comma ("1.2 MB").
	dotDecimalRE = regexp.MustCompile(`\b\d+\.\d+\s?(?:[kKMG]B|[kMG]o|%)`)
	// englishBytesRE is a size in English units, which French writes
	// ko, Mo, Go.
	// columnsRE is the gap pdftotext -layout leaves between columns.
	columnsRE = regexp.MustCompile(`\s{3,}`)
	// pathRE is an address's path on a page ("/e/cv57my").
	pathRE = regexp.MustCompile(`/[\w/-]+`)
	// oneThenWordRE is a count of one and the word after it.
	oneThenWordRE  = regexp.MustCompile(`(?:^|[^\d.,:/])1\s+(\p{L}+)`)
	englishBytesRE = regexp.MustCompile(`\d\s?[kKMGT]B\b`)
)

// bothFormsRE is a word written for one and many at once ("message(s)",
// "sélectionnée(s)", "invitato/i"): the catalogue's plural scheme picks
// the form instead.
var bothFormsRE = regexp.MustCompile(`\p{L}\((?:e?s|i|e|x)\)|\p{L}/(?:e?s|i|e)\b`)

// pluralFormRE is one form of a plural blank of the catalogue.
var pluralFormRE = regexp.MustCompile(`(=\d+|\w+)\s*\{([^{}]*)\}`)

// pluralOnly is, for each language, the words its catalogue uses only in
// the forms of a plural blank for more than one ("photos", "messaggi",
// "tentativi", not Italian's "foto", the same for one): such a word right
// after a 1 is a plural after 1, in Italian too.
func pluralOnly(t *testing.T) map[string]map[string]bool {
	t.Helper()
	c, err := i18n.Load(os.DirFS("../assets/web/locales"))
	if err != nil {
		t.Fatalf("reading the catalogue: %v", err)
	}
	out := map[string]map[string]bool{}
	for _, code := range c.Codes() {
		l := c.Lang(code)
		many, one := map[string]bool{}, map[string]bool{}
		for _, s := range l.Sections() {
			for _, v := range l.Section(s) {
				for _, m := range pluralFormRE.FindAllStringSubmatch(v, -1) {
					into := many
					if m[1] == "one" || m[1] == "=1" {
						into = one
					}
					for _, w := range words(m[2]) {
						into[w] = true
					}
				}
			}
		}
		for _, w := range pluralWords[code] {
			many[w] = true
		}
		for w := range one {
			delete(many, w)
		}
		out[code] = many
	}
	return out
}

// productNames are names written in camel case that are no catalogue key.
var productNames = map[string]bool{"ownCloud": true, "iPhone": true}

// pluralWords are plurals the console writes after a count, known here
// too so that a count the catalogue does not yet write as a plural blank
// ("{n} selezionate") is found after 1 all the same.
var pluralWords = map[string][]string{
	"fr": {"sélectionnées", "sélectionnés", "modifiées", "modifiés", "essais", "cœurs", "secondes", "fichiers"},
	"it": {"selezionate", "selezionati", "modificate", "modificati", "messaggi", "tentativi", "cuori", "secondi", "minuti", "giorni", "ospiti", "eventi"},
	"es": {"seleccionadas", "seleccionados", "modificadas", "modificados", "cambiadas", "intentos", "corazones", "segundos", "archivos"},
}

// singularS are French and Spanish words that end in s when one.
var singularS = map[string]bool{"fois": true, "mois": true, "pas": true, "lunes": true, "martes": true, "miércoles": true, "jueves": true, "viernes": true, "mes": true}

// langFinder lists what, on a page in one language, is not in it.
type langFinder struct {
	lang    string
	english map[string]bool
	plurals map[string]bool     // pluralOnly's words of the language
	found   map[string][]string // page → problems
}

// check looks at the texts of one page.
func (f *langFinder) check(page string, texts []string) {
	seen := map[string]bool{}
	for _, s := range texts {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] || strings.Contains(s, "://") { // addresses are no language
			continue
		}
		seen[s] = true
		var why []string
		var eng []string
		for _, w := range words(pathRE.ReplaceAllString(s, " ")) { // a slug's letters are no words
			if f.english[w] && !slices.Contains(eng, w) {
				eng = append(eng, w)
			}
		}
		if len(eng) > 0 {
			why = append(why, "English ("+strings.Join(eng, ", ")+")")
		}
		for _, m := range missingKeyRE.FindAllString(s, -1) {
			if !productNames[m] {
				why = append(why, "a key or blank shown as it is ("+m+")")
				break
			}
		}
		if f.lang != "it" {
			for _, m := range pluralOneRE.FindAllStringSubmatch(s, -1) {
				if !singularS[strings.ToLower(m[1])] {
					why = append(why, "a plural after 1 ("+m[1]+")")
				}
			}
		}
		for _, m := range oneThenWordRE.FindAllStringSubmatch(s, -1) {
			// Words of four letters or more: units ("1 min") are the same
			// for one and many.
			if w := strings.ToLower(m[1]); len([]rune(w)) >= 4 && f.plurals[w] && !slices.Contains(why, "a plural after 1 ("+m[1]+")") {
				why = append(why, "a plural after 1 ("+m[1]+")")
			}
		}
		if m := bothFormsRE.FindString(s); m != "" {
			why = append(why, "one form for one and many ("+m+")")
		}
		if m := englishBytesRE.FindString(s); f.lang == "fr" && m != "" {
			why = append(why, "a size in English units ("+m+")")
		}
		if m := dotDecimalRE.FindString(s); m != "" {
			why = append(why, "a number written the English way ("+m+")")
		}
		if len(why) > 0 {
			f.found[page] = append(f.found[page], fmt.Sprintf("%q: %s", s, strings.Join(why, "; ")))
		}
	}
}

// count is the number of texts found in the language.
func (f *langFinder) count() int {
	n := 0
	for _, l := range f.found {
		n += len(l)
	}
	return n
}

// pageTextsJS collects what a reader reads or hears of a page: its title,
// its visible text, the toasts, the options of its menus and the
// placeholders, labels, titles and alternatives of its elements.
const pageTextsJS = `(() => {
	// The licence texts of the About screen are legal texts, kept as
	// their authors wrote them; the time zones' cities are the zone
	// database's place names.
	const legal = [...document.querySelectorAll('#about-licence details, #about-notice pre, #about-notice textarea, #notice, #setup-timeZone')];
	for (const e of legal) e.hidden = true;
	const out = [document.title];
	for (const l of (document.body.innerText || '').split('\n')) out.push(l);
	for (const e of document.querySelectorAll('.toast, option:not(#setup-timeZone option), [data-status]')) out.push(e.textContent);
	for (const e of document.querySelectorAll('[placeholder], [aria-label], [title], [alt]'))
		for (const a of ['placeholder', 'aria-label', 'title', 'alt']) if (e.hasAttribute(a)) out.push(e.getAttribute(a));
	for (const e of legal) e.hidden = false;
	return out.map((s) => s.trim()).filter(Boolean);
})()`

// texts returns the page's texts once it has settled.
func (b *browser) texts(t *testing.T) []string {
	t.Helper()
	b.waitJS(t, "the page loaded", `document.readyState === 'complete' && !!document.body`)
	var out []string
	b.eval(t, pageTextsJS, &out)
	return out
}

// settle waits until sel is on the page and the page has stopped loading
// (no "…" of a loading state left), then a moment for late text.
func (b *browser) settle(t *testing.T, sel string) {
	t.Helper()
	b.do(t, "waiting for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	b.waitJS(t, "the page done loading", `!document.querySelector('.loading, [aria-busy=true]')`)
	b.do(t, "letting late text arrive", chromedp.Sleep(400*time.Millisecond))
}

// pdfFile fetches a PDF the box makes into a file of the test's and
// answers its path.
func (c *client) pdfFile(t *testing.T, path string) string {
	t.Helper()
	res, err := c.http.Get(c.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, %v: %.200s", path, res.StatusCode, err, body)
	}
	in := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(in, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return in
}

// pdfText is the text of a PDF the box makes, through pdftotext.
func pdfText(t *testing.T, c *client, path string) []string {
	t.Helper()
	testtool.Need(t, "pdftotext")
	in := c.pdfFile(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "pdftotext", "-layout", in, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		// -layout keeps columns apart with runs of spaces.
		lines = append(lines, columnsRE.Split(l, -1)...)
	}
	return lines
}

// TestEveryPageInItsLanguage opens every page in French, Italian and
// Spanish (the guest page with its tabs and queue, the front page, a closed
// event, the gallery, the wall, the captive portal's page, the setup page
// with a refusal, every screen of the console with its toasts and a refusal
// from the box) and reads the album PDF and each printed sign in each
// language: none may show a word only English uses (names of products and
// formats aside: notEnglish), a catalogue key or blank as it is, a plural
// after 1, or a decimal number written the English way.
func TestEveryPageInItsLanguage(t *testing.T) {
	sweepOnly(t)
	t.Parallel()
	english := englishOnly(t)
	plurals := pluralOnly(t)
	cat, err := i18n.Load(os.DirFS("../assets/web/locales"))
	if err != nil {
		t.Fatalf("reading the catalogue: %v", err)
	}
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.Moderation = "pre"
		e.AccessCode = ""
		e.GuestbookInGallery = true
		e.MaxPhotosPerGuest = 5
		e.Challenges = []store.Challenge{{ID: store.NewID(), Label: "Brindisi!"}}
	})
	closed := createEvent(t, box.Store, "Lucia & Paolo", func(e *store.Event) { e.UploadsOpen = false })
	ids := guestUploads(t, box, ev, "Lucia", 2)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	for _, id := range ids {
		waitVariantsMade(t, box.Store, id)
	}
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/photos", map[string]any{"action": "approve", "ids": ids[:1]}, nil)
	// The booth's photo, which the gallery, wall and album credit.
	var booth struct {
		BoothKey string `json:"boothKey"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/booth", map[string]any{}, &booth); st != http.StatusOK && st != http.StatusCreated {
		t.Fatalf("turning the booth on: status %d", st)
	}
	bc := newClient(t, box.URL)
	if st := bc.json(t, "POST", "/api/e/"+ev.Slug+"/booth", map[string]string{"key": booth.BoothKey}, nil); st != http.StatusOK {
		t.Fatalf("setting up the booth: status %d", st)
	}
	var boothPhoto struct {
		Photo struct {
			ID string `json:"id"`
		} `json:"photo"`
	}
	if st := bc.upload(t, "/api/e/"+ev.Slug+"/photos", "photo", writeJPEG(t, "booth.jpg", 800, 600), &boothPhoto); st != http.StatusCreated {
		t.Fatalf("the booth's photo: status %d", st)
	}
	waitVariantsMade(t, box.Store, boothPhoto.Photo.ID)
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/photos", map[string]any{"action": "approve", "ids": []string{boothPhoto.Photo.ID}}, nil)
	// Two guestbook messages: one approved, one hidden.
	var msgIDs []string
	for _, text := range []string{"Auguri!", "Félicitations!"} {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField("text", text)
		_ = mw.Close()
		var msg struct {
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
		}
		g := newClient(t, box.URL)
		g.json(t, "POST", "/api/e/"+ev.Slug+"/join", nil, nil)
		g.do(t, "POST", "/api/e/"+ev.Slug+"/messages", mw.FormDataContentType(), &buf, &msg)
		msgIDs = append(msgIDs, msg.Message.ID)
	}
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/messages", map[string]any{"action": "approve", "ids": msgIDs[:1]}, nil)
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/messages", map[string]any{"action": "hide", "ids": msgIDs[1:]}, nil)
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/spots", map[string]string{"label": "Giardino"}, nil)
	var share struct {
		Share struct {
			Token string `json:"token"`
		} `json:"share"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/shares", map[string]any{"allowDownload": true, "label": "Famiglia"}, &share); st != http.StatusCreated {
		t.Fatalf("creating the gallery link: status %d", st)
	}
	var wall struct {
		Wall struct {
			URL string `json:"url"`
		} `json:"wall"`
	}
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/walls", map[string]string{"label": "Salone"}, &wall)
	// A mail server on a port of four digits: shown as the host typed it,
	// never as a number with a thousands separator ("8 080").
	if st := admin.json(t, "PUT", "/api/admin/mail", map[string]any{"smtp": map[string]any{"host": "mail.party.example", "port": 8080, "from": "box@party.example", "security": "none"}}, nil); st != http.StatusOK {
		t.Fatalf("saving the mail settings: status %d", st)
	}
	// An event ended: its gallery link carries the box's own label.
	ended := createEvent(t, box.Store, "Giulia & Luca", func(e *store.Event) { e.AccessCode = "" })
	guestUploads(t, box, ended, "Carla", 1)
	var end struct {
		Result struct {
			ShareURL string `json:"shareUrl"`
		} `json:"result"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ended.ID+"/end", nil, &end); st != http.StatusOK || end.Result.ShareURL == "" {
		t.Fatalf("ending the event: status %d, link %q", st, end.Result.ShareURL)
	}
	// An organizer beside the owner: the Team screen names both roles.
	if st := admin.json(t, "POST", "/api/admin/accounts", map[string]any{"username": "paola", "role": "organizer", "eventIds": []string{}}, nil); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("adding an organizer: status %d", st)
	}
	unset, _ := unsetBox(t)

	counts := map[string]int{}
	for _, lang := range []string{"fr", "it", "es"} {
		if !swept(lang, "fr") {
			continue
		}
		t.Run(lang, func(t *testing.T) {
			f := &langFinder{lang: lang, english: english[lang], plurals: plurals[lang], found: map[string][]string{}}
			defer func() {
				counts[lang] = f.count()
				pages := make([]string, 0, len(f.found))
				for p := range f.found {
					pages = append(pages, p)
				}
				slices.Sort(pages)
				var b strings.Builder
				for _, p := range pages {
					fmt.Fprintf(&b, "\n%s:\n  %s", p, strings.Join(f.found[p], "\n  "))
				}
				if f.count() > 0 {
					t.Errorf("%d texts not in %s:%s", f.count(), lang, b.String())
				}
			}()

			// The guests' side.
			g := newBrowserAt(t, lang, phoneWidth, phoneHeight)
			// One event open, the front page goes to it; more, it lists them.
			g.do(t, "opening the front page", chromedp.Navigate(box.URL+"/"), chromedp.Sleep(1500*time.Millisecond))
			g.settle(t, "main h1")
			f.check("front page", g.texts(t))
			g.do(t, "opening the event link", chromedp.Navigate(box.URL+"/e/"+ev.Slug))
			g.settle(t, "#take-photo")
			f.check("guest page", g.texts(t))
			g.do(t, "sending a photo", chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), []string{writeJPEG(t, "g.jpg", 640, 480)}))
			g.waitJS(t, "the queue is done", `!!document.querySelector('#queue-done')`)
			f.check("guest page, photo sent", g.texts(t))
			g.do(t, "opening everyone's photos", click(`#tab-all`))
			g.settle(t, "#all-photos .tile")
			f.check("guest page, album", g.texts(t))
			g.do(t, "opening the guestbook", click(`#tab-guestbook`))
			g.settle(t, "#gb-text")
			f.check("guest page, guestbook", g.texts(t))
			g.do(t, "opening a closed event", chromedp.Navigate(box.URL+"/e/"+closed.Slug))
			g.settle(t, "main h1")
			f.check("guest page, uploads closed", g.texts(t))
			g.do(t, "opening the gallery", chromedp.Navigate(box.URL+"/g/"+share.Share.Token))
			g.settle(t, "#gallery-photos .tile")
			f.check("gallery", g.texts(t))
			g.do(t, "opening the gallery made at the end", chromedp.Navigate(end.Result.ShareURL))
			g.settle(t, "#gallery-photos .tile")
			f.check("gallery made at the end", g.texts(t))
			if sub := g.text(t, ".hero p"); sub != cat.Lang(lang).Text("guest.galleryEndLabel") {
				t.Errorf("the end's gallery says %q under its name, want %q", sub, cat.Lang(lang).Text("guest.galleryEndLabel"))
			}
			g.do(t, "opening the portal page", chromedp.Navigate(box.URL+"/portal"))
			g.settle(t, "#portal-continue")
			f.check("portal", g.texts(t))
			g.do(t, "opening the setup page", chromedp.Navigate(unset.URL+"/setup"))
			g.settle(t, "#setup-ownerName")
			f.check("setup", g.texts(t))
			fillSetup(t, g, "short")
			g.do(t, "sending a Wi-Fi password too short", click(`form button[type=submit]`))
			g.waitJS(t, "the refusal", `document.querySelector('#setup-wifiPassword-err').textContent`)
			f.check("setup, refused", g.texts(t))

			w := newBrowserAt(t, lang, 1366, 768)
			w.do(t, "opening the wall", chromedp.Navigate(wall.Wall.URL))
			w.settle(t, ".wall .scan")
			f.check("wall", w.texts(t))
			for i := range 3 {
				w.eval(t, `(() => { document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' })); return true; })()`, nil)
				w.do(t, "the next slide", chromedp.Sleep(1200*time.Millisecond))
				f.check(fmt.Sprintf("wall, slide %d", i+2), w.texts(t))
			}

			// The console.
			a := newBrowserAt(t, lang, 1366, 900)
			a.signIn(t, box.URL)
			a.settle(t, "#events")
			f.check("console, events", a.texts(t))
			screens := []struct{ name, path, ready string }{
				{"event settings", "/admin/events/" + ev.ID + "/settings", "form"},
				{"photos", "/admin/events/" + ev.ID + "/photos", "#photos .tile"},
				{"guestbook", "/admin/events/" + ev.ID + "/guestbook", "#messages .msg"},
				{"places", "/admin/events/" + ev.ID + "/places", "main input"},
				{"share", "/admin/events/" + ev.ID + "/share", "#walls li"},
				{"stats", "/admin/stats?eventId=" + ev.ID, "#stats-chart"},
				{"team", "/admin/team", "main .card"},
				{"mail", "/admin/settings/mail", "main .card"},
				{"webhooks", "/admin/settings/webhooks", "main .card"},
				{"cloud", "/admin/settings/cloud", "main .card"},
				{"network", "/admin/settings/network", "main .card"},
				{"backup", "/admin/settings/backup", "main .card"},
				{"updates", "/admin/settings/updates", "main .card"},
				{"about", "/admin/about", "main .card"},
				{"account", "/admin/account", "form"},
			}
			for _, s := range screens {
				a.do(t, "opening "+s.name, chromedp.Navigate(box.URL+s.path))
				a.settle(t, s.ready)
				f.check("console, "+s.name, a.texts(t))
				switch s.name {
				case "photos": // one photo selected: its count in the bar
					a.do(t, "selecting a photo", click(`#photos .tile .pick`))
					a.waitJS(t, "the selection's bar", `!!document.querySelector('.actionbar:not([hidden])')`)
					f.check("console, photos, one selected", a.texts(t))
				case "guestbook": // one message selected
					a.do(t, "selecting a message", click(`#messages .msg input[type=checkbox]`))
					a.waitJS(t, "the selection's bar", `!!document.querySelector('.actionbar:not([hidden])')`)
					f.check("console, guestbook, one selected", a.texts(t))
				case "team": // the roles in the page's language
					var roles []string
					a.eval(t, `[...document.querySelectorAll('main .pill')].map((e) => e.textContent)`, &roles)
					l := cat.Lang(lang)
					for _, want := range []string{l.Text("console.Owner"), l.Text("console.Organizer")} {
						if !slices.Contains(roles, want) {
							t.Errorf("the Team screen's roles read %q, want %q among them", roles, want)
						}
					}
				case "about": // the notice read as a document, not as its Markdown
					var raw string
					a.eval(t, `(() => { const n = document.querySelector('#notice'); return n.querySelectorAll('h2, table').length > 1 ? [...n.children].filter((e) => e.tagName !== 'PRE').map((e) => e.innerText).join('\n') : 'no headings or tables'; })()`, &raw)
					if m := regexp.MustCompile(`(?m)^#{1,6} |\|---|\*\*|no headings or tables`).FindString(raw); m != "" {
						t.Errorf("the About screen shows the notice's Markdown (%q)", m)
					}
				case "mail":
					var port string
					a.eval(t, `document.querySelector('[name="smtp.port"]').value`, &port)
					if port != "8080" {
						t.Errorf("the mail settings show the port as %q, not 8080", port)
					}
					for _, s := range a.texts(t) {
						if regexp.MustCompile(`8\D080`).MatchString(s) {
							t.Errorf("the mail settings write the port with a separator: %q", s)
						}
					}
				}
			}
			// The end's tab, in a tab of its own: the next navigation away
			// from it does not finish in the headless browser.
			fin := newBrowserAt(t, lang, 1366, 900)
			fin.signIn(t, box.URL)
			fin.do(t, "opening downloads and end", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/finish"))
			fin.settle(t, "main .card")
			f.check("console, downloads and end", fin.texts(t))
			// The album's layouts, each in the catalogue's plural form.
			var layouts []string
			fin.eval(t, `[...document.querySelectorAll('select[name=layout] option')].map((o) => o.textContent)`, &layouts)
			l := cat.Lang(lang)
			want := []string{l.Format("console.{n, plural, one {# photo a page} other {# photos a page}}", "n", "1"), l.Format("console.{n, plural, one {# photo a page} other {# photos a page}}", "n", "2"), l.Format("console.{n, plural, one {# photo a page} other {# photos a page}}", "n", "4")}
			if !slices.Equal(layouts, want) {
				t.Errorf("the album's layouts read %q, want %q", layouts, want)
			}
			// The account's password: the box refuses one too short.
			a.eval(t, `(() => { const i = document.querySelectorAll('input[autocomplete=new-password]'); const f = i[0].form;
				f.noValidate = true; f.querySelector('input[autocomplete=current-password]').value = 'x';
				i[0].value = 'short'; i[1].value = 'short'; f.requestSubmit(); return true; })()`, nil)
			a.waitJS(t, "the refusal", `[...document.querySelectorAll('.field .err, .form-err, .toast')].some((e) => e.textContent.trim())`)
			f.check("console, account, refused", a.texts(t))
			// Saving the event's settings and making an event: their toasts.
			a.do(t, "opening the settings", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/settings"))
			a.settle(t, "form button[type=submit]")
			a.eval(t, `(() => { const e = document.querySelector('form [name=name]'); e.value = 'Anna & Marco!'; e.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`, nil)
			a.do(t, "saving", click(`form button[type=submit]`))
			a.waitJS(t, "a toast", `!!document.querySelector('.toast')`)
			f.check("console, settings saved", a.texts(t))
			a.do(t, "opening a new event", chromedp.Navigate(box.URL+"/admin/events/new"))
			a.settle(t, "form [name=name]")
			f.check("console, new event", a.texts(t))
			a.do(t, "making it", chromedp.SendKeys(chromedp.CSS(`form [name=name]`), "Nozze 2"), click(`form button[type=submit]`))
			a.waitJS(t, "a toast", `!!document.querySelector('.toast')`)
			f.check("console, event made", a.texts(t))

			// The album and the signs.
			// The album speaks the event's language.
			if st := admin.json(t, "PATCH", "/api/admin/events/"+ev.ID, map[string]any{"defaultLocale": lang}, nil); st != http.StatusOK {
				t.Fatalf("setting the event's language: status %d", st)
			}
			f.check("album PDF", pdfText(t, admin, "/api/admin/events/"+ev.ID+"/album"))
			if st := admin.json(t, "PATCH", "/api/admin/events/"+ev.ID, map[string]any{"defaultLocale": nil}, nil); st != http.StatusOK {
				t.Fatalf("clearing the event's language: status %d", st)
			}
			for _, q := range []string{"kind=table&size=a6", "kind=poster&size=a4", "kind=place"} {
				f.check("sign "+q, pdfText(t, admin, "/api/admin/events/"+ev.ID+"/signage?"+q+"&lang="+lang+"&ssid=Festa&wifiPassword=festa2026"))
			}
		})
	}
	t.Logf("texts not in their page's language: fr %d, it %d, es %d", counts["fr"], counts["it"], counts["es"])
}
