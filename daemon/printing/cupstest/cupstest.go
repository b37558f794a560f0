// Package cupstest starts a private CUPS server for tests: its own cupsd
// with its own configuration, spool and logs in a temporary folder,
// listening on a free localhost port and a socket of its own, with one
// cups-pdf queue whose PDFs land in a temporary folder. The machine's own
// CUPS is neither used nor changed.
//
// cups-pdf reads its settings from /etc/cups (a path built into it); for
// a queue whose device is cups-pdf:/NAME it reads
// /etc/cups/cups-pdf-NAME.conf first. The harness writes that one file for
// a queue name no other server has, and removes it when the test ends.
// cups-pdf and a cupsd that runs it need root: elsewhere the tests skip.
package cupstest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/internal/testtool"
)

// PPD is the cups-pdf driver the queue uses (Debian's
// printer-driver-cups-pdf).
const PPD = "/usr/share/ppd/cups-pdf/CUPS-PDF_opt.ppd"

// Server is a running private cupsd with one cups-pdf queue. As on a box,
// adding printers and listing devices are for CUPS's SystemGroup (root
// here) only, said over the socket with "Authorization: PeerCred".
type Server struct {
	// Addr is host:port; Socket the server's own socket.
	Addr, Socket string
	// Printer is the cups-pdf queue's name; Out where it writes PDFs.
	Printer, Out string
	root         string
	t            testing.TB
}

// Start starts the server and its queue; they stop when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	testtool.Need(t, "cups", "cupsd")
	testtool.Need(t, "cups-client", "lpadmin", "cupsenable", "cupsdisable")
	testtool.Need(t, "printer-driver-cups-pdf (and ghostscript)", "gs")
	if _, err := os.Stat("/usr/lib/cups/backend/cups-pdf"); err != nil {
		testtool.Missing(t, "the cups-pdf backend is not installed (Debian package printer-driver-cups-pdf)")
	}
	if os.Geteuid() != 0 {
		t.Skip("a private cupsd running cups-pdf needs root")
	}
	// A short folder: a socket's path is limited to about 100 bytes.
	root, err := os.MkdirTemp("", "cups")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	s := &Server{root: root, t: t, Socket: filepath.Join(root, "cups.sock"), Out: filepath.Join(root, "out")}
	var id [6]byte
	rand.Read(id[:])
	s.Printer = "eventbox-test-" + hex.EncodeToString(id[:])
	for _, d := range []string{"conf", "spool", "spool/tmp", "cache", "state", "log", "out", "cpspool"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Chmod(root, 0o755))
	must(t, os.Chmod(s.Out, 0o777))
	must(t, os.Chmod(filepath.Join(root, "cpspool"), 0o1777))
	must(t, os.Chmod(filepath.Join(root, "spool/tmp"), 0o1777))
	s.Addr = freeAddr(t)
	conf := fmt.Sprintf(`Listen %s
Listen %s
LogLevel info
WebInterface No
Browsing No
DefaultAuthType Basic
PreserveJobHistory Yes
<Location />
  Order allow,deny
  Allow all
</Location>
<Location /admin>
  Order allow,deny
  Allow all
</Location>
<Policy default>
  <Limit CUPS-Add-Modify-Printer CUPS-Delete-Printer CUPS-Add-Modify-Class CUPS-Delete-Class CUPS-Set-Default CUPS-Get-Devices>
    AuthType Default
    Require user @SYSTEM
    Order deny,allow
  </Limit>
  <Limit All>
    Order deny,allow
  </Limit>
</Policy>
`, s.Addr, s.Socket)
	files := fmt.Sprintf(`ServerRoot %[1]s/conf
RequestRoot %[1]s/spool
TempDir %[1]s/spool/tmp
CacheDir %[1]s/cache
StateDir %[1]s/state
AccessLog %[1]s/log/access_log
ErrorLog %[1]s/log/error_log
PageLog %[1]s/log/page_log
Printcap %[1]s/printcap
User lp
Group lp
SystemGroup root
Sandboxing Relaxed
`, root)
	must(t, os.WriteFile(filepath.Join(root, "cupsd.conf"), []byte(conf), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "cups-files.conf"), []byte(files), 0o644))
	pdfConf := "/etc/cups/cups-pdf-" + s.Printer + ".conf"
	must(t, os.WriteFile(pdfConf, []byte(fmt.Sprintf(
		"Out %[1]s\nAnonDirName %[1]s\nSpool %[2]s/cpspool\nLabel 1\nUserUMask 0000\nAnonUMask 0000\n",
		s.Out, root)), 0o644))
	t.Cleanup(func() { os.Remove(pdfConf) })

	cmd := exec.Command("cupsd", "-f", "-c", filepath.Join(root, "cupsd.conf"), "-s", filepath.Join(root, "cups-files.conf"))
	logf, err := os.Create(filepath.Join(root, "log", "cupsd.out"))
	must(t, err)
	cmd.Stdout, cmd.Stderr = logf, logf
	must(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(root, "log", "error_log"))
			t.Logf("cupsd's error_log:\n%s", lastLines(string(b), 40))
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", s.Addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(root, "log", "error_log"))
			t.Fatalf("the private cupsd did not start: %v\n%s", err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.lp("lpadmin", "-p", s.Printer, "-v", "cups-pdf:/"+s.Printer, "-P", PPD, "-E")
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// freeAddr answers a localhost address nothing listens on.
func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	return l.Addr().String()
}

