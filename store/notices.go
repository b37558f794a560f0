package store

import (
	"encoding/json"
	"fmt"
)

// NoticeJobKind is the job kind that carries one notice: something that
// happened which the hosts may want to hear about (a webhook delivery, an
// alert mail). The change that causes a notice enqueues its job in the
// same transaction (NoticeJobSpec); the notice's handler (daemon/outbox)
// then fans it out to the webhooks and alert mails that want that kind,
// each a job of its own. A producer never needs to know who listens.
const NoticeJobKind = "notice"

// The notice kinds: the webhook kinds (docs/design.md, "Webhooks"). The alert mails use
// the last three.
const (
	NoticePhotoUploaded  = "photo.uploaded"
	NoticePhotoPending   = "photo.pending"
	NoticeMessageCreated = "message.created"
	NoticeEventEnded     = "event.ended"
	NoticeExportFinished = "export.finished"
	NoticeExportFailed   = "export.failed"
	NoticeBackupFailed   = "backup.failed"
	NoticeStorageLow     = "storage.low"
	// NoticePrinterAttention: the printer needs a person (out of paper
	// or ink ribbon, jammed, offline, stopped); daemon/printing.
	NoticePrinterAttention = "printer.attention"
)

// NoticeKinds lists every notice kind, in the order docs/design.md, "Webhooks" gives them.
func NoticeKinds() []string {
	return []string{NoticePhotoUploaded, NoticePhotoPending, NoticeMessageCreated, NoticeEventEnded,
		NoticeExportFinished, NoticeExportFailed, NoticeBackupFailed, NoticeStorageLow, NoticePrinterAttention}
}

// ValidNoticeKind reports whether kind is one of NoticeKinds.
func ValidNoticeKind(kind string) bool {
	for _, k := range NoticeKinds() {
		if k == kind {
			return true
		}
	}
	return false
}

// Notice is the payload of a notice job.
type Notice struct {
	// Kind is one of NoticeKinds.
	Kind string `json:"kind"`
	// At is when it happened, epoch ms.
	At int64 `json:"at"`
	// EventID is the event it concerns; empty for the box as a whole
	// (backup.failed, storage.low).
	EventID string `json:"eventId,omitempty"`
	// Data is the kind's own detail (a photo id, an export's error, the
	// free bytes left), sent as the webhook's data.
	Data json.RawMessage `json:"data,omitempty"`
}

// NoticeJobSpec is the job that carries n. data is marshalled into
// n.Data when n.Data is nil; it answers an error only when data cannot
// be marshalled or n.Kind is not a notice kind.
func NoticeJobSpec(n Notice, data any) (JobSpec, error) {
	if !ValidNoticeKind(n.Kind) {
		return JobSpec{}, fmt.Errorf("notice kind %q: %w", n.Kind, ErrJobKind)
	}
	if n.Data == nil && data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			return JobSpec{}, fmt.Errorf("encoding the data of notice %s: %w", n.Kind, err)
		}
		n.Data = b
	}
	p, err := json.Marshal(n)
	if err != nil {
		return JobSpec{}, fmt.Errorf("encoding notice %s: %w", n.Kind, err)
	}
	return JobSpec{Kind: NoticeJobKind, Payload: p}, nil
}
