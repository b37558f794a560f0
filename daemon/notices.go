package daemon

import (
	"context"

	"eventbox/daemon/printing"
	"eventbox/store"
)

// The notices the daemon fires from where things happen (store/notices.go):
// each is enqueued in the transaction of its change, and the outbox fans
// it out to the webhooks (daemon/outbox).

// photoNotice is the data of photo.uploaded and photo.pending.
type photoNotice struct {
	PhotoID   string `json:"photoId"`
	GuestName string `json:"guestName,omitempty"`
	Video     bool   `json:"video"`
}

// messageNotice is the data of message.created.
type messageNotice struct {
	MessageID string `json:"messageId"`
	GuestName string `json:"guestName,omitempty"`
	Voice     bool   `json:"voice"`
}

// notice is the job of a notice, or none when it cannot be made (it is
// logged: a notice is never worth failing the change that causes it).
func (s *Server) notice(kind, eventID string, data any) []store.JobSpec {
	sp, err := store.NoticeJobSpec(store.Notice{Kind: kind, At: s.now().UnixMilli(), EventID: eventID}, data)
	if err != nil {
		s.log.Error("making a notice", "kind", kind, "error", err)
		return nil
	}
	return []store.JobSpec{sp}
}

// photoJobs are the jobs stored with a new photo: its variants, its
// notice (photo.pending when it waits for moderation), and its print when
// a booth took it and every booth photo prints (daemon/printing).
func (s *Server) photoJobs(p store.Photo) []store.JobSpec {
	kind := store.NoticePhotoUploaded
	if p.Status == store.StatusPending {
		kind = store.NoticePhotoPending
	}
	out := append(s.variants.Jobs(p),
		s.notice(kind, p.EventID, photoNotice{PhotoID: p.ID, GuestName: p.GuestName, Video: p.Video != nil})...)
	if p.GuestID != "" {
		ctx := context.Background()
		if g, err := s.store.Guests().Get(ctx, p.EventID, p.GuestID); err == nil && g.Booth {
			out = append(out, printing.AutoPrint(ctx, s.store, s.now(), s.log.With("component", "printing"), p, true)...)
		}
	}
	return out
}

// photoStored tells the runner about a new photo's jobs.
func (s *Server) photoStored() {
	s.variants.Nudge()
	s.outbox.Notify()
	s.jobs.Notify(store.PrintJobKind)
}
