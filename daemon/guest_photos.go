package daemon

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"eventbox/daemon/imaging"
	"eventbox/store"
)

const (
	// multipartSlack is what a multipart body may carry beyond the file:
	// boundaries, part headers and the small text fields.
	multipartSlack = 64 << 10
	// maxTextPart caps a text field of an upload form.
	maxTextPart = 1 << 10
	// photoPageSize and messagePageSize are the list page sizes
	// (docs/decisions.md).
	photoPageSize = 60
	boothName     = "Photo booth"
)

type photoDTO struct {
	ID          string        `json:"id"`
	Width       int           `json:"width"`
	Height      int           `json:"height"`
	GuestName   *string       `json:"guestName"`
	Status      string        `json:"status"`
	Mine        bool          `json:"mine"`
	Downloads   *int          `json:"downloads,omitempty"`
	Favorite    *bool         `json:"favorite,omitempty"`
	Variants    *string       `json:"variants,omitempty"` // admins only: variantsState
	ChallengeID *string       `json:"challengeId"`
	SpotID      *string       `json:"spotId"`
	CreatedAt   int64         `json:"createdAt"`
	Video       *videoInfoDTO `json:"video,omitempty"`
}

type videoInfoDTO struct {
	DurationMs int64 `json:"durationMs"`
}

// toPhotoDTO builds the answer for a photo. viewerGuest is the guest id of
// the viewing guest ("" for others); admin adds the admin-only fields.
func toPhotoDTO(p store.Photo, viewerGuest string, admin bool) photoDTO {
	d := photoDTO{
		ID: p.ID, Width: p.Width, Height: p.Height, GuestName: nullString(p.GuestName),
		Status: p.Status, Mine: viewerGuest != "" && p.GuestID == viewerGuest,
		ChallengeID: nullString(p.ChallengeID), SpotID: nullString(p.SpotID), CreatedAt: p.CreatedAt,
	}
	if admin {
		downloads, favorite := p.Downloads, p.Favorite
		d.Downloads, d.Favorite = &downloads, &favorite
		state := variantsState(p)
		d.Variants = &state
	}
	if p.Video != nil {
		d.Video = &videoInfoDTO{DurationMs: p.Video.DurationMs}
	}
	return d
}

type photoBody struct {
	Photo photoDTO `json:"photo"`
}

type photoPageBody struct {
	Photos     []photoDTO `json:"photos"`
	NextCursor *int64     `json:"nextCursor"`
}

// statusForNew is the status of a guest upload under the event's
// moderation.
func statusForNew(e store.Event) string {
	if e.Moderation == "pre" {
		return store.StatusPending
	}
	return store.StatusVisible
}

// uploader resolves the guest behind an upload and applies the gates in
// the order a guest finds fair: joined, uploads open, quota, rate. It
// returns the quota to enforce (0: none).
func (s *Server) uploader(r *http.Request, e store.Event) (store.Guest, int, error) {
	g, err := s.joinedGuest(r, e)
	if err != nil {
		return store.Guest{}, 0, err
	}
	if g.Booth && (e.BoothKeyHash == "" || g.BoothKeyHash != e.BoothKeyHash) {
		return store.Guest{}, 0, errForbidden
	}
	if !e.UploadsOpenAt(s.now().UnixMilli()) {
		return store.Guest{}, 0, errUploadsClosed
	}
	quota := e.MaxPhotosPerGuest
	if g.Booth {
		quota = 0
	}
	if quota > 0 {
		n, err := s.store.GuestPhotoCount(r.Context(), e.ID, g.ID, quota)
		if err != nil {
			return store.Guest{}, 0, err
		}
		if n >= quota {
			return store.Guest{}, 0, errQuotaReached
		}
	}
	if err := s.allowUpload(r, g); err != nil {
		return store.Guest{}, 0, err
	}
	if g, err = s.keepGuest(r.Context(), g); err != nil {
		return store.Guest{}, 0, err
	}
	return g, quota, nil
}

