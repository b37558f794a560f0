package access

// Uploader is a guest that joined the event and sends a photo, a video or
// a guestbook message, as far as the upload rules read it.
type Uploader struct {
	// Booth: the guest is the event's photo booth device.
	Booth bool
	// BoothKeyOK: the booth joined with the event's current booth key
	// (the booth is on and its key was not changed since).
	BoothKeyOK bool
}

// Refusal is the error code an upload is refused with; "" lets it
// through. Every refusal answers 403.
type Refusal string

// The refusals of the upload rules, as the routes answer them.
const (
	// Accepted: the rule lets the upload through.
	Accepted Refusal = ""
	// RefuseForbidden: this uploader may not send here at all.
	RefuseForbidden Refusal = "forbidden"
	// RefuseClosed: uploads are closed (switched off, past their closing
	// time, or the event ended).
	RefuseClosed Refusal = "uploads_closed"
	// RefuseQuota: the guest sent as many photos as the event allows.
	RefuseQuota Refusal = "quota_reached"
	// RefuseVideos: the event takes no videos.
	RefuseVideos Refusal = "videos_off"
)

// UploadsOpen reports whether the event takes photos at now (epoch ms):
// switched on, not ended, and before its closing time if it has one.
func UploadsOpen(e Event, now int64) bool {
	if !e.UploadsOpen || e.Ended {
		return false
	}
	return e.UploadsCloseAt == 0 || now < e.UploadsCloseAt
}

// MayUpload is the first gate of a photo or video upload, in the order a
// guest finds fair: a booth only with the event's current key
// (forbidden), then uploads open (uploads_closed). The quota comes next
// ([UploadQuota], [WithinQuota]), once the photos sent are counted.
func MayUpload(u Uploader, e Event, now int64) Refusal {
	if u.Booth && !u.BoothKeyOK {
		return RefuseForbidden
	}
	if !UploadsOpen(e, now) {
		return RefuseClosed
	}
	return Accepted
}

// UploadQuota is how many photos the uploader may send in all (0: no
// cap): the event's cap per guest; the booth has none.
func UploadQuota(u Uploader, e Event) int {
	if u.Booth {
		return 0
	}
	return e.MaxPhotosPerGuest
}

// WithinQuota is the quota gate: sent is how many photos the uploader
// sent so far (counted up to the quota).
func WithinQuota(u Uploader, e Event, sent int) Refusal {
	if q := UploadQuota(u, e); q > 0 && sent >= q {
		return RefuseQuota
	}
	return Accepted
}

// MayUploadVideo is the gate of a video, after the others: the event
// takes videos.
func MayUploadVideo(e Event) Refusal {
	if !e.AllowVideos {
		return RefuseVideos
	}
	return Accepted
}

// MayWriteGuestbook is the gate of a guestbook message of a guest that
// joined: the guestbook is on (forbidden), and the event has not ended
// (uploads_closed). Closed uploads do not close the guestbook.
func MayWriteGuestbook(e Event) Refusal {
	if !e.GuestbookEnabled {
		return RefuseForbidden
	}
	if e.Ended {
		return RefuseClosed
	}
	return Accepted
}
