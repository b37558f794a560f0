package netsetup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Where the boot settings file is looked for. Raspberry Pi OS mounts the
// card's boot partition (the FAT one any computer can open) at
// /boot/firmware since bookworm, and at /boot before.
const (
	DefaultBootSettingsPath = "/boot/firmware/eventbox.txt"
	LegacyBootSettingsPath  = "/boot/eventbox.txt"
)

// The keys of the boot settings file.
const (
	KeyHotspotName     = "hotspot_name"
	KeyHotspotPassword = "hotspot_password"
	KeyCountry         = "country"
	KeyTimeZone        = "time_zone"
	KeyOwnerName       = "owner_name"
	KeyOwnerPassword   = "owner_password"
	// KeyApplied is written by the box once it applied the file, with the
	// time it did; a file holding it is not applied again.
	KeyApplied = "applied"
)

// OwnerHandoffFile is the name, in DATA_DIR, of the file that hands the
// first owner from the root step that applies the settings file to the
// daemon.
const OwnerHandoffFile = "first-owner"

// OpenNetwork is the value of hotspot_password that makes an open hotspot.
const OpenNetwork = "open"

// maxBootSettingsSize caps the file read: the real one is a few hundred
// bytes.
const maxBootSettingsSize = 64 << 10

// noteMark opens the lines the box writes into the file to tell the host why
// it was not applied; they are replaced at every attempt.
const noteMark = "#! "

// BootSettings is what the boot settings file holds. Empty fields were not
// given.
type BootSettings struct {
	// HotspotName is the guests' Wi-Fi name; HotspotPassword its WPA2
	// passphrase, empty with HotspotOpen for an open network.
	HotspotName, HotspotPassword string
	HotspotOpen                  bool
	// Country is the Wi-Fi country, upper case.
	Country string
	// TimeZone is an IANA zone name such as Europe/Paris.
	TimeZone string
	// OwnerName and OwnerPassword are the first owner's sign-in.
	OwnerName, OwnerPassword string
	// Applied is when the box applied the file (zero: not yet).
	Applied time.Time
}

// Owner is the first owner's sign-in as the settings file gave it.
type Owner struct {
	Name, Password string
}

// Problem is one value of the settings file that was refused. Message never
// quotes a password.
type Problem struct {
	// Line is the 1-based line number, 0 for the file as a whole.
	Line int
	// Key is the key refused ("" when the line has none).
	Key string
	// Message says what is wrong, in plain words.
	Message string
}

// String renders p as "line 3, country: …".
func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d", p.Line)
	}
	if p.Key != "" {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Key)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// bootFile is a parsed settings file with its lines, for the rewrite.
type bootFile struct {
	settings BootSettings
	lines    []string
	// keyLine is the index in lines of each key's line.
	keyLine map[string]int
	crlf    bool
	// opaque is true when the file could not be read as text lines: it is
	// never rewritten then.
	opaque bool
	// owner is the file's owner and group, which its rewrite keeps.
	owner *fileOwner
}

