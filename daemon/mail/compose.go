package mail

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"eventbox/i18n"
	"eventbox/store"
)

// newMessageID makes a Message-ID for a mail of purpose, unique and fixed
// from the moment the mail is queued.
func newMessageID(purpose, domain string) string {
	return purpose + "." + store.NewID() + "@" + domain
}

// message finishes a Message from its content.
func message(c content, to, toName, purpose, eventID, id string) (Message, error) {
	text, html, err := render(c)
	if err != nil {
		return Message{}, err
	}
	return Message{To: to, ToName: toName, Subject: c.Subject, Text: text, HTML: html, Locale: c.Lang,
		MessageID: id, Purpose: purpose, EventID: eventID}, nil
}

// Gallery is what the guests' gallery mail says.
type Gallery struct {
	// Event is the ended event: its name, colour and logo dress the
	// mail, and its DefaultLocale is the mail's language when the guest's
	// is not known.
	Event store.Event
	// Locale is the language of the guest page when the guest left the
	// address ("" = the event's).
	Locale string
	// To and GuestName are the guest's address and name ("" = none).
	To, GuestName string
	// URL is the gallery link; ExpiresAt its end (epoch ms, 0 = never).
	URL       string
	ExpiresAt int64
	// Password is the link's password; "" leaves it out.
	Password string
	// Locked says the link has a password; without Password the mail says
	// the hosts have it.
	Locked bool
	// Cloud says the link is the hosts' cloud copy of the photos.
	Cloud bool
	// Photos are the media names of the small JPEGs (thumbs) the mail
	// shows, at most MaxPhotos.
	Photos []string
	// Domain is the right side of the Message-ID (Mailer.Domain).
	Domain string
	// MessageID, when set, is kept (a mail composed again when it is
	// sent); else a new one is made.
	MessageID string
}

// MaxPhotos is how many photos a gallery mail shows.
const MaxPhotos = 3

// GalleryRef is what a queued gallery mail is composed of again when it
// is sent (Message.Gallery): URL is the box's own link, "" for the
// hosts' cloud copy, which may not exist yet.
type GalleryRef struct {
	EventID   string `json:"eventId"`
	GuestName string `json:"guestName,omitempty"`
	Locale    string `json:"locale,omitempty"`
	URL       string `json:"url,omitempty"`
	ExpiresAt int64  `json:"expiresAt,omitempty"`
	Password  string `json:"password,omitempty"`
	Locked    bool   `json:"locked,omitempty"`
}

// dress gives c the event's name, colour and logo, and answers the
// logo's picture.
func dress(c *content, e store.Event) []Inline {
	c.Title, c.Accent = e.Name, e.AccentColor
	if name := e.LogoName(); name != "" {
		c.LogoCID = "logo@eventbox"
		return []Inline{{CID: c.LogoCID, Media: name, Type: "image/png"}}
	}
	return nil
}

// GalleryMessage composes the guests' gallery mail.
func GalleryMessage(g Gallery) (Message, error) {
	locale := g.Locale
	if locale == "" {
		locale = g.Event.DefaultLocale
	}
	lang, w := wordsFor(locale)
	c := content{Lang: lang, Subject: w.Format("mail.gallerySubject", "event", g.Event.Name),
		Greeting:   greeting(w, g.GuestName),
		Paragraphs: []string{w.Format("mail.galleryIntro", "event", g.Event.Name)},
		Link:       g.URL, LinkLabel: w.Text("mail.galleryOpen"),
		Footer: w.Format("mail.galleryWhy", "event", g.Event.Name)}
	if g.Cloud {
		c.Paragraphs = append(c.Paragraphs, w.Text("mail.galleryCloud"))
	}
	if g.Password != "" {
		c.Strong = w.Format("mail.galleryPassword", "password", g.Password)
	} else if g.Locked {
		c.After = append(c.After, w.Text("mail.galleryLocked"))
	}
	if g.ExpiresAt != 0 {
		c.After = append(c.After, w.Format("mail.galleryUntil", "date", day(g.ExpiresAt)))
	}
	inline := dress(&c, g.Event)
	for i, name := range g.Photos {
		if i == MaxPhotos {
			break
		}
		cid := "photo" + strconv.Itoa(i+1) + "@eventbox"
		c.PhotoCIDs = append(c.PhotoCIDs, cid)
		inline = append(inline, Inline{CID: cid, Media: name, Type: "image/jpeg"})
	}
	id := g.MessageID
	if id == "" {
		id = newMessageID(PurposeGallery, g.Domain)
	}
	m, err := message(c, g.To, g.GuestName, PurposeGallery, g.Event.ID, id)
	m.Unsubscribe, m.Inline = true, inline
	return m, err
}

func greeting(w *i18n.Language, name string) string {
	if name = strings.TrimSpace(name); name != "" {
		return w.Format("mail.hello", "name", name)
	}
	return w.Text("mail.helloAnon")
}

// Summary is what the hosts' summary says.
type Summary struct {
	Event  store.Event
	To     string
	Counts store.EventCounts
	// Top are the guests with the most photos, most first.
	Top []Tally
	// Places are the event's places with their photo counts.
	Places []Tally
	// URL is the gallery link made at the end ("" = none) and Password
	// its generated password, if any: the hosts get it whatever the
	// guests' mail says, to pass it on.
	URL, Password string
	// GuestMails is how many gallery mails were queued.
	GuestMails int
	// CloudNote, when set, is the catalogue key of a line saying the
	// guests' mails wait for the cloud copy (mail.summaryCloud) or that
	// there is none they could open (mail.summaryNoCloud).
	CloudNote string
	Domain    string
}

// Tally is a guest or a place and how many photos it has.
type Tally struct {
	Label  string
	Photos int
}

