package scenarios_test

import (
	"io/fs"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"eventbox/assets"
)

// TestPagesCarryAContentSecurityPolicy: every page answers with a CSP that
// allows scripts and styles from the box's files only.
func TestPagesCarryAContentSecurityPolicy(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	for _, path := range []string{"/", "/e/some-event", "/e/some-event?booth=key", "/g/token", "/admin", "/admin/events/x", "/admin/wall/x", "/invite/token", "/index.html", "/setup", "/portal"} {
		t.Run(path+" has the policy", func(t *testing.T) {
			r := c.do("GET", path, nil)
			if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("got %d %q", r.Status, r.Header.Get("Content-Type"))
			}
			csp := r.Header.Get("Content-Security-Policy")
			directives := map[string]string{}
			for _, d := range strings.Split(csp, ";") {
				name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
				directives[name] = value
			}
			for name, want := range map[string]string{
				"default-src": "'self'", "script-src": "'self'", "style-src": "'self'",
				"object-src": "'none'", "base-uri": "'none'", "frame-ancestors": "'none'",
			} {
				if directives[name] != want {
					t.Errorf("%s is %q, want %q (policy %q)", name, directives[name], want, csp)
				}
			}
			if strings.Contains(csp, "unsafe-") {
				t.Errorf("the policy allows unsafe sources: %q", csp)
			}
		})
	}
	t.Run("a script file has no policy of its own but is served", func(t *testing.T) {
		if r := c.do("GET", "/js/lib.js", nil); r.Status != 200 {
			t.Fatalf("got %d", r.Status)
		}
	})
}

// TestPagesHaveNoInlineCode parses every HTML page: no inline script, no
// on* handler, no javascript: URL and no style attribute, which the CSP
// would refuse.
func TestPagesHaveNoInlineCode(t *testing.T) {
	web := assets.Web()
	pages, err := fs.Glob(web, "*.html")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages: %v", err)
	}
	for _, name := range pages {
		t.Run(name+" has no inline code", func(t *testing.T) {
			raw, err := fs.ReadFile(web, name)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := html.Parse(strings.NewReader(string(raw)))
			if err != nil {
				t.Fatal(err)
			}
			var walk func(n *html.Node)
			walk = func(n *html.Node) {
				if n.Type == html.ElementNode {
					src := false
					for _, a := range n.Attr {
						key := strings.ToLower(a.Key)
						switch {
						case strings.HasPrefix(key, "on"):
							t.Errorf("<%s %s=…>: an inline handler", n.Data, a.Key)
						case key == "style":
							t.Errorf("<%s style=%q>: an inline style", n.Data, a.Val)
						case strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:"):
							t.Errorf("<%s %s=%q>: a javascript: URL", n.Data, a.Key, a.Val)
						case key == "src" && a.Val != "":
							src = true
						}
					}
					if n.Data == "script" {
						if !src {
							t.Errorf("a <script> without src")
						}
						if n.FirstChild != nil && strings.TrimSpace(n.FirstChild.Data) != "" {
							t.Errorf("a <script> with inline content %q", n.FirstChild.Data)
						}
					}
					if n.Data == "style" {
						t.Errorf("an inline <style> element")
					}
				}
				for k := n.FirstChild; k != nil; k = k.NextSibling {
					walk(k)
				}
			}
			walk(doc)
		})
	}
}
