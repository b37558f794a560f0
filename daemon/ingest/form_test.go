package ingest_test

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"

	"eventbox/daemon/ingest"
)

// part is one part of a multipart form: a file when file is set.
type part struct {
	name, value string
	file        bool
}

// TestReadForm checks what ReadForm refuses, and that a refused form
// leaves no temp file.
func TestReadForm(t *testing.T) {
	form := ingest.Form{Limit: 1024, FileField: "photo", TextFields: []string{"challenge"}, MaxText: 16, FileRequired: true}
	optional := form
	optional.FileRequired = false
	fieldErr := func(field, msg string) func(error) bool {
		return func(err error) bool {
			var fe *ingest.FieldError
			return errors.As(err, &fe) && fe.Field == field && fe.Message == msg
		}
	}
	tests := []struct {
		name         string
		form         ingest.Form
		parts        []part
		notMultipart bool
		stops        bool // the body stops arriving before its end
		unsized      bool // no Content-Length: the cut happens while streaming
		wantErr      func(error) bool
		wantFields   map[string]string
		wantSize     int64
	}{
		{name: "a file and a text field are read", form: form, parts: []part{{"challenge", "c1", false}, {"photo", "abc", true}, {"other", "skipped", false}},
			wantFields: map[string]string{"challenge": "c1"}, wantSize: 3},
		{name: "a form without its file names it", form: form, parts: []part{{"challenge", "c1", false}}, wantErr: fieldErr("photo", "required")},
		{name: "a form without an optional file gives its fields", form: optional, parts: []part{{"challenge", "c1", false}}, wantFields: map[string]string{"challenge": "c1"}},
		{name: "an empty file is refused", form: form, parts: []part{{"photo", "", true}}, wantErr: fieldErr("photo", "is empty")},
		{name: "a text field over its cap is refused", form: form, parts: []part{{"challenge", strings.Repeat("c", 17), false}, {"photo", "abc", true}}, wantErr: fieldErr("challenge", "is too long")},
		{name: "a body that is not multipart is refused", form: form, notMultipart: true, wantErr: fieldErr("photo", "send the file as multipart/form-data")},
		{name: "a file over the limit is cut off while streaming", form: form, unsized: true, parts: []part{{"photo", strings.Repeat("x", 4096), true}},
			wantErr: func(err error) bool { return errors.Is(err, ingest.ErrTooLarge) }},
		{name: "a file that stops arriving is the client's fault", form: form, stops: true, parts: []part{{"photo", strings.Repeat("x", 512), true}},
			wantErr: func(err error) bool {
				return fieldErr("photo", "upload was interrupted")(err) || fieldErr("body", "is not a readable multipart form")(err)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _, dir := newBox(t)
			in := quietIngester(st)

			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			for _, p := range tt.parts {
				var (
					w   io.Writer
					err error
				)
				if p.file {
					w, err = mw.CreateFormFile(p.name, "f")
				} else {
					w, err = mw.CreateFormField(p.name)
				}
				if err != nil {
					t.Fatal(err)
				}
				io.WriteString(w, p.value)
			}
			mw.Close()
			raw := buf.Bytes()
			var body io.Reader = bytes.NewReader(raw)
			if tt.stops {
				// Cut in the middle of the file part.
				body = stopsSending{bytes.NewReader(raw[:len(raw)-100])}
			}
			r := httptest.NewRequest("POST", "/upload", body)
			if tt.stops || tt.unsized {
				r.ContentLength = -1
			}
			if !tt.notMultipart {
				r.Header.Set("Content-Type", mw.FormDataContentType())
			}

			fields, file, err := in.ReadForm(httptest.NewRecorder(), r, tt.form)
			if file.Tmp != nil {
				defer file.Tmp.Abort()
			}

			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("error %v, not the one wanted", err)
				}
				if tmp := files(t, dir, "tmp"); len(tmp) > 0 {
					t.Fatalf("temp files left: %v", tmp)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(fields) != len(tt.wantFields) || file.Size != tt.wantSize {
				t.Fatalf("fields %v, file of %d bytes; want %v, %d bytes", fields, file.Size, tt.wantFields, tt.wantSize)
			}
			for k, v := range tt.wantFields {
				if fields[k] != v {
					t.Fatalf("field %s is %q; want %q", k, fields[k], v)
				}
			}
			if tt.wantSize > 0 && (file.Tmp == nil || file.Fingerprint == "") {
				t.Fatalf("the file has no temp file or fingerprint: %+v", file)
			}
		})
	}
}