// SummaryMessage composes the hosts' summary.
func SummaryMessage(s Summary) (Message, error) {
	lang, w := wordsFor(s.Event.DefaultLocale)
	photos := s.Counts.Photos - s.Counts.Videos
	c := content{Lang: lang, Subject: w.Format("mail.summarySubject", "event", s.Event.Name), Greeting: w.Text("mail.helloAnon"),
		Paragraphs: []string{w.Format("mail.summaryIntro", "event", s.Event.Name)}, Footer: w.Text("mail.signature")}
	inline := dress(&c, s.Event)
	if s.URL != "" {
		c.Link, c.LinkLabel = s.URL, w.Text("mail.summaryLink")
		if s.Password != "" {
			c.Strong = w.Format("mail.galleryPassword", "password", s.Password)
		}
	} else {
		c.Paragraphs = append(c.Paragraphs, w.Text("mail.summaryNoLink"))
	}
	c.Sections = append(c.Sections, section{Title: w.Text("mail.summaryCounts"), Items: []string{
		w.Format("mail.countPhotos", "n", strconv.Itoa(photos)), w.Format("mail.countVideos", "n", strconv.Itoa(s.Counts.Videos)),
		w.Format("mail.countMessages", "n", strconv.Itoa(s.Counts.Messages)), w.Format("mail.countGuests", "n", strconv.Itoa(s.Counts.Guests))}})
	if len(s.Top) > 0 {
		sec := section{Title: w.Text("mail.summaryTop")}
		for _, g := range s.Top {
			sec.Items = append(sec.Items, w.Format("mail.photosOf", "label", g.Label, "n", strconv.Itoa(g.Photos)))
		}
		c.Sections = append(c.Sections, sec)
	}
	if len(s.Places) > 0 {
		sec := section{Title: w.Text("mail.summaryPlaces")}
		for _, p := range s.Places {
			sec.Items = append(sec.Items, w.Format("mail.photosOf", "label", p.Label, "n", strconv.Itoa(p.Photos)))
		}
		c.Sections = append(c.Sections, sec)
	}
	if s.GuestMails > 0 {
		c.After = append(c.After, w.Format("mail.summaryMailed", "n", strconv.Itoa(s.GuestMails)))
	}
	if s.CloudNote != "" {
		c.After = append(c.After, w.Text(s.CloudNote))
	}
	m, err := message(c, s.To, "", PurposeSummary, s.Event.ID, newMessageID(PurposeSummary, s.Domain))
	m.Inline = inline
	return m, err
}

// InvitationMessage composes the mail of a console invitation (English:
// an invitation belongs to no event).
func InvitationMessage(to, url, role, domain string, expiresAt int64) (Message, error) {
	c := content{Lang: "en", Subject: "You are invited to an eventbox console", Greeting: "Hello,",
		Paragraphs: []string{fmt.Sprintf("You are invited to help with the photos of a party as %s. Open the link to choose your username and password.", article(role))},
		Link:       url, LinkLabel: "Accept the invitation",
		After:  []string{fmt.Sprintf("The link works once, until %s.", day(expiresAt))},
		Footer: "Sent by an eventbox"}
	return message(c, to, "", PurposeInvitation, "", newMessageID(PurposeInvitation, domain))
}

func article(role string) string {
	if role == "owner" {
		return "an owner"
	}
	return "an organizer"
}

// alertWords are the alert mails' subjects and first lines.
var alertWords = map[string][2]string{
	store.NoticeStorageLow:       {"eventbox: storage is low", "The box is running out of space. Uploads are refused until space is freed; they reopen by themselves."},
	store.NoticeExportFailed:     {"eventbox: a cloud export failed", "A cloud export of an event failed. Open the console to try it again."},
	store.NoticeBackupFailed:     {"eventbox: a backup failed", "A backup of the box failed. Open the console to see why."},
	store.NoticePrinterAttention: {"eventbox: the printer needs you", "Prints are waiting: the printer needs a person (paper, ink ribbon, a jam, or it is off or stopped). The console's Printing screen says what it reports."},
}

// AlertMessage composes the alert mail of notice n (one of the three
// alert kinds), with its data as a list. Its Message-ID follows from the
// notice, so a notice fanned out twice makes the same mail.
func AlertMessage(n store.Notice, to, domain string) (Message, error) {
	words, ok := alertWords[n.Kind]
	if !ok {
		return Message{}, fmt.Errorf("composing an alert for %s: not an alert kind", n.Kind)
	}
	c := content{Lang: "en", Subject: words[0], Greeting: "Hello,", Paragraphs: []string{words[1]},
		Footer: "Sent by your eventbox. Turn these mails off in the console, under Mail."}
	var data map[string]any
	if len(n.Data) > 0 && json.Unmarshal(n.Data, &data) == nil && len(data) > 0 {
		sec := section{Title: "Details"}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sec.Items = append(sec.Items, fmt.Sprintf("%s: %v", k, data[k]))
		}
		c.Sections = []section{sec}
	}
	c.After = []string{"At " + fmtTime(n.At) + " UTC."}
	id := fmt.Sprintf("alert.%s.%d.%s@%s", strings.ReplaceAll(n.Kind, ".", "-"), n.At, n.EventID, domain)
	return message(c, to, "", PurposeAlert, n.EventID, id)
}

// TestMessage composes the console's test mail.
func TestMessage(to, domain string) (Message, error) {
	c := content{Lang: "en", Subject: "eventbox test mail", Greeting: "Hello,",
		Paragraphs: []string{"This is a test from your eventbox: its mail settings work."},
		Footer:     "Sent by your eventbox"}
	return message(c, to, "", PurposeTest, "", newMessageID(PurposeTest, domain))
}