// lp runs a CUPS command against this server, over its socket (where
// CUPS's commands say who they are with PeerCred).
func (s *Server) lp(name string, args ...string) {
	s.t.Helper()
	out, err := exec.Command(name, append([]string{"-h", s.Socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// PDFDevice answers the device URI of a cups-pdf queue named name whose
// PDFs land in Out, as the queue of Start does; a test adds the queue
// itself. Its settings file goes when the test ends.
func (s *Server) PDFDevice(name string) string {
	s.t.Helper()
	conf := "/etc/cups/cups-pdf-" + name + ".conf"
	must(s.t, os.WriteFile(conf, []byte(fmt.Sprintf(
		"Out %[1]s\nAnonDirName %[1]s\nSpool %[2]s/cpspool\nLabel 1\nUserUMask 0000\nAnonUMask 0000\n",
		s.Out, s.root)), 0o644))
	s.t.Cleanup(func() { os.Remove(conf) })
	return "cups-pdf:/" + name
}

// Stop stops the queue (cupsdisable) with reason as its message, as a
// printer that ran out of paper is stopped.
func (s *Server) Stop(reason string) { s.lp("cupsdisable", "-r", reason, s.Printer) }

// Resume starts the queue again (cupsenable).
func (s *Server) Resume() { s.lp("cupsenable", s.Printer) }

// PDFs lists the PDFs the queue wrote so far, by name.
func (s *Server) PDFs() []string {
	s.t.Helper()
	m, err := filepath.Glob(filepath.Join(s.Out, "*.pdf"))
	must(s.t, err)
	slices.Sort(m)
	return m
}

// WaitPDFs waits until the queue wrote at least n whole PDFs, at most
// timeout, and answers them.
func (s *Server) WaitPDFs(n int, timeout time.Duration) []string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := s.PDFs()
		// cups-pdf makes the file first and fills it through Ghostscript
		// (tens of seconds for one page on a loaded two-core machine):
		// a PDF is whole once it ends with its trailer.
		if len(got) >= n && whole(got) {
			return got
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(s.root, "log", "error_log"))
			s.t.Fatalf("%d PDFs after %s, want %d; error_log:\n%s", len(got), timeout, n, lastLines(string(b), 30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// whole reports whether every PDF ends with the %%EOF of its trailer.
func whole(pdfs []string) bool {
	for _, p := range pdfs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b[max(0, len(b)-1024):]), "%%EOF") {
			return false
		}
	}
	return true
}

// PageSize answers a printed PDF's first page size in points (pdfinfo),
// the short side first.
func PageSize(t testing.TB, pdf string) (float64, float64) {
	t.Helper()
	out, err := exec.Command("pdfinfo", pdf).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Page size:\s+([\d.]+) x ([\d.]+) pts`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no page size in\n%s", out)
	}
	w, _ := strconv.ParseFloat(m[1], 64)
	h, _ := strconv.ParseFloat(m[2], 64)
	return min(w, h), max(w, h)
}

// Codes renders a printed PDF's first page at 300 dpi, the resolution
// prints are laid out at (pdftoppm), and answers the QR codes zbarimg
// reads on it. (At 150 dpi the strips' small code, about 3 px a module,
// failed to decode once in CI, depending on the link it carries.)
func Codes(t testing.TB, pdf string) []string {
	t.Helper()
	testtool.Need(t, "zbar-tools", "zbarimg")
	png := filepath.Join(t.TempDir(), "page")
	if out, err := exec.Command("pdftoppm", "-r", "300", "-png", "-singlefile", pdf, png).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	out, _ := exec.Command("zbarimg", "-q", png+".png").Output()
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if c, ok := strings.CutPrefix(l, "QR-Code:"); ok {
			got = append(got, c)
		}
	}
	return got
}
