package resumable

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strconv"

	"eventbox/daemon/ingest"
	"eventbox/daemon/web"
)

// videoContentType is the spec's content type of a video body: the
// poster JPEG (X-Poster-Bytes long), then the video.
const videoContentType = "application/vnd.service.video"

// errDryRun ends a dry run's body at its first read.
var errDryRun = errors.New("dry run: the rules passed")

// dryBody is a dry run's body: the spec's handler reading it means every
// rule before the body passed.
type dryBody struct{ read bool }

func (b *dryBody) Read([]byte) (int, error) {
	b.read = true
	return 0, errDryRun
}

func (b *dryBody) Close() error { return nil }

// request is the spec's request for an upload: its route, query,
// headers and body.
type request struct {
	handler http.Handler
	path    string
	query   url.Values
	header  http.Header
	body    io.Reader
	length  int64
	// file, when not empty, is the finished upload's file (fileSize
	// bytes) that ingest adopts as the request's file: the body then
	// carries an empty file part, or ends with a video's poster.
	file     string
	fileSize int64
}

// specRequest builds the spec's request for in (poster: a video's
// finished poster upload); open, when not nil, gives the bytes of an
// upload, and the body is then the whole file's.
func (s *Server) specRequest(in, poster info, open func(info) (io.Reader, error)) (request, func(), error) {
	q := url.Values{}
	for _, k := range []string{"at", "challenge"} {
		if v := in.Meta[k]; v != "" {
			q.Set(k, v)
		}
	}
	rq := request{handler: s.cfg.Photos, path: "/api/e/" + in.Slug + "/photos", query: q, header: http.Header{}}
	cleanup := func() {}
	switch in.Kind {
	case KindVideo, KindPoster:
		posterLen, videoLen := poster.Length, in.Length
		if in.Kind == KindPoster {
			posterLen, videoLen = in.Length, 0
		}
		rq.header.Set("Content-Type", videoContentType)
		rq.header.Set("X-Poster-Bytes", strconv.FormatInt(posterLen, 10))
		rq.length = posterLen + videoLen
		if open != nil {
			p, err := open(poster)
			if err != nil {
				return request{}, nil, err
			}
			if in.Kind == KindVideo {
				// The video is adopted by ingest, not sent: only the
				// poster is copied.
				rq.body, rq.length = p, posterLen
				rq.file, rq.fileSize = s.dataPath(in.ID), in.Length
				break
			}
			v, err := open(in)
			if err != nil {
				return request{}, nil, err
			}
			rq.body = io.MultiReader(p, v)
		}
	default:
		field := "photo"
		fields := map[string]string{}
		if in.Kind == KindVoice {
			rq.handler, rq.path, field = s.cfg.Messages, "/api/e/"+in.Slug+"/messages", "audio"
			fields["seconds"], fields["text"] = in.Meta["seconds"], in.Meta["text"]
			q.Del("at")
			q.Del("challenge")
		} else if c := in.Meta["challenge"]; c != "" {
			fields["challenge"] = c
		}
		name := in.Meta["filename"]
		if name == "" {
			name = in.Kind
		}
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		rq.header.Set("Content-Type", mw.FormDataContentType())
		rq.length = in.Length + formSlack
		if open == nil {
			break
		}
		// The file is adopted by ingest, not sent: its part is empty.
		rq.body, rq.length = pr, -1
		rq.file, rq.fileSize = s.dataPath(in.ID), in.Length
		go func() {
			err := func() error {
				for k, v := range fields {
					if v == "" {
						continue
					}
					if err := mw.WriteField(k, v); err != nil {
						return err
					}
				}
				if _, err := mw.CreateFormFile(field, name); err != nil {
					return err
				}
				return mw.Close()
			}()
			pw.CloseWithError(err)
		}()
		cleanup = func() { pr.CloseWithError(errors.New("answered")) }
	}
	return rq, cleanup, nil
}

// serve sends rq through its handler as the guest's own request r would
// be, and records the answer.
func serve(r *http.Request, rq request, body io.ReadCloser) *recorder {
	ctx := r.Context()
	if rq.file != "" {
		ctx = ingest.WithFile(ctx, rq.file, rq.fileSize)
	}
	sr := r.Clone(ctx)
	sr.Method = http.MethodPost
	sr.URL = &url.URL{Path: rq.path, RawQuery: rq.query.Encode()}
	sr.RequestURI = sr.URL.RequestURI()
	sr.Header = r.Header.Clone()
	for _, k := range []string{"Content-Type", "X-Poster-Bytes", "Expect", "Upload-Offset", "Upload-Length", "Upload-Metadata"} {
		sr.Header.Del(k)
	}
	for k, v := range rq.header {
		sr.Header[k] = v
	}
	sr.Body, sr.ContentLength = body, rq.length
	rec := &recorder{header: http.Header{}}
	rq.handler.ServeHTTP(rec, sr)
	return rec
}

