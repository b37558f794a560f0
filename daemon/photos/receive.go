package photos

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"eventbox/daemon/dto"
	"eventbox/daemon/ingest"
	"eventbox/daemon/web"
	"eventbox/store"
)

// maxTextPart caps a text field of an upload form.
const maxTextPart = 1 << 10

// Receiving is what background image work is told of a body being
// received (daemon/variants.Maker).
type Receiving interface {
	// Receive marks an upload body as being received until done is
	// called (background image work yields to it).
	Receive() (done func())
}

// Config is what a Receiver needs. Every field is required.
type Config struct {
	// Ingest reads an upload's body and stores its file and record.
	Ingest *ingest.Ingester
	// Variants is told while a body is being received.
	Variants Receiving
	// MaxUploadMB, MaxVideoMB and MaxVideoSeconds are the box's upload
	// limits (daemon.Config's fields of the same names).
	MaxUploadMB     int
	MaxVideoMB      int
	MaxVideoSeconds int
	// Uploaded counts a stored upload of a kind (photo, video, import)
	// in the metrics.
	Uploaded func(kind string)
}

// Receiver takes a photo or a video into an event: the body to a temp
// file, then through daemon/ingest to a stored record with its variant
// job, and the answer. It is safe for concurrent use.
type Receiver struct{ cfg Config }

// NewReceiver returns a Receiver over cfg.
func NewReceiver(cfg Config) *Receiver { return &Receiver{cfg: cfg} }

// Limits are the box's upload limits in bytes and seconds.
type Limits struct {
	// PhotoBytes is the most bytes of a photo file (MAX_UPLOAD_MB).
	PhotoBytes int64
	// VideoBytes is the most bytes of a video file, its poster not
	// counted (MAX_VIDEO_MB).
	VideoBytes int64
	// VideoSeconds is the longest video taken (MAX_VIDEO_SECONDS).
	VideoSeconds int
}

// Limits answers the limits the Receiver holds uploads to.
func (rc *Receiver) Limits() Limits {
	return Limits{
		PhotoBytes:   int64(rc.cfg.MaxUploadMB) << 20,
		VideoBytes:   int64(rc.cfg.MaxVideoMB) << 20,
		VideoSeconds: rc.cfg.MaxVideoSeconds,
	}
}

// ReceivePhoto reads the multipart form of a photo upload into a temp
// file, then has ingest check the image and store the original, the
// record and its variant job. quota is the guest's most photos (0: none).
// creditField names the text field that sets the guest name (the hosts'
// import's "credit"); guests have none.
func (rc *Receiver) ReceivePhoto(w http.ResponseWriter, r *http.Request, e store.Event, p store.Photo, quota int, creditField string) error {
	defer rc.cfg.Variants.Receive()()
	limit := rc.Limits().PhotoBytes
	fields, file, err := rc.cfg.Ingest.ReadForm(w, r, ingest.Form{Limit: limit, FileField: "photo",
		TextFields: []string{"challenge", creditField}, MaxText: maxTextPart, FileRequired: true})
	if err != nil {
		return err
	}
	defer file.Tmp.Abort()
	if c := fields["challenge"]; c != "" {
		p.ChallengeID = ChallengeOf(e, c)
	}
	if creditField != "" {
		credit := strings.Join(strings.Fields(fields[creditField]), " ")
		if utf8.RuneCountInString(credit) > MaxGuestName {
			return web.Field(creditField, fmt.Sprintf("must be at most %d characters", MaxGuestName))
		}
		if msg := web.LineProblem(credit); msg != "" {
			return web.Field(creditField, msg)
		}
		if credit != "" {
			p.GuestName = credit
		}
	}
	res, err := rc.cfg.Ingest.Photo(r.Context(), file, p, quota)
	if err != nil {
		return err
	}
	return rc.writeStored(w, r, p, res)
}

// ReceiveVideo has ingest stream a video upload (the poster JPEG, then
// the video) to disk, check and store it. quota is as ReceivePhoto's.
func (rc *Receiver) ReceiveVideo(w http.ResponseWriter, r *http.Request, p store.Photo, quota int) error {
	defer rc.cfg.Variants.Receive()()
	l := rc.Limits()
	res, err := rc.cfg.Ingest.Video(w, r, p, quota, ingest.VideoLimits{
		MaxBytes:    l.VideoBytes,
		MaxDuration: time.Duration(l.VideoSeconds) * time.Second,
	})
	if err != nil {
		return err
	}
	return rc.writeStored(w, r, p, res)
}

// writeStored answers a stored upload: 201 with the new photo (with the
// admin fields for an import, which has no guest), or 200 with the photo
// a retry found.
func (rc *Receiver) writeStored(w http.ResponseWriter, r *http.Request, p store.Photo, res ingest.Result) error {
	if res.Existing {
		return web.JSON(w, r, http.StatusOK, dto.PhotoBody{Photo: dto.PhotoOf(res.Photo, p.GuestID, false)})
	}
	rc.cfg.Uploaded(uploadKind(res.Photo))
	return web.JSON(w, r, http.StatusCreated, dto.PhotoBody{Photo: dto.PhotoOf(res.Photo, p.GuestID, p.GuestID == "")})
}

// uploadKind is the kind label of a stored upload in the metrics.
func uploadKind(p store.Photo) string {
	switch {
	case p.GuestID == "":
		return "import"
	case p.Video != nil:
		return "video"
	}
	return "photo"
}
