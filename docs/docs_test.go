// Package docs holds the project's documents; its test keeps them honest:
// every section a file cites exists, and nothing points at a document the
// repository does not hold.
package docs

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoFiles lists the files git tracks (and the untracked ones it does not
// ignore), relative to the repository's top.
func repoFiles(t *testing.T) (string, []string) {
	t.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("finding the repository's top: %v", err)
	}
	root := strings.TrimSpace(string(top))
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("listing the repository's files: %v", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			continue // deleted in the work tree
		}
		files = append(files, f)
	}
	return root, files
}

// textFile reports whether name is a file whose text may cite a document.
func textFile(name string) bool {
	switch filepath.Ext(name) {
	case ".go", ".js", ".md", ".html", ".css", ".sh", ".yaml", ".yml", ".json", ".service", ".txt":
		return true
	}
	base := filepath.Base(name)
	return base == "Makefile" || base == "run" || strings.HasPrefix(base, "eventbox")
}

// headings collects the section titles of a Markdown file: its headings and
// the bold words that open a list item or paragraph ("- **Title.**").
func headings(t *testing.T, path string, into map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	defer f.Close()
	bold := regexp.MustCompile(`^(?:[-*] )?\*\*([^*]+?)\.?\*\*`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			title := strings.TrimSpace(strings.TrimLeft(line, "#"))
			into[title] = path
			continue
		}
		if m := bold.FindStringSubmatch(line); m != nil {
			into[strings.TrimSuffix(m[1], ".")] = path
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
}

// citation finds `decisions.md, "Title"` or `design.md, "Title"`, across a
// comment's line break too.
var citation = regexp.MustCompile(`(decisions|design)\.md[,:;]?(?:\s|//|#|\*)*\(?"([^"\n]+)"`)

// TestCitedSectionsExist fails when a file cites a section of
// docs/decisions (by way of the index docs/decisions.md) or docs/design.md
// that no heading carries.
func TestCitedSectionsExist(t *testing.T) {
	root, files := repoFiles(t)
	decisions := map[string]string{}
	dir := filepath.Join(root, "docs", "decisions")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading docs/decisions: %v", err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			headings(t, filepath.Join(dir, e.Name()), decisions)
		}
	}
	design := map[string]string{}
	headings(t, filepath.Join(root, "docs", "design.md"), design)

	cited := 0
	eachText(t, root, files, func(f string, b []byte) {
		for _, m := range citation.FindAllSubmatchIndex(b, -1) {
			doc, title := string(b[m[2]:m[3]]), string(b[m[4]:m[5]])
			title = strings.Join(strings.Fields(title), " ")
			line := 1 + bytes.Count(b[:m[0]], []byte("\n"))
			known := decisions
			if doc == "design" {
				known = design
			}
			cited++
			if _, ok := known[title]; !ok {
				t.Errorf("%s:%d cites %s.md, %q: no such section", f, line, doc, title)
			}
		}
	})
	if cited < 20 {
		t.Fatalf("found only %d citations: the pattern no longer matches how the code cites sections", cited)
	}
}

// TestDecisionsIndexListsEveryPage fails when a page of docs/decisions is
// not linked from the index, or the index links a page that is gone.
func TestDecisionsIndexListsEveryPage(t *testing.T) {
	root, _ := repoFiles(t)
	index, err := os.ReadFile(filepath.Join(root, "docs", "decisions.md"))
	if err != nil {
		t.Fatalf("reading the index: %v", err)
	}
	linked := map[string]bool{}
	for _, m := range regexp.MustCompile(`\]\((decisions/[^)#]+\.md)`).FindAllSubmatch(index, -1) {
		linked[string(m[1])] = true
	}
	entries, err := os.ReadDir(filepath.Join(root, "docs", "decisions"))
	if err != nil {
		t.Fatalf("reading docs/decisions: %v", err)
	}
	for _, e := range entries {
		name := "decisions/" + e.Name()
		if !linked[name] {
			t.Errorf("docs/decisions.md does not link %s", name)
		}
		delete(linked, name)
	}
	for name := range linked {
		t.Errorf("docs/decisions.md links %s, which does not exist", name)
	}
}

// outside names documents that only the product's makers had; a file that
// points at one sends a reader nowhere.
var outside = regexp.MustCompile(`DESIGN\.md|http-interface\.md|\.\./shared/|shared/spec/|STYLE\.md`)

// TestNothingPointsOutsideTheRepository fails when a file refers to a
// document that is not in the repository.
func TestNothingPointsOutsideTheRepository(t *testing.T) {
	root, files := repoFiles(t)
	eachText(t, root, files, func(f string, b []byte) {
		for _, loc := range outside.FindAllIndex(b, -1) {
			line := 1 + bytes.Count(b[:loc[0]], []byte("\n"))
			t.Errorf("%s:%d refers to %s, which is not in the repository", f, line, b[loc[0]:loc[1]])
		}
	})
}

// eachText calls fn with every text file of the repository but this test
// file, which names the patterns it looks for.
func eachText(t *testing.T, root string, files []string, fn func(name string, text []byte)) {
	t.Helper()
	self := filepath.Join("docs", "docs_test.go")
	for _, f := range files {
		if !textFile(f) || f == self {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatalf("reading %s: %v", f, err)
		}
		fn(f, b)
	}
}