var (
	timeZonePattern  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}$`)
	bootKeyPattern   = regexp.MustCompile(`^[a-z_]+$`)
	knownBootSetting = map[string]bool{KeyHotspotName: true, KeyHotspotPassword: true, KeyCountry: true,
		KeyTimeZone: true, KeyOwnerName: true, KeyOwnerPassword: true, KeyApplied: true}
)

// ReadBootSettings reads and checks the settings file at path. A missing
// file answers an error that wraps fs.ErrNotExist; a link, a named pipe or
// another file the box does not read (see ErrUntrustedFile) one that wraps
// ErrUntrustedFile, at once. Every value refused is a
// Problem; with any problem the settings must not be applied. checkPassword
// says what is wrong with an owner's password ("" when fine); nil uses
// OwnerPasswordProblem.
func ReadBootSettings(path string, checkPassword func(string) string) (BootSettings, []Problem, error) {
	f, problems, err := readBootFile(path, checkPassword)
	return f.settings, problems, err
}

func readBootFile(path string, checkPassword func(string) string) (bootFile, []Problem, error) {
	fh, st, err := openPlainFile(path)
	if err != nil {
		return bootFile{}, nil, fmt.Errorf("reading the boot settings %s: %w", path, err)
	}
	defer fh.Close()
	tooLarge := []Problem{{Message: fmt.Sprintf("the file is larger than %d KiB: not a settings file", maxBootSettingsSize>>10)}}
	if st.Size > maxBootSettingsSize {
		return bootFile{opaque: true}, tooLarge, nil
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxBootSettingsSize+1))
	if err != nil {
		return bootFile{}, nil, fmt.Errorf("reading the boot settings %s: %w", path, err)
	}
	if len(data) > maxBootSettingsSize {
		return bootFile{opaque: true}, tooLarge, nil
	}
	f, problems := parseBootSettings(data, checkPassword)
	f.owner = ownerOf(st)
	return f, problems, nil
}

// OwnerPasswordProblem is the console's rule for a new password (at least
// 10 characters, at most 72 bytes), used when no other rule is given.
func OwnerPasswordProblem(p string) string {
	switch {
	case utf8.RuneCountInString(p) < 10:
		return "must be at least 10 characters"
	case len(p) > 72:
		return "must be at most 72 bytes"
	}
	return ""
}

func parseBootSettings(data []byte, checkPassword func(string) string) (bootFile, []Problem) {
	if checkPassword == nil {
		checkPassword = OwnerPasswordProblem
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM from Notepad
	f := bootFile{keyLine: map[string]int{}, crlf: bytes.Contains(data, []byte("\r\n"))}
	var problems []Problem
	add := func(line int, key, format string, args ...any) {
		problems = append(problems, Problem{Line: line, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	if !utf8.Valid(data) {
		add(0, "", "the file is not UTF-8 text: save it as plain text (UTF-8)")
		f.opaque = true
		return f, problems
	}
	text := strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if text != "" {
		f.lines = strings.Split(text, "\n")
	}
	values := map[string]string{}
	for i, raw := range f.lines {
		n := i + 1
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !ok {
			add(n, "", "want a line of the form key = value (or a comment starting with #)")
			continue
		}
		if !bootKeyPattern.MatchString(key) || !knownBootSetting[key] {
			add(n, key, "unknown key; the keys are hotspot_name, hotspot_password, country, time_zone, owner_name and owner_password")
			continue
		}
		if prev, dup := f.keyLine[key]; dup {
			add(n, key, "given twice (first on line %d)", prev+1)
			continue
		}
		f.keyLine[key] = i
		value = strings.TrimSpace(value)
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
		}
		values[key] = value
	}
	line := func(key string) int {
		if i, ok := f.keyLine[key]; ok {
			return i + 1
		}
		return 0
	}
	s := &f.settings
	if v, ok := values[KeyApplied]; ok {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			add(line(KeyApplied), KeyApplied, "written by the box: leave it as it is, or delete the line to apply the file again")
		} else {
			s.Applied = t
		}
	}
	if v, ok := values[KeyHotspotName]; ok {
		if err := validateSSID(v); err != nil {
			add(line(KeyHotspotName), KeyHotspotName, "%s", strings.TrimPrefix(err.Error(), "ssid: "))
		}
		s.HotspotName = v
	}
	if v, ok := values[KeyHotspotPassword]; ok {
		switch {
		case !s.Applied.IsZero():
			add(line(KeyHotspotPassword), KeyHotspotPassword, "the file was applied already: delete the line %q to apply it again", KeyApplied)
		case strings.EqualFold(v, OpenNetwork):
			s.HotspotOpen = true
		case v == "":
			add(line(KeyHotspotPassword), KeyHotspotPassword, "empty: give the password, or the word %q for a network without one", OpenNetwork)
		default:
			if err := validatePassword(v); err != nil {
				add(line(KeyHotspotPassword), KeyHotspotPassword, "%s", strings.TrimPrefix(err.Error(), "password: "))
			}
			s.HotspotPassword = v
		}
		if _, named := values[KeyHotspotName]; !named && s.Applied.IsZero() {
			add(line(KeyHotspotPassword), KeyHotspotPassword, "given without %s", KeyHotspotName)
		}
	} else if _, named := values[KeyHotspotName]; named && s.Applied.IsZero() {
		add(line(KeyHotspotName), KeyHotspotPassword, "missing: give the hotspot's password, or the word %q for a network without one", OpenNetwork)
	}
	if v, ok := values[KeyCountry]; ok {
		v = strings.ToUpper(v)
		if !countryPattern.MatchString(v) {
			add(line(KeyCountry), KeyCountry, "want a two-letter country code such as FR, DE or GB")
		}
		s.Country = v
	} else if _, named := values[KeyHotspotName]; named && s.Applied.IsZero() {
		add(line(KeyHotspotName), KeyCountry, "missing: the Wi-Fi stays off until the box knows its country (a two-letter code such as FR)")
	}
	if v, ok := values[KeyTimeZone]; ok {
		if msg := timeZoneProblem(v); msg != "" {
			add(line(KeyTimeZone), KeyTimeZone, "%s", msg)
		}
		s.TimeZone = v
	}
	name, hasName := values[KeyOwnerName]
	password, hasPassword := values[KeyOwnerPassword]
	if hasName {
		if strings.TrimSpace(name) == "" || len(name) > 60 {
			add(line(KeyOwnerName), KeyOwnerName, "want 1 to 60 characters")
		} else if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			add(line(KeyOwnerName), KeyOwnerName, "contains a control character")
		}
		s.OwnerName = name
	}
	if hasPassword {
		if msg := checkPassword(password); msg != "" {
			add(line(KeyOwnerPassword), KeyOwnerPassword, "%s", msg)
		}
		s.OwnerPassword = password
		if !hasName {
			add(line(KeyOwnerPassword), KeyOwnerPassword, "given without %s", KeyOwnerName)
		}
	} else if hasName && s.Applied.IsZero() {
		add(line(KeyOwnerName), KeyOwnerPassword, "missing: give the first owner's password")
	}
	return f, problems
}

// timeZoneProblem says what is wrong with an IANA zone name, or "".
func timeZoneProblem(v string) string {
	if !timeZonePattern.MatchString(v) || v == "Local" || strings.Contains(v, "..") {
		return "want a time zone name such as Europe/Paris or America/New_York"
	}
	if _, err := time.LoadLocation(v); err != nil {
		return "unknown time zone (names look like Europe/Paris or America/New_York)"
	}
	return ""
}

// BootApplier applies a boot settings file once.
type BootApplier struct {
	// Applier carries out the hotspot and country plans and runs
	// timedatectl through its Runner. Its Runner and Logger must not be nil.
	Applier Applier
	// Facts are the tools on the box (DetectFacts).
	Facts Facts
	// CheckPassword is the rule for the owner's password; nil uses
	// OwnerPasswordProblem.
	CheckPassword func(string) string
	// KeepOwner leaves the owner's lines in the file, for a caller that
	// cannot create the account (the command line): the daemon takes them at
	// its next start.
	KeepOwner bool
	// TakeOwner, when set, is given the owner before the file is rewritten
	// without its password: an error leaves the file as it was (the next
	// start applies it again), so the password is never lost on the way.
	// The command line, run as root before the daemon, writes it to a
	// hand-off file with it (WriteOwnerHandoff).
	TakeOwner func(ctx context.Context, o Owner) error
	// Now stamps the applied line; nil uses time.Now.
	Now func() time.Time
}

// BootResult is what ApplyBootSettings did.
type BootResult struct {
	// Found is false when there is no file; nothing else is set then.
	Found bool
	// Problems are the values refused; with any, nothing was applied and the
	// box should come up on its setup hotspot.
	Problems []Problem
	// Hotspot and TimeZone are true when they were applied now.
	Hotspot, Country, TimeZone bool
	// Owner is the first owner to create, when the file named one that is
	// not taken yet: the caller creates the account (an owner that already
	// exists is the caller's to keep or refuse). Its password is gone from
	// the file once ApplyBootSettings returns without error.
	Owner *Owner
	// Settings are the values read (passwords included).
	Settings BootSettings
}

// ApplyBootSettings applies the settings file at path once: the hotspot
// (or the country alone), then the time zone, then it rewrites the file
// atomically without its password lines, with a comment where each was
// and an "applied" line, and hands the owner back in the result. A file
// already applied changes nothing (its owner, if its lines were kept, is
// still handed back and then removed). A missing file is not an error
// (Found false). With any problem nothing is applied, every problem is
// logged naming its key, and the file gets a note at its top saying what
// to fix, for a host who opens it on a computer. An error applying the
// network leaves the file as it was, so the next start tries again. A file
// the box does not read (ErrUntrustedFile: a link, a named pipe, another
// user's file…) is refused at once, logged and left in place, and the
// error says so: the caller goes on starting the box without it. The
// rewritten file keeps its owner, set before it takes the file's name.
func ApplyBootSettings(ctx context.Context, ba BootApplier, path string) (BootResult, error) {
	log := ba.Applier.Logger
	now := time.Now
	if ba.Now != nil {
		now = ba.Now
	}
	f, problems, err := readBootFile(path, ba.CheckPassword)
	if errors.Is(err, os.ErrNotExist) {
		return BootResult{}, nil
	}
	if errors.Is(err, ErrUntrustedFile) {
		log.WarnContext(ctx, "boot settings: file refused and left in place; the box starts without it", "file", path, "error", err)
		return BootResult{Found: true}, err
	}
	if err != nil {
		return BootResult{}, err
	}
	res := BootResult{Found: true, Problems: problems, Settings: f.settings}
	if len(problems) > 0 {
		for _, p := range problems {
			log.WarnContext(ctx, "boot settings: value refused, nothing applied", "file", path, "line", p.Line, "key", p.Key, "problem", p.Message)
		}
		if f.opaque {
			return res, nil
		}
		if err := writeFileAs(path, f.render(now(), problems, false, false), 0, f.owner); err != nil {
			return res, fmt.Errorf("noting the problems in the boot settings: %w", err)
		}
		return res, nil
	}
	s := f.settings
	if s.Applied.IsZero() {
		switch {
		case s.HotspotName != "":
			plan, err := PlanHotspot(HotspotOptions{SSID: s.HotspotName, Password: s.HotspotPassword, Country: s.Country}, ba.Facts)
			if err != nil {
				return res, fmt.Errorf("planning the hotspot of the boot settings: %w", err)
			}
			if err := ba.Applier.Apply(ctx, plan); err != nil {
				return res, fmt.Errorf("applying the hotspot of the boot settings: %w", err)
			}
			res.Hotspot, res.Country = true, s.Country != ""
		case s.Country != "":
			plan, err := PlanCountry(s.Country, ba.Facts)
			if err != nil {
				return res, fmt.Errorf("planning the country of the boot settings: %w", err)
			}
			if err := ba.Applier.Apply(ctx, plan); err != nil {
				return res, fmt.Errorf("applying the country of the boot settings: %w", err)
			}
			res.Country = true
		}
		if s.TimeZone != "" {
			if out, err := ba.Applier.Runner.Run(ctx, "timedatectl", "set-timezone", s.TimeZone); err != nil {
				return res, fmt.Errorf("setting the time zone %s: %w: %s", s.TimeZone, err, strings.TrimSpace(string(out)))
			}
			res.TimeZone = true
		}
	}
	takeOwner := s.OwnerPassword != "" && !ba.KeepOwner
	if takeOwner {
		res.Owner = &Owner{Name: s.OwnerName, Password: s.OwnerPassword}
		if ba.TakeOwner != nil {
			if err := ba.TakeOwner(ctx, *res.Owner); err != nil {
				return res, fmt.Errorf("handing the first owner over: %w", err)
			}
		}
	}
	if !s.Applied.IsZero() && !takeOwner {
		log.DebugContext(ctx, "boot settings applied already", "file", path, "applied", s.Applied)
		return res, nil
	}
	if err := writeFileAs(path, f.render(now(), nil, true, takeOwner), 0, f.owner); err != nil {
		return res, fmt.Errorf("removing the passwords from the boot settings: %w", err)
	}
	log.InfoContext(ctx, "boot settings applied, passwords removed from the file", "file", path,
		"hotspot", res.Hotspot, "country", res.Country, "time_zone", res.TimeZone, "owner", res.Owner != nil)
	return res, nil
}

// render writes the file back: the host's lines as they were, without an
// earlier note; with problems, a note at the top listing them; once applied,
// the hotspot password (and the owner's, when dropOwner) replaced by a
// comment, and an applied line at the end unless there is one.
func (f bootFile) render(now time.Time, problems []Problem, applied, dropOwner bool) []byte {
	var out []string
	stamp := now.UTC().Format(time.RFC3339)
	if len(problems) > 0 {
		out = append(out, noteMark+"eventbox did not apply this file ("+stamp+"): fix these lines and start the box again.",
			noteMark+"Until then the box opens its setup Wi-Fi (eventbox-setup-...).")
		for _, p := range problems {
			out = append(out, noteMark+"  "+p.String())
		}
	}
	drop := map[int]string{}
	if applied {
		if i, ok := f.keyLine[KeyHotspotPassword]; ok {
			drop[i] = "# hotspot_password: applied on " + stamp + " and removed from this file."
		}
		if i, ok := f.keyLine[KeyOwnerPassword]; ok && dropOwner {
			drop[i] = "# owner_password: applied on " + stamp + " and removed from this file."
		}
	}
	for i, l := range f.lines {
		if strings.HasPrefix(l, noteMark) {
			continue
		}
		if c, ok := drop[i]; ok {
			out = append(out, c)
			continue
		}
		out = append(out, l)
	}
	if _, ok := f.keyLine[KeyApplied]; applied && !ok {
		out = append(out, "",
			"# Written by eventbox: the settings above were applied on this date and the",
			"# passwords removed. To apply new settings, change them, add the passwords",
			"# again and delete this line.",
			KeyApplied+" = "+stamp)
	}
	nl := "\n"
	if f.crlf {
		nl = "\r\n"
	}
	return []byte(strings.Join(out, nl) + nl)
}

// WriteOwnerHandoff writes the first owner to path for the daemon, which
// runs as another user: the name and the password on two lines, in a file
// of mode 0600 owned by the owner of its directory (DATA_DIR, the
// daemon's), written atomically. Run as root, it gives the file its owner
// on the open temporary file, before the rename: whatever the daemon's
// user put at path is replaced, never followed.
func WriteOwnerHandoff(path string, o Owner) error {
	if strings.ContainsAny(o.Name+o.Password, "\r\n") {
		return errors.New("writing the first owner: a line break in the name or password")
	}
	var owner *fileOwner
	if os.Geteuid() == 0 {
		fi, err := os.Stat(filepath.Dir(path))
		if err != nil {
			return fmt.Errorf("writing the first owner: %w", err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			owner = ownerOf(st)
		}
	}
	if err := writeFileAs(path, []byte(o.Name+"\n"+o.Password+"\n"), 0o600, owner); err != nil {
		return fmt.Errorf("writing the first owner: %w", err)
	}
	return nil
}

// ReadOwnerHandoff reads what WriteOwnerHandoff wrote. The caller removes
// the file once the account exists.
func ReadOwnerHandoff(path string) (Owner, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Owner{}, fmt.Errorf("reading the first owner: %w", err)
	}
	name, rest, ok := strings.Cut(string(data), "\n")
	password, _, ok2 := strings.Cut(rest, "\n")
	if !ok || !ok2 || name == "" || password == "" {
		return Owner{}, fmt.Errorf("reading the first owner: %s is not two lines", path)
	}
	return Owner{Name: name, Password: password}, nil
}