// handleGuestUpload takes a photo (multipart) or a video (the video
// content type) from a guest or the booth.
func (s *Server) handleGuestUpload(w http.ResponseWriter, r *http.Request) error {
	e, err := s.eventBySlug(r)
	if err != nil {
		return err
	}
	g, quota, err := s.uploader(r, e)
	if err != nil {
		return err
	}
	name := g.Name
	if g.Booth {
		name = boothName
		// The booth's photo is in: the LED leaves busy.
		defer s.booth.captured()
	}
	p := store.Photo{EventID: e.ID, GuestID: g.ID, GuestName: name, Status: statusForNew(e)}
	p.SpotID = s.spotOf(r, e, r.URL.Query().Get("at"))
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == videoContentType {
		if !e.AllowVideos {
			return errVideosOff
		}
		p.ChallengeID = challengeOf(e, r.URL.Query().Get("challenge"))
		return s.receiveVideo(w, r, e, p, quota)
	}
	return s.receivePhoto(w, r, e, p, quota, "")
}

// spotOf returns the spot id when it names a place of this event, else
// "" (a spot of another event, or a made-up one, is ignored).
func (s *Server) spotOf(r *http.Request, e store.Event, at string) string {
	if !store.ValidID(at) {
		return ""
	}
	if _, err := s.store.Spot(r.Context(), e.ID, at); err != nil {
		return ""
	}
	return at
}

// challengeOf returns the id when it names a challenge of the event.
func challengeOf(e store.Event, id string) string {
	for _, c := range e.Challenges {
		if c.ID == id {
			return c.ID
		}
	}
	return ""
}

// receivedFile is an upload streamed to the temp area.
type receivedFile struct {
	tmp         *store.TempFile
	size        int64
	fingerprint string
}

// receivePhoto streams the multipart form of a photo upload to disk,
// checks the image, stores the original and the record, and queues its
// variants. creditField names the text field that sets the guest name
// (the admin import's "credit"); guests have none.
func (s *Server) receivePhoto(w http.ResponseWriter, r *http.Request, e store.Event, p store.Photo, quota int, creditField string) error {
	defer s.variants.receive()()
	limit := int64(s.cfg.MaxUploadMB) << 20
	fields, file, err := s.readUploadForm(w, r, uploadForm{limit: limit, fileField: "photo",
		textFields: []string{"challenge", creditField}, maxText: maxTextPart, fileRequired: true})
	if err != nil {
		return err
	}
	defer file.tmp.Abort()
	if c := fields["challenge"]; c != "" {
		p.ChallengeID = challengeOf(e, c)
	}
	if creditField != "" {
		credit := strings.Join(strings.Fields(fields[creditField]), " ")
		if utf8.RuneCountInString(credit) > maxGuestName {
			return errField(creditField, fmt.Sprintf("must be at most %d characters", maxGuestName))
		}
		if msg := lineProblem(credit); msg != "" {
			return errField(creditField, msg)
		}
		if credit != "" {
			p.GuestName = credit
		}
	}
	info, err := imaging.Check(file.tmp.File, file.size)
	if err != nil {
		return imageError(err)
	}
	if file.size, err = s.cutTrailing(r, file.tmp, info, file.size); err != nil {
		return err
	}
	p.Width, p.Height, p.Format = info.Width, info.Height, string(info.Format)
	p.Size, p.Fingerprint = file.size, file.fingerprint
	return s.storePhoto(w, r, p, quota, []pendingFile{{file.tmp, store.Photo.OriginalName}})
}

// cutTrailing cuts off what follows the image in a received JPEG (the
// video of a motion photo, the second image of an MPO) and returns the
// size kept. The original is the image as sent, not what rides after it:
// no page shows that data, it would cost the card megabytes per photo,
// and nothing strips the position a video appended there may carry
// (docs/decisions.md, "Full card and server faults"). The fingerprint
// stays that of the bytes sent, so a retry still finds the photo.
func (s *Server) cutTrailing(r *http.Request, tmp *store.TempFile, info imaging.Info, size int64) (int64, error) {
	if info.End <= 0 || info.End >= size {
		return size, nil
	}
	if err := tmp.Truncate(info.End); err != nil {
		return 0, fmt.Errorf("cutting data after the image: %w", err)
	}
	s.log.InfoContext(r.Context(), "data after the image cut off", "bytes", size-info.End)
	return info.End, nil
}

