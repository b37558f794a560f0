package outbox

import (
	"encoding/json"
	"fmt"

	"eventbox/store"
)

// message is a delivery as words, for the chat formats (ntfy, discord,
// slack).
type message struct {
	title, text string
	// tag is an ntfy tag (an emoji short code).
	tag string
	// urgent marks a failure the hosts should see soon.
	urgent bool
}

// details are the fields of a notice's data that the chat messages use;
// the rest is for json receivers.
type details struct {
	GuestName string `json:"guestName"`
	Error     string `json:"error"`
	FreeBytes int64  `json:"freeBytes"`
}

// describe words d. The words are English: the hosts read them on their
// phones, and a webhook has no locale.
func describe(d delivery, ev *eventRef) message {
	where := "eventbox"
	if ev != nil && ev.Name != "" {
		where = ev.Name
	}
	var det details
	if d.Notice.Data != nil {
		_ = json.Unmarshal(d.Notice.Data, &det) // best effort: the words do without
	}
	n := max(d.Count, 1)
	from := ""
	if det.GuestName != "" && n == 1 {
		from = " from " + det.GuestName
	}
	m := message{title: where}
	switch d.Notice.Kind {
	case store.NoticePhotoUploaded:
		m.tag = "camera"
		m.text = plural(n, "A new photo", "%d new photos") + from
	case store.NoticePhotoPending:
		m.tag = "hourglass"
		m.text = plural(n, "A new photo waits", "%d new photos wait") + " for moderation" + from
	case store.NoticeMessageCreated:
		m.tag = "speech_balloon"
		m.text = plural(n, "A new guestbook message", "%d new guestbook messages") + from
	case store.NoticeEventEnded:
		m.tag = "tada"
		m.text = "The event has ended."
	case store.NoticeExportFinished:
		m.tag = "white_check_mark"
		m.text = "The cloud export has finished."
	case store.NoticeExportFailed:
		m.tag, m.urgent = "warning", true
		m.text = "The cloud export failed" + reason(det.Error)
	case store.NoticeBackupFailed:
		m.tag, m.urgent = "warning", true
		m.text = "The backup failed" + reason(det.Error)
	case store.NoticeStorageLow:
		m.tag, m.urgent = "warning", true
		m.text = "The box is running out of space"
		if det.FreeBytes > 0 {
			m.text += fmt.Sprintf(": %d MB left", det.FreeBytes>>20)
		}
		m.text += "."
	case TestKind:
		m.tag = "wave"
		m.text = "This is a test from eventbox: the webhook works."
	default:
		m.text = d.Notice.Kind
	}
	return m
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf(many, n)
}

func reason(err string) string {
	if err == "" {
		return "."
	}
	return ": " + err
}
