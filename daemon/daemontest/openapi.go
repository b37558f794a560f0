package daemontest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"eventbox/api"
)

// The API reference (api/openapi.yaml) against the daemon: every answer
// the tests receive through the harness is checked against it
// (CheckAnswers), and daemon/scenarios' TestAPIReferenceCoversEveryRoute
// compares its paths with the router's (APIReference).

// apiReference is the loaded document and a router over its paths.
type apiReference struct {
	doc    *openapi3.T
	router routers.Router
}

// loadAPIReference loads api/openapi.yaml once for the whole test binary.
// It is set once and never changed.
var loadAPIReference = sync.OnceValues(func() (*apiReference, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI())
	if err != nil {
		return nil, fmt.Errorf("loading api/openapi.yaml: %w", err)
	}
	rt, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routing api/openapi.yaml: %w", err)
	}
	return &apiReference{doc: doc, router: rt}, nil
})

// maxCheckedBody is how much of a JSON answer is kept for the check; no
// JSON answer of the daemon comes near it.
const maxCheckedBody = 8 << 20

// CheckAnswers wraps the daemon's handler for the harness: every answer to
// a request that matches an operation of the reference must have a status
// the operation lists and one of its content types, and a JSON answer
// must match the schema. A mismatch fails the test. Other bodies (images,
// ZIPs, streams) pass through untouched and unbuffered.
func CheckAnswers(t testing.TB, next http.Handler) http.Handler {
	ref, err := loadAPIReference()
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route, params, err := ref.router.FindRoute(r)
		if err != nil {
			// Pages, and what no route takes (a 404 or 405 the
			// daemon's own tests check).
			next.ServeHTTP(w, r)
			return
		}
		cw := &checkedWriter{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		if err := ref.check(r, route, params, cw); err != nil {
			t.Errorf("%s %s answered %d, which api/openapi.yaml does not allow: %v", r.Method, r.URL.Path, cw.status(), err)
		}
	})
}

// check validates one answer.
func (ref *apiReference) check(r *http.Request, route *routers.Route, params map[string]string, cw *checkedWriter) error {
	status := cw.status()
	op := route.Operation
	resp := op.Responses.Status(status)
	if resp == nil || resp.Value == nil {
		return fmt.Errorf("status %d is not one of the operation's (%s)", status, strings.Join(statuses(op), ", "))
	}
	ct := cw.Header().Get("Content-Type")
	if len(resp.Value.Content) > 0 && status != http.StatusNotModified && r.Method != http.MethodHead {
		if resp.Value.Content.Get(ct) == nil {
			return fmt.Errorf("content type %q is not one of the answer's", ct)
		}
	}
	if !cw.json {
		return nil
	}
	if cw.overflow {
		return fmt.Errorf("a JSON answer over %d bytes", maxCheckedBody)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 status,
		Header:                 cw.Header(),
		Body:                   io.NopCloser(bytes.NewReader(cw.body.Bytes())),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// statuses lists an operation's documented statuses.
func statuses(op *openapi3.Operation) []string {
	var out []string
	for code := range op.Responses.Map() {
		out = append(out, code)
	}
	return out
}

// checkedWriter records an answer's status, and keeps a copy of its body
// when it is JSON. Unwrap lets http.ResponseController reach the real
// writer (read deadlines of uploads, flushes of streams).
type checkedWriter struct {
	http.ResponseWriter
	code     int
	json     bool
	overflow bool
	body     bytes.Buffer
}

func (c *checkedWriter) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
		mt, _, _ := mime.ParseMediaType(c.Header().Get("Content-Type"))
		c.json = mt == "application/json"
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.code == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if c.json && !c.overflow {
		if c.body.Len()+len(p) > maxCheckedBody {
			c.overflow = true
		} else {
			c.body.Write(p)
		}
	}
	return c.ResponseWriter.Write(p)
}

func (c *checkedWriter) Flush() {
	if c.code == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *checkedWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c *checkedWriter) status() int {
	if c.code == 0 {
		return http.StatusOK
	}
	return c.code
}

// APIReference returns api/openapi.yaml, loaded once for the whole test
// binary. It is shared: read it, never change it.
func APIReference() (*openapi3.T, error) {
	ref, err := loadAPIReference()
	if err != nil {
		return nil, err
	}
	return ref.doc, nil
}
