// Command lanelog prints one lane of the box scenarios as it runs and,
// when it ends, says what failed. It reads the lane's test events (the
// JSON of go tool test2json) on standard input and prints each line of
// output with a prefix ("[lane 1] "). With -digest FILE it writes, for
// each test that failed and has no failed subtest of its own, the lines
// that say why: those of its failure messages (they begin "FAILED:") or
// else its last lines. lanes.sh prints the digests at the very end of the
// run, because the end of a long log is often all one sees of it, as in
// CI, and Go prints a subtest's output long before the line that says it
// failed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of go tool test2json's output.
type event struct {
	Action string `json:"Action"`
	Test   string `json:"Test"`
	Output string `json:"Output"`
}

// keep is how many of a test's last lines the digest shows when it has no
// failure message.
const keep = 6

func main() {
	prefix := flag.String("prefix", "", "put before every line printed")
	digest := flag.String("digest", "", "write what failed to this file once the input ends")
	flag.Parse()
	failed, err := follow(os.Stdin, os.Stdout, *prefix)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lanelog: %v\n", err)
		os.Exit(1)
	}
	if *digest != "" {
		if err := os.WriteFile(*digest, []byte(failed), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "lanelog: writing the digest: %v\n", err)
			os.Exit(1)
		}
	}
}

// follow copies the events' output to w, each line after prefix, and
// returns the digest of what failed ("" when nothing did). A line that is
// not an event (the test binary's own, before it starts) is copied as is.
func follow(r io.Reader, w io.Writer, prefix string) (string, error) {
	lines := map[string][]string{} // the last lines, by test ("" for the binary's own)
	// The failure messages with the line after each, kept whatever
	// follows them (a console's last 60 lines after the message).
	reasons := map[string][]string{}
	after := map[string]bool{} // the test's next line follows a failure message
	failed := map[string]bool{}
	pkgFailed := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			e = event{Action: "output", Output: sc.Text() + "\n"}
		}
		switch e.Action {
		case "output":
			fmt.Fprint(w, prefix+e.Output)
			l := strings.TrimRight(e.Output, "\n")
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") || t == "" {
				continue
			}
			switch {
			case strings.Contains(l, "FAILED:"):
				reasons[e.Test] = append(reasons[e.Test], l)
				after[e.Test] = true
			case after[e.Test]:
				reasons[e.Test] = append(reasons[e.Test], l)
				after[e.Test] = false
			}
			kept := append(lines[e.Test], l)
			if len(kept) > keep {
				kept = kept[len(kept)-keep:]
			}
			lines[e.Test] = kept
		case "fail":
			if e.Test == "" {
				pkgFailed = true
			} else {
				failed[e.Test] = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("reading the events: %w", err)
	}
	var leaves []string
	for name := range failed {
		leaf := true
		for other := range failed {
			leaf = leaf && !strings.HasPrefix(other, name+"/")
		}
		if leaf {
			leaves = append(leaves, name)
		}
	}
	sort.Strings(leaves)
	if len(leaves) == 0 && pkgFailed {
		leaves = []string{""} // a panic or a timeout: the binary's own lines
	}
	var b strings.Builder
	for _, name := range leaves {
		what := name
		if what == "" {
			what = "the test binary"
		}
		fmt.Fprintf(&b, "%s%s failed:\n", prefix, what)
		for _, l := range why(reasons[name], lines[name]) {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			fmt.Fprintf(&b, "%s  %s\n", prefix, strings.TrimSpace(l))
		}
	}
	return b.String(), nil
}

// why picks a failed test's lines that say why: its failure messages
// (a line with "FAILED:" and the line after it, the last 12 of them), or
// else its last lines.
func why(reasons, last []string) []string {
	if len(reasons) == 0 {
		return last
	}
	return reasons[max(0, len(reasons)-12):]
}