// dryRun asks the spec's route whether it would take in, before any byte
// is sent. done is true when the route refused: its answer is written.
func (s *Server) dryRun(w http.ResponseWriter, r *http.Request, in, poster info) (done bool, err error) {
	rq, _, err := s.specRequest(in, poster, nil)
	if err != nil {
		return true, err
	}
	body := &dryBody{}
	rec := serve(r, rq, body)
	if body.read {
		return false, nil
	}
	// Refused before the body: the route's own answer, as it is.
	return true, writeResult(w, &result{Status: rec.status, Body: rec.body.Bytes(), retryAfter: rec.header.Get("Retry-After")})
}

// finish sends the whole file through the spec's route and keeps its
// answer in in.Done, removing the bytes (a video's poster upload too).
// A refusal that may pass later (the box's faults, a rate limit, uploads
// closed for now, a guest whose cookie is gone) is answered but not kept:
// the bytes stay and a later GET or PATCH tries again.
//
// stored, when not nil, is called with the answer as soon as the route
// stored the file, before the answer is kept: the client hears at once.
// A crash before it is kept is safe: the bytes are still there, and the
// next GET sends them through the route again, which knows the file by its
// retry fingerprint and answers the same photo.
func (s *Server) finish(r *http.Request, in *info, stored func(*result)) error {
	var poster info
	if in.Kind == KindVideo {
		var err error
		if poster, err = s.read(in.Poster); err != nil || !poster.complete() {
			return web.Field("Upload-Metadata", "the video's poster upload is gone: send the video again")
		}
	}
	var files []*os.File
	defer func() {
		for _, f := range files {
			_ = f.Close()
		}
	}()
	open := func(u info) (io.Reader, error) {
		f, err := os.Open(s.dataPath(u.ID))
		if err != nil {
			return nil, fmt.Errorf("opening upload %s: %w", u.ID, err)
		}
		files = append(files, f)
		return io.LimitReader(f, u.Length), nil
	}
	rq, cleanup, err := s.specRequest(*in, poster, open)
	if err != nil {
		return err
	}
	rec := serve(r, rq, io.NopCloser(rq.body))
	cleanup()
	res := &result{Status: rec.status, Body: bytes.Clone(rec.body.Bytes()), retryAfter: rec.header.Get("Retry-After")}
	if !final(res.Status) {
		s.cfg.Logger.InfoContext(r.Context(), "finished upload refused for now", "upload", in.ID, "status", res.Status)
		return writeResultErr(res)
	}
	if stored != nil {
		stored(res)
	}
	next := *in
	next.Done = res
	next.Touched = s.cfg.Now().UnixMilli()
	if err := s.write(next); err != nil {
		return err
	}
	*in = next
	if err := s.removeData(in.ID); err != nil {
		s.cfg.Logger.WarnContext(r.Context(), "removing a finished upload's bytes", "error", err)
	}
	if in.Kind == KindVideo {
		if err := s.remove(poster.ID); err != nil {
			s.cfg.Logger.WarnContext(r.Context(), "removing a video's poster upload", "error", err)
		}
	}
	return nil
}

// final reports whether the spec route's answer says all there is to say
// of the file: stored, or refused for what it is.
func final(status int) bool {
	switch {
	case status >= 200 && status < 300:
		return true
	case status == http.StatusBadRequest, status == http.StatusRequestEntityTooLarge,
		status == http.StatusUnsupportedMediaType, status == http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// writeResultErr makes a passing refusal the handler's error, answered as
// the route answered it.
func writeResultErr(res *result) error {
	var body web.ErrorBody
	if err := json.Unmarshal(res.Body, &body); err != nil || body.Error == "" {
		return &web.Error{Status: res.Status, Code: "internal"}
	}
	e := &web.Error{Status: res.Status, Code: body.Error, Details: body.Details, Message: body.Message}
	e.RetryAfter, _ = strconv.Atoi(res.retryAfter)
	return e
}

// writeResult answers a kept answer of the spec's route.
func writeResult(w http.ResponseWriter, res *result) error {
	if res.retryAfter != "" {
		w.Header().Set("Retry-After", res.retryAfter)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(res.Body)))
	w.WriteHeader(res.Status)
	_, err := w.Write(res.Body)
	return err
}

// setResultHeaders names the stored photo or message in Upload-Result
// (photo <id> or message <id>), so a client learns it from the last
// PATCH's answer.
func setResultHeaders(w http.ResponseWriter, res *result) {
	if res == nil || res.Status >= 300 {
		return
	}
	var body struct {
		Photo   *struct{ ID string } `json:"photo"`
		Message *struct{ ID string } `json:"message"`
	}
	if json.Unmarshal(res.Body, &body) != nil {
		return
	}
	switch {
	case body.Photo != nil:
		w.Header().Set("Upload-Result", "photo "+body.Photo.ID)
	case body.Message != nil:
		w.Header().Set("Upload-Result", "message "+body.Message.ID)
	}
	w.Header().Set("Upload-Result-Status", strconv.Itoa(res.Status))
}

// recorder keeps a handler's answer (a small JSON body).
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (rec *recorder) Header() http.Header { return rec.header }

func (rec *recorder) WriteHeader(status int) {
	if rec.status == 0 {
		rec.status = status
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if rec.body.Len()+len(b) > 1<<20 {
		return 0, errors.New("answer too long")
	}
	return rec.body.Write(b)
}
