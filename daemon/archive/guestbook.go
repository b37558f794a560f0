package archive

import (
	"archive/zip"
	"fmt"
	"net/http"
	"strings"
	"time"

	"eventbox/daemon/mediafile"
	"eventbox/daemon/web"
	"eventbox/i18n"
	"eventbox/store"
	"eventbox/text"
)

// Guestbook writes the ZIP of a guestbook: guestbook.txt with every
// message of all (oldest first: GuestbookText) and the voice notes
// themselves, the file named after the event. now dates guestbook.txt.
// After the first byte an error can only cut the connection
// (web.AbortStream): the client sees a broken ZIP, never a JSON error
// inside it.
func (s *Streamer) Guestbook(w http.ResponseWriter, r *http.Request, e store.Event, all []store.Message, now time.Time) error {
	txt, audioNames := GuestbookText(e, all)

	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", mediafile.ContentDisposition(mediafile.SafeName(e.Name)+"-guestbook.zip"))
	w.Header().Set("Cache-Control", "no-store")
	zw := zip.NewWriter(w)
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "guestbook.txt", Method: zip.Deflate, Modified: now})
	if err != nil {
		return web.AbortStream(s.log, r, err)
	}
	if _, err := f.Write([]byte(txt)); err != nil {
		return web.AbortStream(s.log, r, err)
	}
	for _, m := range all {
		file, ok := audioNames[m.ID]
		if !ok {
			continue
		}
		if err := r.Context().Err(); err != nil {
			return web.AbortStream(s.log, r, err)
		}
		if err := s.copyMedia(zw, m.AudioName(), file, time.UnixMilli(m.CreatedAt)); err != nil {
			return web.AbortStream(s.log, r, err)
		}
	}
	if err := zw.Close(); err != nil {
		return web.AbortStream(s.log, r, err)
	}
	return nil
}

// copyMedia stores a media file in the archive without compressing it
// again (zip.Store: media are compressed already).
func (s *Streamer) copyMedia(zw *zip.Writer, media, name string, modified time.Time) error {
	src, err := s.store.Media().Open(media)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: modified})
	if err != nil {
		return err
	}
	_, err = src.WriteTo(dst)
	if err != nil {
		return fmt.Errorf("adding %s to the archive: %w", name, err)
	}
	return nil
}

// LocalTime writes a time the way the event's language reads it, in the
// box's time zone (guestbook.txt).
func LocalTime(t time.Time, locale string) string {
	return text.DateTime(t.Local(), locale)
}

// guestbookLabels are the few words of guestbook.txt in locale (title,
// anonymous, voice note), from the catalogue (i18n).
func guestbookLabels(locale string) [3]string {
	l := i18n.Embedded().Lang(locale)
	return [3]string{l.Text("guestbook.title"), l.Text("guestbook.anonymous"), l.Text("guestbook.voiceNote")}
}

// GuestbookText is guestbook.txt for the messages, oldest first: each
// message's name, time in the event's language, text, and the file name of
// its voice note, which it answers by message id ("voice/001-….m4a").
// The hosts' guestbook archive and the cloud export both write it.
func GuestbookText(e store.Event, all []store.Message) (string, map[string]string) {
	labels := guestbookLabels(e.DefaultLocale)
	audioNames := make(map[string]string, len(all))
	var txt strings.Builder
	fmt.Fprintf(&txt, "%s — %s\r\n\r\n", labels[0], e.Name)
	for i, m := range all {
		name := m.GuestName
		if name == "" {
			name = labels[1]
		}
		fmt.Fprintf(&txt, "%s — %s", name, LocalTime(time.UnixMilli(m.CreatedAt), e.DefaultLocale))
		if m.Status != store.StatusVisible {
			fmt.Fprintf(&txt, " [%s]", m.Status)
		}
		txt.WriteString("\r\n")
		if m.Text != "" {
			txt.WriteString(strings.ReplaceAll(m.Text, "\n", "\r\n") + "\r\n")
		}
		if m.HasAudio() {
			file := fmt.Sprintf("voice/%03d-%s.%s", i+1, strings.Trim(mediafile.SafeName(name)+"-"+m.ID, "-"), m.AudioExt)
			audioNames[m.ID] = file
			fmt.Fprintf(&txt, "%s: %s (%.0f s)\r\n", labels[2], file, m.Seconds)
		}
		txt.WriteString("\r\n")
	}

	return txt.String(), audioNames
}
