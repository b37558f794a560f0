package scenarios_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"eventbox/api"
	"eventbox/daemon/daemontest"
)

// The API reference (api/openapi.yaml) against the daemon: the harness
// checks every answer against it (daemontest.CheckAnswers), and
// TestAPIReferenceCoversEveryRoute compares its paths with the router's.

// TestAPIReferenceCoversEveryRoute: every route the router registers is
// an operation of api/openapi.yaml, and every operation there is a
// registered route.
func TestAPIReferenceCoversEveryRoute(t *testing.T) {
	doc, err := daemontest.APIReference()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	routed := map[string]bool{}
	for _, rt := range h.d.Routes() {
		segs := strings.Split(rt.Path, "/")
		for i, s := range segs {
			if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
				segs[i] = "{" + s[1:] + "}"
			}
		}
		routed[rt.Method+" "+strings.Join(segs, "/")] = true
	}
	if len(routed) < 100 {
		t.Fatalf("the router lists only %d routes", len(routed))
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	for r := range routed {
		if !documented[r] {
			t.Errorf("%s is routed (daemon/routes.go) but not in api/openapi.yaml", r)
		}
	}
	for d := range documented {
		if !routed[d] {
			t.Errorf("%s is in api/openapi.yaml but no route of daemon/routes.go takes it", d)
		}
	}
}

// TestTheBoxServesItsAPIReference: GET /api/openapi.yaml answers the
// embedded document.
func TestTheBoxServesItsAPIReference(t *testing.T) {
	h := newHarness(t)
	res := h.client().do("GET", "/api/openapi.yaml", nil)
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/yaml") {
		t.Fatalf("GET /api/openapi.yaml: %d %q", res.Status, res.Header.Get("Content-Type"))
	}
	if !bytes.Equal(res.Body, api.OpenAPI()) {
		t.Fatalf("GET /api/openapi.yaml answered %d bytes that are not api/openapi.yaml (%d bytes)", len(res.Body), len(api.OpenAPI()))
	}
	if _, err := openapi3.NewLoader().LoadFromData(res.Body); err != nil {
		t.Fatalf("the served document does not load: %v", err)
	}
}
