package mail

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"time"

	"eventbox/daemon/i18n"
)

// Locales lists the languages mails are written in: the catalogue's
// (daemon/i18n).
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
