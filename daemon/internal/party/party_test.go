package party

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"eventbox/daemon/mail/mailtest"
	"eventbox/daemon/printing/cupstest"
	"eventbox/internal/piprofile"
	"eventbox/internal/testtool"
)

// The party's flags (make party passes them after -args).
var (
	runParty  = flag.Bool("party", false, "play the whole party (make party)")
	profile   = flag.String("party.profile", "pi4", "the Pi stand-in the daemon runs in: pi4, pi3 or none")
	guests    = flag.Int("party.guests", Wedding.Guests, "guests (the other counts scale with them)")
	minutes   = flag.Float64("party.minutes", Wedding.Evening.Minutes(), "the evening's length played, in minutes")
	rateMbit  = flag.Float64("party.rate", 0, "the radio's rate each way in Mbit/s (default 30 times the compression)")
	reportDir = flag.String("party.report", "", "write the report (party.md, party.svg) into this folder")
	binPath   = flag.String("party.bin", "", "the eventbox binary (default: built for the test)")
	shareCPU  = flag.Bool("party.share-cpu", false, "let the tool run on the stand-in's CPU too (by default it keeps off it)")
	cpuPeriod = flag.Duration("party.cpu-period", 0, "the stand-in's CPU quota period (default piprofile.DefaultPeriod, the kernel's 100ms)")
)

var eventbox = testtool.Binary{Pkg: "../../../cmd/eventbox"}

// bareServerEnv names the address a re-executed test binary serves
// bareHealth on, instead of running the tests (startBareServer).
const bareServerEnv = "PARTY_BARE_SERVER"

func TestMain(m *testing.M) {
	if addr := os.Getenv(bareServerEnv); addr != "" {
		fmt.Fprintln(os.Stderr, http.ListenAndServe(addr, bareHealth()))
		os.Exit(1)
	}
	code := m.Run()
	eventbox.Remove()
	os.Exit(code)
}

// TestParty is make party: the wedding at the scale of the flags, under
// the pi4 stand-in by default, failing on any missed bound.
func TestParty(t *testing.T) {
	if !*runParty {
		t.Skip("the whole party runs with -party (make party)")
	}
	s := Wedding
	k := float64(*guests) / float64(Wedding.Guests)
	scale := func(n int) int { return max(1, int(float64(n)*k+0.5)) }
	s.Guests, s.Photos, s.Videos, s.VoiceNotes = *guests, scale(s.Photos), scale(s.Videos), scale(s.VoiceNotes)
	s.Messages, s.Hearts, s.BoothPhotos, s.Contacts = scale(s.Messages), scale(s.Hearts), scale(s.BoothPhotos), scale(s.Contacts)
	s.Evening = time.Duration(*minutes * float64(time.Minute))
	s.Compression = 6 * float64(time.Hour) / float64(s.Evening)
	res := play(t, s, *profile)
	for _, f := range res.Figures() {
		t.Logf("%-70s %-12s %s", f.What, f.Bound, f.Got)
	}
	if m := res.Missed(); len(m) > 0 {
		t.Errorf("missed: %s", strings.Join(m, "; "))
	}
}

// TestPartyShort plays a party of twenty guests in two minutes, with one
// kill: make longtest keeps the tool working. Only what does not depend
// on the machine's speed fails it: every upload acknowledged and kept,
// every booth photo printed, every mail sent.
func TestPartyShort(t *testing.T) {
	testtool.Long(t, "a party of twenty guests, two minutes and the end")
	testtool.Unraced(t, "it measures the real binary")
	s := Scale{Guests: 20, Photos: 60, Videos: 4, VoiceNotes: 4, Messages: 6, Hearts: 40, BoothPhotos: 3, Contacts: 15,
		Walls: 1, Consoles: 2, GalleryVisits: 2, Kills: 1, Evening: 2 * time.Minute, Compression: 180,
		VideoMin: 20 << 20, VideoMax: 40 << 20, Seed: 3}
	res := play(t, s, "none")
	for _, f := range res.Figures() {
		t.Logf("%-70s %-12s %s", f.What, f.Bound, f.Got)
	}
	for _, f := range res.Figures() {
		switch {
		case strings.HasPrefix(f.What, "uploads acknowledged"), strings.HasPrefix(f.What, "acknowledged uploads lost"),
			strings.HasPrefix(f.What, "booth photos"), strings.HasPrefix(f.What, "guest mails"):
			if !f.OK {
				t.Errorf("%s: %s (want %s)", f.What, f.Got, f.Bound)
			}
		}
	}
}

