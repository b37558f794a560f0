package mail

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"time"
)

// texts are the words of the event mails in one language. Format verbs
// are filled in the order their comments give.
type texts struct {
	Hello     string // name
	HelloAnon string
	// The guests' gallery mail.
	GallerySubject  string // event name
	GalleryIntro    string // event name
	GalleryOpen     string
	GalleryPassword string // password
	GalleryLocked   string
	GalleryUntil    string // date (YYYY-MM-DD)
	GalleryWhy      string // event name
	// The hosts' summary.
	SummarySubject string // event name
	SummaryIntro   string // event name
	SummaryCounts  string
	CountPhotos    string // n
	CountVideos    string // n
	CountMessages  string // n
	CountGuests    string // n
	SummaryTop     string
	SummaryPlaces  string
	PhotosOf       string // name, n
	SummaryLink    string
	SummaryNoLink  string
	SummaryMailed  string // n
	Signature      string
}

// locales holds the words of each language the guest pages speak
// (assets/web/locales). Keep them in step with those files' tone.
var locales = map[string]texts{
	"en": {
		Hello: "Hello %s,", HelloAnon: "Hello,",
		GallerySubject:  "The photos of %s",
		GalleryIntro:    "Thank you for sharing %s with us. The photos are waiting for you in the gallery.",
		GalleryOpen:     "Open the gallery",
		GalleryPassword: "Password: %s",
		GalleryLocked:   "The gallery asks for a password: the hosts have it.",
		GalleryUntil:    "The link works until %s.",
		GalleryWhy:      "You get this mail because you left your address on the guest page of %s. It is the only one.",
		SummarySubject:  "Summary of %s",
		SummaryIntro:    "%s has ended. Here is what your guests shared.",
		SummaryCounts:   "In numbers",
		CountPhotos:     "%d photos", CountVideos: "%d videos", CountMessages: "%d messages", CountGuests: "%d guests",
		SummaryTop:    "Top guests",
		SummaryPlaces: "Places",
		PhotosOf:      "%s: %d",
		SummaryLink:   "The gallery",
		SummaryNoLink: "No gallery link was made; make one from the console.",
		SummaryMailed: "%d guests will get the gallery link by mail.",
		Signature:     "Sent by your eventbox",
	},
	"fr": {
		Hello: "Bonjour %s,", HelloAnon: "Bonjour,",
		GallerySubject:  "Les photos de %s",
		GalleryIntro:    "Merci d’avoir partagé %s avec nous. Les photos vous attendent dans la galerie.",
		GalleryOpen:     "Ouvrir la galerie",
		GalleryPassword: "Mot de passe : %s",
		GalleryLocked:   "La galerie demande un mot de passe : les hôtes l’ont.",
		GalleryUntil:    "Le lien fonctionne jusqu’au %s.",
		GalleryWhy:      "Vous recevez ce message car vous avez laissé votre adresse sur la page invité de %s. C’est le seul.",
		SummarySubject:  "Bilan de %s",
		SummaryIntro:    "%s est terminé. Voici ce que vos invités ont partagé.",
		SummaryCounts:   "En chiffres",
		CountPhotos:     "%d photos", CountVideos: "%d vidéos", CountMessages: "%d messages", CountGuests: "%d invités",
		SummaryTop:    "Invités les plus actifs",
		SummaryPlaces: "Lieux",
		PhotosOf:      "%s : %d",
		SummaryLink:   "La galerie",
		SummaryNoLink: "Aucun lien de galerie n’a été créé ; créez-en un depuis la console.",
		SummaryMailed: "%d invités recevront le lien de la galerie par e-mail.",
		Signature:     "Envoyé par votre eventbox",
	},
	"it": {
		Hello: "Ciao %s,", HelloAnon: "Ciao,",
		GallerySubject:  "Le foto di %s",
		GalleryIntro:    "Grazie per aver condiviso %s con noi. Le foto ti aspettano nella galleria.",
		GalleryOpen:     "Apri la galleria",
		GalleryPassword: "Password: %s",
		GalleryLocked:   "La galleria chiede una password: ce l’hanno gli organizzatori.",
		GalleryUntil:    "Il link funziona fino al %s.",
		GalleryWhy:      "Ricevi questa email perché hai lasciato il tuo indirizzo nella pagina ospiti di %s. È l’unica.",
		SummarySubject:  "Riepilogo di %s",
		SummaryIntro:    "%s è finito. Ecco cosa hanno condiviso i tuoi ospiti.",
		SummaryCounts:   "In cifre",
		CountPhotos:     "%d foto", CountVideos: "%d video", CountMessages: "%d messaggi", CountGuests: "%d ospiti",
		SummaryTop:    "Ospiti più attivi",
		SummaryPlaces: "Luoghi",
		PhotosOf:      "%s: %d",
		SummaryLink:   "La galleria",
		SummaryNoLink: "Nessun link alla galleria è stato creato; creane uno dalla console.",
		SummaryMailed: "%d ospiti riceveranno il link alla galleria via email.",
		Signature:     "Inviato dalla tua eventbox",
	},
	"es": {
		Hello: "Hola %s:", HelloAnon: "Hola:",
		GallerySubject:  "Las fotos de %s",
		GalleryIntro:    "Gracias por compartir %s con nosotros. Las fotos te esperan en la galería.",
		GalleryOpen:     "Abrir la galería",
		GalleryPassword: "Contraseña: %s",
		GalleryLocked:   "La galería pide una contraseña: la tienen los anfitriones.",
		GalleryUntil:    "El enlace funciona hasta el %s.",
		GalleryWhy:      "Recibes este correo porque dejaste tu dirección en la página de invitados de %s. Es el único.",
		SummarySubject:  "Resumen de %s",
		SummaryIntro:    "%s ha terminado. Esto es lo que compartieron tus invitados.",
		SummaryCounts:   "En cifras",
		CountPhotos:     "%d fotos", CountVideos: "%d vídeos", CountMessages: "%d mensajes", CountGuests: "%d invitados",
		SummaryTop:    "Invitados más activos",
		SummaryPlaces: "Lugares",
		PhotosOf:      "%s: %d",
		SummaryLink:   "La galería",
		SummaryNoLink: "No se creó ningún enlace de galería; crea uno desde la consola.",
		SummaryMailed: "%d invitados recibirán el enlace de la galería por correo.",
		Signature:     "Enviado por tu eventbox",
	},
}

