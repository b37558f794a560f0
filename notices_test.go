package eventbox

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"eventbox/assets"
)

var update = flag.Bool("update", false, "rewrite the generated part of THIRD_PARTY_NOTICES.md")

const (
	noticeFile   = "THIRD_PARTY_NOTICES.md"
	noticeMarker = "<!-- generated: do not edit below this line -->\n"
)

// The architectures the binary is built for (make cross).
var targetArchs = []string{"amd64", "arm64", "arm"}

// linkedModule is one module that cmd/eventbox links.
type linkedModule struct {
	path, version, dir string
}

// linkedModules lists the modules cmd/eventbox links on every target
// architecture, sorted by path.
func linkedModules(t *testing.T) []linkedModule {
	t.Helper()
	seen := map[string]linkedModule{}
	for _, arch := range targetArchs {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}", "./cmd/eventbox")
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("listing the modules of cmd/eventbox for linux/%s: %v\n%s", arch, err, stderr.Bytes())
		}
		for line := range strings.Lines(string(out)) {
			f := strings.Split(strings.TrimSpace(line), "\t")
			if len(f) != 3 {
				continue
			}
			seen[f[0]] = linkedModule{path: f[0], version: f[1], dir: f[2]}
		}
	}
	if len(seen) == 0 {
		t.Fatal("go list found no module that cmd/eventbox links")
	}
	var mods []linkedModule
	for _, m := range seen {
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b linkedModule) int { return strings.Compare(a.path, b.path) })
	return mods
}

// licenceFiles are the names of the files a module's licence is read
// from, at the module's root.
var licenceFiles = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|patents)(\.(txt|md))?$`)

// spdx names the licence of a licence file's text, or "" when it is none
// this test knows (then the module must be looked at by a person).
func spdx(text string) string {
	if m := regexp.MustCompile(`SPDX-License-Identifier:\s*(.+)`).FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	has := func(s string) bool { return strings.Contains(text, s) }
	switch {
	case has("Apache License") && has("Version 2.0"):
		return "Apache-2.0"
	case has("Permission is hereby granted, free of charge"):
		return "MIT"
	case has("Redistribution and use in source and binary forms") && has("Neither the name"):
		return "BSD-3-Clause"
	case has("Redistribution and use in source and binary forms"):
		return "BSD-2-Clause"
	case has("This software is provided 'as-is'") && has("freely, subject to the following restrictions"):
		return "Zlib"
	}
	return ""
}

// fence puts a licence text in a Markdown code block.
func fence(b *strings.Builder, text string) {
	b.WriteString("```text\n")
	b.WriteString(strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n"))
	b.WriteString("\n```\n\n")
}

// generated writes the notice's generated part: the table of linked
// modules, then the licence texts of the modules, the Go standard library,
// the HEIC decoder and the fonts.
func generated(t *testing.T, mods []linkedModule) string {
	t.Helper()
	var table, texts strings.Builder
	table.WriteString("| module | version | licence |\n|---|---|---|\n")
	table.WriteString("| Go standard library and runtime (`std`) | the Go release that built the binary | BSD-3-Clause |\n")
	texts.WriteString("## Licence texts\n\n")
	for _, m := range mods {
		entries, err := os.ReadDir(m.dir)
		if err != nil {
			t.Fatalf("reading module %s: %v (run go mod download)", m.path, err)
		}
		var licence string
		var body strings.Builder
		for _, e := range entries {
			if e.IsDir() || !licenceFiles.MatchString(e.Name()) {
				continue
			}
			raw, err := os.ReadFile(filepath.Join(m.dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			text := string(raw)
			if strings.Contains(text, "```") {
				t.Fatalf("%s/%s holds a Markdown fence", m.path, e.Name())
			}
			upper := strings.ToUpper(e.Name())
			if strings.HasPrefix(upper, "LICEN") || strings.HasPrefix(upper, "COPYING") {
				licence = spdx(text)
				if licence == "" {
					t.Errorf("module %s %s: the licence of %s is none this test knows: read it, and teach spdx() its name if the binary may link it", m.path, m.version, e.Name())
					continue
				}
				if licence == "Apache-2.0" {
					fmt.Fprintf(&body, "%s: the Apache License 2.0, whose text is eventbox's own `LICENSE`.\n\n", e.Name())
					continue
				}
			}
			fmt.Fprintf(&body, "%s:\n\n", e.Name())
			fence(&body, text)
		}
		if licence == "" {
			t.Errorf("module %s %s has no licence file this test can read", m.path, m.version)
		}
		fmt.Fprintf(&table, "| %s | %s | %s |\n", m.path, m.version, licence)
		fmt.Fprintf(&texts, "### %s %s (%s)\n\n%s", m.path, m.version, licence, body.String())
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("finding the Go distribution: %v", err)
	}
	goLicence, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "LICENSE"))
	if err != nil {
		t.Fatalf("reading the Go distribution's licence: %v", err)
	}
	texts.WriteString("### Go standard library and runtime (BSD-3-Clause)\n\n")
	fence(&texts, string(goLicence))
	for _, f := range noticeRepoTexts {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&texts, "### `%s`\n\n", f)
		fence(&texts, string(raw))
	}
	return table.String() + "\n" + strings.TrimRight(texts.String(), "\n") + "\n"
}

