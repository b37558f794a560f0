package scenarios_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// tokenRoutes reads every route of routes.go with a :token segment: the
// routes whose path carries a credential (a gallery link, an invitation,
// a wall link).
func tokenRoutes(t *testing.T) [][2]string {
	t.Helper()
	src, err := os.ReadFile("../routes.go")
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	for _, m := range regexp.MustCompile(`h\("([A-Z]+)", "([^"]*/:token\b[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	if len(out) < 11 {
		t.Fatalf("found only %d :token routes in routes.go", len(out))
	}
	return out
}

// TestLogsRedactEveryTokenRoute sends a request to every route of
// routes.go whose path holds a token, through the real router, and reads
// the request log: the token never appears, the path does with "…" in its
// place. Before, /api/wall/<token>/… was logged in full.
func TestLogsRedactEveryTokenRoute(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	h := newHarness(t, withLogs(logs))
	c := h.client()
	params := regexp.MustCompile(`:[A-Za-z]+`)
	for i, rt := range tokenRoutes(t) {
		method, pattern := rt[0], rt[1]
		t.Run(method+" "+pattern, func(t *testing.T) {
			secret := "SeCrEt" + strconv.Itoa(i) + "x7q9w2"
			fill := func(redact string) string {
				return params.ReplaceAllStringFunc(pattern, func(p string) string {
					if p == ":token" {
						return redact
					}
					return "abc" + strings.ToLower(p[1:])
				})
			}
			var body any
			if method != "GET" {
				body = map[string]any{}
			}
			c.do(method, fill(secret), body)
			text := logs.String()
			assertNoSecret(t, "the log", text, secret)
			if want := "path=" + fill("…") + " "; !strings.Contains(text, want) {
				t.Errorf("the log has no line with %q", want)
			}
		})
	}
}