// pendingFile is a received file and the media name it takes once the
// photo has its id.
type pendingFile struct {
	tmp  *store.TempFile
	name func(store.Photo) string
}

// imageError maps a refused image to invalid_image with a reason.
func imageError(err error) error {
	switch {
	case errors.Is(err, imaging.ErrTooLarge):
		return errInvalidImage.with(map[string]string{"photo": "the image has too many pixels"})
	case errors.Is(err, imaging.ErrUnsupported), errors.Is(err, imaging.ErrCorrupt):
		return errInvalidImage.with(map[string]string{"photo": "must be a whole JPEG, PNG, WebP, HEIC or GIF image"})
	}
	return fmt.Errorf("checking image: %w", err)
}

// storePhoto moves the received file into place and commits the record.
// A retry of the same bytes by the same guest answers the photo stored
// the first time with 200.
func (s *Server) storePhoto(w http.ResponseWriter, r *http.Request, p store.Photo, quota int, files []pendingFile) error {
	ctx := r.Context()
	if p.GuestID != "" {
		if old, err := s.store.PhotoByHash(ctx, p.EventID, p.GuestID, p.Fingerprint); err == nil {
			return writeJSON(w, r, http.StatusOK, photoBody{Photo: toPhotoDTO(old, p.GuestID, false)})
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	p.ID = store.NewID()
	var names []string
	removeFiles := func() {
		// No record points at these files: remove them.
		if err := s.store.Media().Remove(names...); err != nil {
			s.log.WarnContext(ctx, "removing an unused upload", "error", err)
		}
	}
	for _, f := range files {
		name := f.name(p)
		if err := f.tmp.Commit(name); err != nil {
			removeFiles()
			return err
		}
		names = append(names, name)
	}
	res, err := s.store.AddPhoto(ctx, p, quota, s.variants.jobs(p)...)
	if err != nil || res.Existing {
		removeFiles()
	}
	if err != nil {
		return err
	}
	if res.Existing {
		return writeJSON(w, r, http.StatusOK, photoBody{Photo: toPhotoDTO(res.Photo, p.GuestID, false)})
	}
	s.variants.nudge()
	s.log.InfoContext(ctx, "photo received", "event", p.EventID, "photo", res.Photo.ID, "bytes", p.Size)
	return writeJSON(w, r, http.StatusCreated, photoBody{Photo: toPhotoDTO(res.Photo, p.GuestID, p.GuestID == "")})
}

// uploadForm describes a multipart upload form.
type uploadForm struct {
	limit        int64    // bytes of the file part
	fileField    string   // the file part's name
	textFields   []string // text parts to read
	maxText      int      // bytes of each text part
	fileRequired bool
}

// readUploadForm streams a multipart upload: the file part goes to a temp
// file in DATA_DIR (hashed on the way), the named text fields are read
// small, anything else is skipped. A body over the limit is cut off while
// streaming with 413 too_large. Without a file part the returned file has
// a nil tmp (or, when the file is required, the answer is 400).
func (s *Server) readUploadForm(w http.ResponseWriter, r *http.Request, form uploadForm) (map[string]string, receivedFile, error) {
	limit, fileField, textFields := form.limit, form.fileField, form.textFields
	slack := int64(multipartSlack + len(textFields)*form.maxText)
	if r.ContentLength > limit+slack {
		return nil, receivedFile{}, errTooLarge
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit+slack)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, receivedFile{}, errField(fileField, "send the file as multipart/form-data")
	}
	fields := map[string]string{}
	var file receivedFile
	fail := func(err error) (map[string]string, receivedFile, error) {
		if file.tmp != nil {
			file.tmp.Abort()
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, receivedFile{}, errTooLarge
		}
		return nil, receivedFile{}, err
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(errorOrTooLarge(err, "body", "is not a readable multipart form"))
		}
		name := part.FormName()
		switch {
		case name == fileField && file.tmp == nil:
			tmp, err := s.store.Media().CreateTemp()
			if err != nil {
				return fail(err)
			}
			file.tmp = tmp
			fp := newFingerprinter()
			n, err := receive(io.MultiWriter(tmp, fp), io.LimitReader(part, limit+1), fileField)
			if err != nil {
				return fail(err)
			}
			if n > limit {
				return fail(errTooLarge)
			}
			file.size = n
			if file.fingerprint, err = fp.sum(tmp, n); err != nil {
				return fail(fmt.Errorf("reading the upload back: %w", err))
			}
		case name != "" && containsString(textFields, name):
			b, err := io.ReadAll(io.LimitReader(part, int64(form.maxText)+1))
			if err != nil {
				return fail(errorOrTooLarge(err, name, "could not be read"))
			}
			if len(b) > form.maxText {
				return fail(errField(name, "is too long"))
			}
			fields[name] = string(b)
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return fail(errorOrTooLarge(err, "body", "is not a readable multipart form"))
			}
		}
	}
	if file.tmp == nil {
		if form.fileRequired {
			return nil, receivedFile{}, errField(fileField, "required")
		}
		return fields, file, nil
	}
	if file.size == 0 {
		file.tmp.Abort()
		return nil, receivedFile{}, errField(fileField, "is empty")
	}
	return fields, file, nil
}

