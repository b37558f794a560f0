package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// home plays the hosts' home network in its own namespace: an access point
// on its radio (wpa_supplicant in AP mode, WPA2), a DHCP and DNS server
// (dnsmasq, every name answered with the home's own address) and, at that
// address, a fake internet: a web server that answers connectivity checks
// and records every request (the webhooks), and a mail server on ports 25
// and 587 that keeps every message. What arrives is written under
// /run/boxtest/home/ for the test to read.
func home(args []string) error {
	fs := flag.NewFlagSet("home", flag.ContinueOnError)
	iface := fs.String("i", "wlan2", "the access point's radio")
	ssid := fs.String("ssid", "Home", "the network's name")
	psk := fs.String("psk", "", "its WPA2 password")
	addr := fs.String("ip", "192.168.77.1", "the home's own address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	out := "/run/boxtest/home"
	if err := os.MkdirAll(filepath.Join(out, "mail"), 0o755); err != nil {
		return err
	}
	conf := fmt.Sprintf("ctrl_interface=/run/wpa_supplicant-%s\nap_scan=2\nnetwork={\n\tssid=%s\n\tmode=2\n\tfrequency=2437\n"+
		"\tkey_mgmt=WPA-PSK\n\tproto=RSN\n\tpairwise=CCMP\n\tgroup=CCMP\n\tpsk=%s\n}\n", *iface, strconv.Quote(*ssid), strconv.Quote(*psk))
	confPath := filepath.Join(out, "wpa.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		return err
	}
	if b, err := exec.Command("wpa_supplicant", "-B", "-i", *iface, "-D", "nl80211", "-c", confPath,
		"-f", filepath.Join(out, "wpa.log")).CombinedOutput(); err != nil {
		return fmt.Errorf("starting the access point: %v: %s", err, b)
	}
	ip := net.ParseIP(*addr).To4()
	if err := configure(*iface, &Lease{IP: ip, Mask: net.IPv4(255, 255, 255, 0).To4()}); err != nil {
		return err
	}
	lo, hi := append(net.IP(nil), ip...), append(net.IP(nil), ip...)
	lo[3], hi[3] = 50, 150
	dnsmasq := exec.Command("dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--interface="+*iface,
		"--bind-interfaces", "--except-interface=lo", "--dhcp-range="+lo.String()+","+hi.String()+",12h",
		"--address=/#/"+ip.String(), "--no-resolv", "--no-hosts", "--dhcp-leasefile="+filepath.Join(out, "leases"),
		"--pid-file="+filepath.Join(out, "dnsmasq.pid"), "--log-dhcp", "--log-facility="+filepath.Join(out, "dnsmasq.log"))
	if err := dnsmasq.Start(); err != nil {
		return fmt.Errorf("starting dnsmasq: %w", err)
	}
	errs := make(chan error, 3)
	go func() { errs <- dnsmasq.Wait() }()
	rec := &recorder{dir: out}
	go func() {
		errs <- http.ListenAndServe(net.JoinHostPort(ip.String(), "80"), rec)
	}()
	for _, port := range []string{"25", "587"} {
		s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &mailSession{rec: rec}, nil }))
		s.Addr = net.JoinHostPort(ip.String(), port)
		s.Domain = "mail.home.test"
		s.AllowInsecureAuth = true
		s.ReadTimeout, s.WriteTimeout = time.Minute, time.Minute
		go func() { errs <- s.ListenAndServe() }()
	}
	fmt.Printf("home: %q on %s, %s serving DHCP, DNS, HTTP and SMTP\n", *ssid, *iface, ip)
	return <-errs
}

// recorder writes what reaches the fake internet.
type recorder struct {
	dir string
	mu  sync.Mutex
	n   int
}

// Request is one request to the fake internet, as the test reads it.
type Request struct {
	Method string `json:"method"`
	Host   string `json:"host"`
	Path   string `json:"path"`
	Body   string `json:"body"`
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	r.append("http.jsonl", Request{Method: req.Method, Host: req.Host, Path: req.URL.RequestURI(), Body: string(body)})
	if req.URL.Path == "/generate_204" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(w, "ok\n")
}

func (r *recorder) append(name string, v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(r.dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_ = json.NewEncoder(f).Encode(v)
}

func (r *recorder) mail(from string, to []string, data []byte) error {
	r.mu.Lock()
	r.n++
	n := r.n
	r.mu.Unlock()
	r.append("mail.jsonl", map[string]any{"from": from, "to": to, "bytes": len(data), "file": fmt.Sprintf("mail/%d.eml", n)})
	return os.WriteFile(filepath.Join(r.dir, "mail", strconv.Itoa(n)+".eml"), data, 0o644)
}

// mailSession keeps a message for the recorder (any sender, any
// recipient, any or no password).
type mailSession struct {
	rec  *recorder
	from string
	to   []string
}

func (s *mailSession) Mail(from string, _ *smtp.MailOptions) error { s.from = from; return nil }
func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error   { s.to = append(s.to, to); return nil }
func (s *mailSession) Reset()                                      { s.from, s.to = "", nil }
func (s *mailSession) Logout() error                               { return nil }
func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return s.rec.mail(s.from, s.to, b)
}