// play sets up the network and the home's servers and plays s.
func play(t *testing.T, s Scale, profileName string) *Result {
	if os.Geteuid() != 0 {
		t.Skip("the party's network (a namespace, veth pairs, tc) needs root")
	}
	testtool.Need(t, "iproute2", "ip", "tc")
	testtool.Need(t, "nftables", "nft")
	testtool.Need(t, "zip", "zip")
	rclone := testtool.NeedOne(t, "rclone", "rclone")
	prof, ok, err := piprofile.Lookup(profileName)
	if err != nil {
		t.Fatal(err)
	}
	var pp *piprofile.Profile
	if ok {
		prof.Period = *cpuPeriod
		pp = &prof
	}
	var toolCPUs string
	if pp != nil && !*shareCPU {
		// Pinned, the daemon may use one CPU only: the tool's 300 guests
		// and samplers keep off it, or they take part of its core.
		if toolCPUs, err = pp.KeepOff(); err != nil {
			t.Fatal(err)
		}
		if toolCPUs != "" {
			t.Logf("the tool runs on CPU %s, off the stand-in's CPU %s", toolCPUs, pp.CPUs(runtime.NumCPU()))
		}
	}
	bin := *binPath
	if bin == "" {
		bin = eventbox.Path(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Hour)
	defer cancel()
	shape := Shape{RateMbit: 30 * s.Compression, DelayMs: 8.5, JitterMs: 6, LossPct: 1}
	if *rateMbit > 0 {
		shape.RateMbit = *rateMbit
	}
	link, err := NewLink(ctx, s.Guests, s.Walls+s.Consoles+s.GalleryVisits+4, shape)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(link.Close)
	work := t.TempDir()
	sink := mailtest.Start(t, mailtest.None)
	smtpAddr, err := Forward(ctx, net.JoinHostPort(link.HomeHost.String(), "0"), sink.Addr())
	if err != nil {
		t.Fatal(err)
	}
	_, smtpPort, _ := net.SplitHostPort(smtpAddr)
	cups := cupstest.Start(t)
	davDir := filepath.Join(work, "dav")
	os.MkdirAll(davDir, 0o755)
	free, err := net.Listen("tcp", net.JoinHostPort(link.HomeHost.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	davAddr := free.Addr().String()
	free.Close()
	dav := exec.Command(rclone, "serve", "webdav", davDir, "--addr", davAddr, "--user", "box", "--pass", "dav-secret", "--config", os.DevNull)
	if err := dav.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dav.Process.Kill(); dav.Wait() })
	for try := 0; ; try++ {
		if c, err := net.Dial("tcp", davAddr); err == nil {
			c.Close()
			break
		}
		if try == 200 {
			t.Fatal("rclone's WebDAV server did not listen within 20 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	voice, err := readVoice("../../../probe/testdata/voice.m4a")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	perKind := 4
	if s.Photos < 200 {
		perKind = 2
	}
	media, err := NewMedia(t.TempDir(), perKind, s.VideoMax, voice)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the files made in %v; the link: %s", time.Since(start).Round(time.Second), shape)
	bareURL := startBareServer(t, link)
	var port int
	fmt.Sscan(smtpPort, &port)
	env := Env{Bin: bin, Profile: pp, ToolCPUs: toolCPUs, Scale: s, Shape: shape, Link: link, Work: work, Media: media,
		SMTPHost: link.HomeHost.String(), SMTPPort: port, SMTPUser: mailtest.Username, SMTPPass: mailtest.Password,
		Mails: func() int {
			n := 0
			for _, r := range sink.Received() {
				if len(r.To) == 1 && strings.HasPrefix(r.To[0], "guest") {
					n++ // a guest's gallery mail, not the hosts' summary
				}
			}
			return n
		}, CUPS: cups.Socket, Printer: cups.Printer,
		Prints:  func() int { return len(cups.PDFs()) },
		BareURL: bareURL,
		DAVURL:  "http://" + davAddr, DAVUser: "box", DAVPass: "dav-secret", DAVDir: davDir, Rclone: rclone,
		Logf: t.Logf}
	res, err := Run(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if *reportDir != "" {
		if err := os.MkdirAll(*reportDir, 0o755); err != nil {
			t.Fatal(err)
		}
		name := "party-" + profileName
		if err := os.WriteFile(filepath.Join(*reportDir, name+".svg"), []byte(res.Chart()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*reportDir, name+".md"), []byte(res.Markdown(name+".svg")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// bareHealth answers every request as GET /api/health does, with nothing
// behind it: the link's own floor.
func bareHealth() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`)
	})
}

// startBareServer runs this test binary again in the box's namespace,
// serving bareHealth beside the daemon on the same link (BarePort), and
// answers its URL as the guests reach it.
func startBareServer(t *testing.T, link *Link) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(link.Box.String(), fmt.Sprint(BarePort))
	cmd := link.Command(self)
	cmd.Env = append(os.Environ(), bareServerEnv+"="+addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return "http://" + addr
}