// receive copies an upload's body to the temp file dst and tells whose
// fault a failure is. A read that fails is the client's (it stopped
// sending, or sent too much): 400 naming field, or too_large. A write that
// fails is the box's (a full card, an I/O error): it is returned wrapped,
// and toAPIError makes it 507 insufficient_storage or 503 unavailable, so
// the guest's page keeps the file and tries again (DESIGN.md, "Server
// faults are retryable").
func receive(dst io.Writer, src io.Reader, field string) (int64, error) {
	cr := &clientReader{r: src}
	n, err := io.Copy(dst, cr)
	switch {
	case err == nil:
		return n, nil
	case cr.err != nil:
		return n, errorOrTooLarge(cr.err, field, "upload was interrupted")
	default:
		return n, fmt.Errorf("storing the upload: %w", err)
	}
}

// clientReader remembers the error of the client's side of a copy.
type clientReader struct {
	r   io.Reader
	err error
}

func (c *clientReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// errorOrTooLarge keeps a body-limit error as too_large and names the
// field for any other read failure.
func errorOrTooLarge(err error, field, msg string) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	return errField(field, msg)
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// parseBefore reads the before= cursor: absent, or epoch ms > 0.
func parseBefore(r *http.Request) (int64, error) {
	v := r.URL.Query().Get("before")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, errField("before", "must be a time in epoch milliseconds")
	}
	return n, nil
}

func photoPage(page store.Page[store.Photo], viewerGuest string, admin bool) photoPageBody {
	out := photoPageBody{Photos: make([]photoDTO, 0, len(page.Items))}
	for _, p := range page.Items {
		out.Photos = append(out.Photos, toPhotoDTO(p, viewerGuest, admin))
	}
	if page.Next != 0 {
		next := page.Next
		out.NextCursor = &next
	}
	return out
}

// handleGuestPhotos lists the guest's own photos, newest first; with
// scope=all on a shared album, others' visible photos too.
func (s *Server) handleGuestPhotos(w http.ResponseWriter, r *http.Request) error {
	e, g, err := s.guestOf(r)
	if err != nil {
		return err
	}
	before, err := parseBefore(r)
	if err != nil {
		return err
	}
	scope := r.URL.Query().Get("scope")
	if scope != "" && scope != "all" && scope != "mine" {
		return errField("scope", "must be all or mine")
	}
	page, err := s.store.Photos(r.Context(), store.PhotoQuery{
		EventID: e.ID, GuestID: g.ID, AlsoVisible: scope == "all" && e.AlbumShared,
		Before: before, Limit: photoPageSize,
	})
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, photoPage(page, g.ID, false))
}

// handleGuestDeletePhoto removes one of the guest's own photos with its
// files; anyone else's answers 404.
func (s *Server) handleGuestDeletePhoto(w http.ResponseWriter, r *http.Request) error {
	e, g, err := s.guestOf(r)
	if err != nil {
		return err
	}
	id := param(r, "id")
	if !store.ValidID(id) {
		return errNotFound
	}
	removed, err := s.store.DeletePhotos(r.Context(), e.ID, g.ID, []string{id})
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		return errNotFound
	}
	return writeJSON(w, r, http.StatusOK, okTrue)
}
