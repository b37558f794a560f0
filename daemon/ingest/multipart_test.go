package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"testing"
)

// part is a form part as read: its form name and content.
type part struct {
	name    string
	content string
}

// readOurs reads body with formReader, through a buffer of bufSize and a
// reader answering at most step bytes a read (0: as much as asked).
func readOurs(body []byte, boundary string, bufSize, step int) ([]part, error) {
	var r io.Reader = bytes.NewReader(body)
	if step > 0 {
		r = &stepReader{r: r, step: step}
	}
	f := newFormReader(r, boundary, make([]byte, bufSize))
	return readParts(f.NextPart)
}

// readStd reads body with the standard library's reader.
func readStd(body []byte, boundary string) ([]part, error) {
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	return readParts(func() (string, io.Reader, error) {
		p, err := mr.NextRawPart()
		if err != nil {
			return "", nil, err
		}
		return p.FormName(), p, nil
	})
}

// readParts reads every part next answers, to io.EOF.
func readParts(next func() (string, io.Reader, error)) ([]part, error) {
	var out []part
	for {
		name, p, err := next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return out, err
		}
		out = append(out, part{name, string(b)})
	}
}

type stepReader struct {
	r    io.Reader
	step int
}

func (s *stepReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), s.step)]) }

// formBody writes parts as a browser does, with boundary.
func formBody(t testing.TB, boundary string, parts []part) []byte {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(boundary); err != nil {
		t.Fatal(err)
	}
	for i, p := range parts {
		var pw io.Writer
		var err error
		if i%2 == 0 {
			pw, err = w.CreateFormFile(p.name, "IMG_0001.JPG")
		} else {
			pw, err = w.CreateFormField(p.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(pw, p.content)
	}
	w.Close()
	return buf.Bytes()
}

// TestFormReaderReadsWhatBrowsersSend: forms as browsers and HTTP
// libraries write them, arriving in pieces of any size, read into the
// same parts as the standard library reads, and a body cut short or
// without its boundaries is an error.
func TestFormReaderReadsWhatBrowsersSend(t *testing.T) {
	const boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW"
	rng := rand.New(rand.NewPCG(1, 2))
	photo := make([]byte, 300<<10)
	for i := range photo {
		photo[i] = byte(rng.IntN(256))
	}
	// Content that looks like a boundary but is not one.
	photo = append(photo, "\r\n--"+boundary[:20]+"\r\n--\r\n"...)
	tests := []struct {
		name  string
		parts []part
	}{
		{"a photo", []part{{"photo", string(photo)}}},
		{"a photo and text fields", []part{{"photo", string(photo)}, {"caption", "à la fête"}, {"other", ""}}},
		{"no parts", nil},
		{"an empty file", []part{{"photo", ""}}},
	}
	for _, tc := range tests {
		body := formBody(t, boundary, tc.parts)
		want, err := readStd(body, boundary)
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range []int{0, 1, 7, 4096, 100 << 10} {
			for _, bufSize := range []int{maxPartHeader + 1, formBuffer} {
				if step == 1 && len(body) > 100<<10 {
					continue
				}
				t.Run(fmt.Sprintf("%s/reads of %d/buffer %d", tc.name, step, bufSize), func(t *testing.T) {
					got, err := readOurs(body, boundary, bufSize, step)
					if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("read %d parts (%v), want %d", len(got), err, len(want))
					}
				})
			}
		}
		// With a preamble, the closing boundary last in the body (no CRLF
		// after it), and padding after a boundary.
		padded := append([]byte("preamble\r\n"), bytes.TrimSuffix(body, []byte("\r\n"))...)
		padded = bytes.Replace(padded, []byte(boundary+"\r\n"), []byte(boundary+" \t\r\n"), 1)
		if got, err := readOurs(padded, boundary, formBuffer, 0); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s with a preamble and padding: %d parts (%v), want %d", tc.name, len(got), err, len(want))
		}
		if len(tc.parts) == 0 {
			continue
		}
		for _, cut := range []int{len(body) - 10, len(body) / 2, 5} {
			if _, err := readOurs(body[:cut], boundary, formBuffer, 0); err == nil {
				t.Errorf("%s cut to %d of %d bytes: no error", tc.name, cut, len(body))
			}
		}
	}
	for _, body := range []string{"", "no boundary at all", "--" + boundary + "\r\nno blank line after the header", "--" + boundary + "trailing\r\n\r\n"} {
		if got, err := readOurs([]byte(body), boundary, formBuffer, 0); err == nil {
			t.Errorf("%q: %v, want an error", body, got)
		}
	}
}

// FuzzFormReader: whatever the body, what formReader reads is what the
// standard library reads from it (formReader may refuse more: it takes
// only CRLF line ends and does not decode transfer encodings).
func FuzzFormReader(f *testing.F) {
	const boundary = "b0undary"
	f.Add(formBody(f, boundary, []part{{"photo", "\xff\xd8 photo \r\n--b0und \xff\xd9"}, {"caption", "hello"}}), 3, 50)
	f.Add(formBody(f, boundary, nil), 1, 1)
	f.Add([]byte("preamble\r\n--b0undary \r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--b0undary--"), 2, 0)
	f.Fuzz(func(t *testing.T, body []byte, step, extra int) {
		step = max(0, step) % 5000
		bufSize := maxPartHeader + 1 + max(0, extra)%5000
		got, err := readOurs(body, boundary, bufSize, step)
		if err != nil || bytes.Count(body, []byte("\n")) != bytes.Count(body, []byte("\r\n")) {
			// Refused, or with lines ended by a bare LF, which the
			// standard library takes as boundaries and formReader not.
			return
		}
		want, err := readStd(body, boundary)
		if err != nil || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("formReader read %q, the standard library %q (%v)", got, want, err)
		}
	})
}
