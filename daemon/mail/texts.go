package mail

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"eventbox/i18n"
)

// Locales lists the languages mails are written in: the catalogue's
// (i18n).
func Locales() []string { return i18n.Embedded().Codes() }

// wordsFor answers the language of locale in the catalogue, English for
// any other. The mails' texts are its "mail" section.
func wordsFor(locale string) (string, *i18n.Language) {
	l := i18n.Embedded().Lang(locale)
	return l.Code(), l
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
	// Title is the event's name at the top of the HTML ("" = none);
	// Accent its colour (#rrggbb, "" = the box's); LogoCID and PhotoCIDs
	// the Content-IDs of its logo and photos in the mail (multipart/
	// related).
	Title     string
	Accent    string
	LogoCID   string
	PhotoCIDs []string
}

// section is a titled list.
type section struct {
	Title string
	Items []string
}

// defaultAccent is the colour of a mail whose event has none.
const defaultAccent = "#3b5b8c"

var hexColour = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// brand answers the mail's accent colour and the ink that reads on it
// (white on a dark colour, near black on a light one).
func brand(accent string) (bg, ink htmltemplate.CSS) {
	if !hexColour.MatchString(accent) {
		accent = defaultAccent
	}
	v, _ := strconv.ParseUint(accent[1:], 16, 32)
	lin := func(c uint64) float64 {
		x := float64(c) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	l := 0.2126*lin(v>>16&0xff) + 0.7152*lin(v>>8&0xff) + 0.0722*lin(v&0xff)
	// White on the colour when that contrasts more than black does.
	if (1.05)/(l+0.05) >= (l+0.05)/0.05 {
		return htmltemplate.CSS(accent), "#ffffff"
	}
	return htmltemplate.CSS(accent), "#111111"
}

// htmlView is what the HTML template reads.
type htmlView struct {
	content
	Bg, Ink htmltemplate.CSS
}

var htmlTemplate = htmltemplate.Must(htmltemplate.New("mail").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>{{.Subject}}</title></head>
<body style="margin:0;padding:0;background:#f4f4f6">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f6"><tr><td align="center" style="padding:16px 8px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:10px;overflow:hidden;font-family:Helvetica,Arial,sans-serif;line-height:1.5;color:#222222">
<tr><td style="background:{{.Bg}};color:{{.Ink}};padding:20px 24px;text-align:center">
{{if .LogoCID}}<img src="cid:{{.LogoCID}}" alt="" height="64" style="height:64px;max-width:200px;display:block;margin:0 auto 8px;border:0">
{{end}}{{if .Title}}<h1 style="margin:0;font-size:24px;line-height:1.25;color:{{.Ink}}">{{.Title}}</h1>
{{end}}</td></tr>
{{if .PhotoCIDs}}<tr><td style="padding:12px 12px 0"><table role="presentation" width="100%" cellpadding="0" cellspacing="4"><tr>{{range .PhotoCIDs}}<td width="33%" style="padding:0"><img src="cid:{{.}}" alt="" width="176" style="width:100%;max-width:176px;height:auto;display:block;border-radius:6px;border:0"></td>{{end}}</tr></table></td></tr>
{{end}}<tr><td style="padding:16px 24px 24px">
{{if .Greeting}}<p style="margin:0 0 12px">{{.Greeting}}</p>
{{end}}{{range .Paragraphs}}<p style="margin:0 0 12px">{{.}}</p>
{{end}}{{if .Link}}<p style="margin:20px 0;text-align:center"><a href="{{.Link}}" style="display:inline-block;padding:14px 28px;background:{{.Bg}};color:{{.Ink}};font-size:18px;font-weight:bold;text-decoration:none;border-radius:8px">{{.LinkLabel}}</a></p>
<p style="margin:0 0 12px;font-size:13px;color:#555555;word-break:break-all;text-align:center"><a href="{{.Link}}" style="color:#555555">{{.Link}}</a></p>
{{end}}{{if .Strong}}<p style="margin:12px 0;padding:10px 12px;background:#f4f4f6;border-radius:6px;text-align:center;font-size:17px"><strong>{{.Strong}}</strong></p>
{{end}}{{range .Sections}}<h2 style="font-size:17px;margin:18px 0 6px">{{.Title}}</h2>
<ul style="margin:0 0 12px;padding-left:20px">{{range .Items}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{range .After}}<p style="margin:0 0 12px">{{.}}</p>
{{end}}{{if .Footer}}<p style="margin:20px 0 0;font-size:13px;color:#666666">{{.Footer}}</p>
{{end}}</td></tr></table>
</td></tr></table>
</body></html>
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
	bg, ink := brand(c.Accent)
	if err := htmlTemplate.Execute(&h, htmlView{content: c, Bg: bg, Ink: ink}); err != nil {
		return "", "", fmt.Errorf("rendering mail %q: %w", c.Subject, err)
	}
	return t.String(), h.String(), nil
}

// day formats epoch ms as a date in UTC, the same in every language.
func day(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02") }

// fmtTime formats epoch ms as a UTC date and time.
func fmtTime(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04") }