// Locales lists the languages mails are written in.
func Locales() []string { return []string{"en", "fr", "it", "es"} }

// wordsFor answers the texts of locale, English for any other.
func wordsFor(locale string) (string, texts) {
	if t, ok := locales[locale]; ok {
		return locale, t
	}
	return "en", locales["en"]
}

// content is a mail before it is rendered as text and HTML.
type content struct {
	Lang       string
	Subject    string
	Greeting   string
	Paragraphs []string
	Link       string
	LinkLabel  string
	// Strong is a line shown prominently under the link (a password).
	Strong   string
	Sections []section
	After    []string
	Footer   string
}

// section is a titled list.
type section struct {
	Title string
	Items []string
}

var htmlTemplate = htmltemplate.Must(htmltemplate.New("mail").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>{{.Subject}}</title></head>
<body style="font-family:sans-serif;line-height:1.5;color:#222;max-width:36em;margin:auto;padding:1em">
{{if .Greeting}}<p>{{.Greeting}}</p>{{end}}
{{range .Paragraphs}}<p>{{.}}</p>
{{end}}{{if .Link}}<p><a href="{{.Link}}" style="display:inline-block;padding:.6em 1.2em;background:#333;color:#fff;text-decoration:none;border-radius:6px">{{.LinkLabel}}</a></p>
<p style="font-size:90%;word-break:break-all"><a href="{{.Link}}">{{.Link}}</a></p>
{{end}}{{if .Strong}}<p><strong>{{.Strong}}</strong></p>
{{end}}{{range .Sections}}<h3>{{.Title}}</h3>
<ul>{{range .Items}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{range .After}}<p>{{.}}</p>
{{end}}{{if .Footer}}<p style="font-size:85%;color:#666">{{.Footer}}</p>
{{end}}</body></html>
`))

// render makes the plain text and the HTML of c.
func render(c content) (text, html string, err error) {
	var t strings.Builder
	if c.Greeting != "" {
		t.WriteString(c.Greeting + "\n\n")
	}
	for _, p := range c.Paragraphs {
		t.WriteString(p + "\n\n")
	}
	if c.Link != "" {
		t.WriteString(c.LinkLabel + ":\n" + c.Link + "\n\n")
	}
	if c.Strong != "" {
		t.WriteString(c.Strong + "\n\n")
	}
	for _, s := range c.Sections {
		t.WriteString(s.Title + "\n")
		for _, it := range s.Items {
			t.WriteString("- " + it + "\n")
		}
		t.WriteString("\n")
	}
	for _, p := range c.After {
		t.WriteString(p + "\n\n")
	}
	if c.Footer != "" {
		t.WriteString("-- \n" + c.Footer + "\n")
	}
	var h bytes.Buffer
	if err := htmlTemplate.Execute(&h, c); err != nil {
		return "", "", fmt.Errorf("rendering mail %q: %w", c.Subject, err)
	}
	return t.String(), h.String(), nil
}

// day formats epoch ms as a date in UTC, the same in every language.
func day(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02") }

// fmtTime formats epoch ms as a UTC date and time.
func fmtTime(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04") }
