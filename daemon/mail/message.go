package mail

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	gomessage "github.com/emersion/go-message"
	gomail "github.com/emersion/go-message/mail"
)

// Purposes of a mail, kept in Message.Purpose for the console's queue.
const (
	PurposeGallery    = "gallery"
	PurposeSummary    = "summary"
	PurposeInvitation = "invitation"
	PurposeAlert      = "alert"
	PurposeTest       = "test"
)

// Message is a composed mail: the payload of a mail job. The sender and
// the Date are added when it is sent.
type Message struct {
	// To is the recipient's address; ToName its display name, if any.
	To     string `json:"to"`
	ToName string `json:"toName,omitempty"`
	// Subject, Text and HTML are the mail in its locale.
	Subject string `json:"subject"`
	Text    string `json:"text"`
	HTML    string `json:"html"`
	// Locale is the language it is written in (en, fr, it, es).
	Locale string `json:"locale"`
	// MessageID is fixed when the mail is queued, without the angle
	// brackets: every attempt sends the same one.
	MessageID string `json:"messageId"`
	// Unsubscribe adds List-Unsubscribe (a mailto: to the sender): a
	// guest's mail, sent to an address left on a phone.
	Unsubscribe bool `json:"unsubscribe,omitempty"`
	// Purpose is one of the Purpose constants; EventID the event it is
	// about, if any.
	Purpose string `json:"purpose"`
	EventID string `json:"eventId,omitempty"`
	// Inline are the pictures the HTML shows as cid: links (the event's
	// logo, a few photos), read from the media store when the mail is
	// sent; one that is gone by then is left out.
	Inline []Inline `json:"inline,omitempty"`
	// Gallery, on a guest's gallery mail, is what the mail is composed
	// of again when it is sent: its link may wait for the cloud export,
	// and the photos it shows are those visible then.
	Gallery *GalleryRef `json:"gallery,omitempty"`
}

// Inline is a picture of a mail's HTML: Content-ID CID (without the
// angle brackets), the stored file Media, of type Type (image/jpeg,
// image/png).
type Inline struct {
	CID   string `json:"cid"`
	Media string `json:"media"`
	Type  string `json:"type"`
}

// MaxInlineBytes is the largest picture a mail carries inline: a photo's
// thumb (400 px, tens of KiB) or a logo; a bigger file is left out, so a
// mail with its pictures stays well under a few hundred KiB.
const MaxInlineBytes = 256 << 10

// inlineFile is a picture read for a mail.
type inlineFile struct {
	Inline
	data []byte
}

// compose writes msg as an RFC 5322 message from from, dated date:
// multipart/alternative with the plain text first and the HTML second,
// inside multipart/related with the pictures of the HTML when it has any.
func compose(msg Message, from *gomail.Address, date time.Time, pictures []inlineFile) ([]byte, error) {
	var h gomail.Header
	h.SetDate(date)
	h.SetAddressList("From", []*gomail.Address{from})
	h.SetAddressList("To", []*gomail.Address{{Name: msg.ToName, Address: msg.To}})
	h.SetSubject(msg.Subject)
	h.SetMessageID(msg.MessageID)
	h.Set("Content-Language", msg.Locale)
	h.Set("Auto-Submitted", "auto-generated")
	if msg.Unsubscribe {
		h.Set("List-Unsubscribe", "<mailto:"+from.Address+"?subject=unsubscribe>")
	}
	fail := func(err error) ([]byte, error) { return nil, fmt.Errorf("composing mail %s: %w", msg.MessageID, err) }
	var buf bytes.Buffer
	if len(pictures) == 0 {
		w, err := gomail.CreateInlineWriter(&buf, h)
		if err != nil {
			return fail(err)
		}
		if err := writeAlternative(msg, w.CreatePart); err != nil {
			return fail(err)
		}
		if err := w.Close(); err != nil {
			return fail(err)
		}
		return buf.Bytes(), nil
	}
	h.SetContentType("multipart/related", map[string]string{"type": "multipart/alternative"})
	w, err := gomessage.CreateWriter(&buf, h.Header)
	if err != nil {
		return fail(err)
	}
	var ah gomessage.Header
	ah.SetContentType("multipart/alternative", nil)
	alt, err := w.CreatePart(ah)
	if err != nil {
		return fail(err)
	}
	err = writeAlternative(msg, func(ph gomail.InlineHeader) (io.WriteCloser, error) { return alt.CreatePart(ph.Header) })
	if err != nil {
		return fail(err)
	}
	if err := alt.Close(); err != nil {
		return fail(err)
	}
	for _, p := range pictures {
		var ph gomessage.Header
		ph.SetContentType(p.Type, nil)
		ph.Set("Content-ID", "<"+p.CID+">")
		ph.SetContentDisposition("inline", map[string]string{"filename": p.CID[:strings.IndexByte(p.CID+"@", '@')] + ext(p.Type)})
		ph.Set("Content-Transfer-Encoding", "base64")
		pw, err := w.CreatePart(ph)
		if err != nil {
			return fail(err)
		}
		if _, err := pw.Write(p.data); err != nil {
			return fail(err)
		}
		if err := pw.Close(); err != nil {
			return fail(err)
		}
	}
	if err := w.Close(); err != nil {
		return fail(err)
	}
	return buf.Bytes(), nil
}

func ext(typ string) string {
	if typ == "image/png" {
		return ".png"
	}
	return ".jpg"
}

// writeAlternative writes the text and HTML parts of msg with create.
func writeAlternative[W io.WriteCloser](msg Message, create func(gomail.InlineHeader) (W, error)) error {
	for _, part := range []struct{ typ, body string }{{"text/plain", msg.Text}, {"text/html", msg.HTML}} {
		var ph gomail.InlineHeader
		ph.SetContentType(part.typ, map[string]string{"charset": "utf-8"})
		ph.Set("Content-Transfer-Encoding", "quoted-printable")
		pw, err := create(ph)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(pw, part.body); err != nil {
			return err
		}
		if err := pw.Close(); err != nil {
			return err
		}
	}
	return nil
}

// ParseAddress checks an address as a host types it ("Name <a@b.c>" or
// "a@b.c") and answers it parsed.
func ParseAddress(s string) (*gomail.Address, error) {
	a, err := gomail.ParseAddress(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("parsing address %q: %w", s, err)
	}
	return a, nil
}

// messageDomain is the right side of the Message-IDs the box makes: the
// sender's domain, else eventbox.local.
func messageDomain(from string) string {
	if a, err := ParseAddress(from); err == nil {
		if at := strings.LastIndexByte(a.Address, '@'); at >= 0 && at < len(a.Address)-1 {
			return a.Address[at+1:]
		}
	}
	return "eventbox.local"
}