// noticeRepoTexts are the licence texts in this repository that the
// notice carries: the HEIC decoder's and the fonts'.
var noticeRepoTexts = []string{
	"imaging/internal/heifwasm/lib/LICENSE.libheif",
	"imaging/internal/heifwasm/lib/LICENSE.libde265",
	"imaging/internal/heifwasm/lib/LICENSE.gen2brain-heic",
	"assets/fonts/LICENSE-DejaVu.txt",
	"assets/fonts/LICENSE-Apache-CJK.txt",
	"assets/fonts/LICENSE-OFL-Hangul.txt",
	"assets/fonts/LICENSE-OFL-Devanagari.txt",
}

// TestThirdPartyNotices: every module the binary links, on every target
// architecture, is in THIRD_PARTY_NOTICES.md at its version, and the
// notice's generated part (the table and the licence texts) is what the
// module cache and the repository hold now. With -update it rewrites that
// part instead.
func TestThirdPartyNotices(t *testing.T) {
	raw, err := os.ReadFile(noticeFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	head, tail, ok := strings.Cut(doc, noticeMarker)
	if !ok {
		t.Fatalf("%s has lost its marker %q", noticeFile, strings.TrimSpace(noticeMarker))
	}
	mods := linkedModules(t)
	want := generated(t, mods)
	if *update {
		if err := os.WriteFile(noticeFile, []byte(head+noticeMarker+want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	rows := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\S+) \| (\S+) \| [^|]+ \|$`).FindAllStringSubmatch(tail, -1) {
		rows[m[1]] = m[2]
	}
	for _, m := range mods {
		switch v, ok := rows[m.path]; {
		case !ok:
			t.Errorf("the binary links %s %s, which %s does not list", m.path, m.version, noticeFile)
		case v != m.version:
			t.Errorf("%s lists %s at %s; the binary links %s", noticeFile, m.path, v, m.version)
		}
	}
	if tail != want && !t.Failed() {
		t.Errorf("the generated part of %s is not what the module cache and the repository hold now", noticeFile)
	}
	if t.Failed() {
		t.Log("run: go test -run TestThirdPartyNotices -update . (and read what changed)")
	}
}

// TestNoticeNamesFilesThatExist: every file of this repository the notice
// names exists, and every font the binary embeds is named.
func TestNoticeNamesFilesThatExist(t *testing.T) {
	head, _, _ := strings.Cut(ThirdPartyNotices(), noticeMarker)
	named := regexp.MustCompile("`((?:assets|daemon)/[^`]+)`").FindAllStringSubmatch(head, -1)
	if len(named) == 0 {
		t.Fatal("the notice names no file of the repository")
	}
	for _, m := range named {
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("the notice names %s: %v", m[1], err)
		}
	}
	for _, font := range assets.CaptionFonts() {
		if !strings.Contains(head, "`assets/fonts/"+font+"`") {
			t.Errorf("the binary embeds the font %s, which the notice does not list", font)
		}
	}
	for _, f := range noticeRepoTexts {
		if !strings.Contains(head, "`"+f+"`") {
			t.Errorf("the notice carries the text of %s but does not say what it is the licence of", f)
		}
	}
}

// TestLicenceIsEmbedded: the box serves the licence and the notice as
// they are in the repository.
func TestLicenceIsEmbedded(t *testing.T) {
	for name, got := range map[string]string{"LICENSE": LicenseText(), noticeFile: ThirdPartyNotices()} {
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("the embedded %s differs from the file", name)
		}
	}
	if !strings.Contains(LicenseText(), "Apache License") || !strings.Contains(LicenseText(), "Version 2.0, January 2004") {
		t.Error("LICENSE is not the Apache License 2.0")
	}
}
