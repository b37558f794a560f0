package daemon

import (
	"archive/zip"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"eventbox/daemon/access"
	"eventbox/daemon/i18n"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/text"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// formatLocalTime writes a time the way the event's language reads it, in
// the box's time zone.
func formatLocalTime(t time.Time, locale string) string {
	return text.DateTime(t.Local(), locale)
}

// guestbookLabels are the few words of guestbook.txt in locale (title,
// anonymous, voice note), from the catalogue (daemon/i18n).
func guestbookLabels(locale string) [3]string {
	l := i18n.Embedded().Lang(locale)
	return [3]string{l.Text("guestbook.title"), l.Text("guestbook.anonymous"), l.Text("guestbook.voiceNote")}
}

// handleMessageArchive streams a ZIP of the guestbook: guestbook.txt with
// every message (oldest first: name, time in the event's language, text,
// and the file name of its voice note) and the voice notes themselves.
func (s *Server) handleMessageArchive(w http.ResponseWriter, r *http.Request) error {
	e, err := s.visitors.AdminEvent(r)
	if err != nil {
		return err
	}
	var all []store.Message
	q := visitor.MessageQuery(e.ID, access.HostGuestbook())
	q.Limit = 500
	for {
		page, err := s.store.Messages().List(r.Context(), q)
		if err != nil {
			return err
		}
		all = append(all, page.Items...)
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
	}
	slices.Reverse(all)
	txt, audioNames := guestbookText(e, all)

	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", mediafile.ContentDisposition(mediafile.SafeName(e.Name)+"-guestbook.zip"))
	w.Header().Set("Cache-Control", "no-store")
	zw := zip.NewWriter(w)
	now := s.now()
	// After the first byte an error can only cut the connection: the
	// client sees a broken ZIP, never a JSON error inside it.
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "guestbook.txt", Method: zip.Deflate, Modified: now})
	if err != nil {
		return s.abortStream(r, err)
	}
	if _, err := f.Write([]byte(txt)); err != nil {
		return s.abortStream(r, err)
	}
	for _, m := range all {
		file, ok := audioNames[m.ID]
		if !ok {
			continue
		}
		if err := r.Context().Err(); err != nil {
			return s.abortStream(r, err)
		}
		if err := s.copyMediaToZip(zw, m.AudioName(), file, time.UnixMilli(m.CreatedAt)); err != nil {
			return s.abortStream(r, err)
		}
	}
	if err := zw.Close(); err != nil {
		return s.abortStream(r, err)
	}
	return nil
}

// copyMediaToZip stores a media file in the archive without compressing
// it again (zip.Store: media are compressed already).
func (s *Server) copyMediaToZip(zw *zip.Writer, media, name string, modified time.Time) error {
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

// abortStream ends a streamed answer that failed after its first byte:
// it logs the cause, then panics with http.ErrAbortHandler, which makes
// the server cut the connection, so the client sees an incomplete download
// rather than a complete-looking one. It never returns.
func (s *Server) abortStream(r *http.Request, err error) error {
	if r.Context().Err() == nil {
		s.log.WarnContext(r.Context(), "streamed answer cut off", "path", web.LogPath(r), "error", err)
	}
	panic(http.ErrAbortHandler)
}

// guestbookText is guestbook.txt for the messages, oldest first: each
// message's name, time in the event's language, text, and the file name of
// its voice note, which it answers by message id ("voice/001-….m4a").
func guestbookText(e store.Event, all []store.Message) (string, map[string]string) {
	labels := guestbookLabels(e.DefaultLocale)
	audioNames := make(map[string]string, len(all))
	var txt strings.Builder
	fmt.Fprintf(&txt, "%s — %s\r\n\r\n", labels[0], e.Name)
	for i, m := range all {
		name := m.GuestName
		if name == "" {
			name = labels[1]
		}
		fmt.Fprintf(&txt, "%s — %s", name, formatLocalTime(time.UnixMilli(m.CreatedAt), e.DefaultLocale))
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
