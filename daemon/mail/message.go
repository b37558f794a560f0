package mail

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

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
}

// compose writes msg as an RFC 5322 message from from, dated date:
// multipart/alternative with the plain text first and the HTML second.
func compose(msg Message, from *gomail.Address, date time.Time) ([]byte, error) {
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
	var buf bytes.Buffer
	w, err := gomail.CreateInlineWriter(&buf, h)
	if err != nil {
		return nil, fmt.Errorf("composing mail %s: %w", msg.MessageID, err)
	}
	for _, part := range []struct{ typ, body string }{{"text/plain", msg.Text}, {"text/html", msg.HTML}} {
		var ph gomail.InlineHeader
		ph.SetContentType(part.typ, map[string]string{"charset": "utf-8"})
		pw, err := w.CreatePart(ph)
		if err != nil {
			return nil, fmt.Errorf("composing mail %s: %w", msg.MessageID, err)
		}
		if _, err := io.WriteString(pw, part.body); err != nil {
			return nil, fmt.Errorf("composing mail %s: %w", msg.MessageID, err)
		}
		if err := pw.Close(); err != nil {
			return nil, fmt.Errorf("composing mail %s: %w", msg.MessageID, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("composing mail %s: %w", msg.MessageID, err)
	}
	return buf.Bytes(), nil
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
