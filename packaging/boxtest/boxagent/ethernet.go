package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// venueNamespace holds the venue's access point: the far end of the box's
// second Ethernet port, a bridge, and a virtual radio in access-point mode.
const venueNamespace = "venue-ap"

// EthernetReport is what the phones behind the venue's access point saw,
// written as JSON for the test.
type EthernetReport struct {
	Started time.Time       `json:"started"`
	Ended   time.Time       `json:"ended"`
	Phones  []EthernetPhone `json:"phones"`
}

// EthernetPhone is one phone behind the venue's access point.
type EthernetPhone struct {
	N  int    `json:"n"`
	NS string `json:"ns"`
	// Arrived is when it enabled the venue's network, Joined when the
	// access point took it, Leased when the box's DHCP server acked.
	Arrived time.Time `json:"arrived"`
	Joined  time.Time `json:"joined"`
	Leased  time.Time `json:"leased"`
	Lease   *Lease    `json:"lease"`
	// Captive is the box's DNS answer for Android's probe host, Probe
	// what the probe got ("302 http://…").
	Captive string   `json:"captive"`
	Probe   string   `json:"probe"`
	Uploads []Upload `json:"uploads"`
	// DNSRetries counts the DNS questions asked again after 5 s without
	// an answer.
	DNSRetries int    `json:"dnsRetries"`
	Error      string `json:"error,omitempty"`
}

// ethernet is the venue's access point on the box's second Ethernet port:
//
//	ethernet ap -port eth1 -ssid NAME -freq MHZ
//	    a veth pair, PORT in the box's namespace (for NetworkManager) and
//	    its peer in namespace venue-ap, bridged there with the last
//	    crowd radio moved in, an open access point (wpa_supplicant mode=2)
//	ethernet phones -n N -ssid NAME -slug SLUG -photo F -out FILE
//	    N phones on the N crowd radios before the access point's: each
//	    joins, gets an address by DHCP, asks the box's DNS for Android's
//	    probe host and sends the probe, then sends one photo; all stay on
//	    the access point until every one has sent, and -linger more
func ethernet(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("ethernet: want ap or phones")
	}
	switch args[0] {
	case "ap":
		return ethernetAP(args[1:])
	case "phones":
		return ethernetPhones(args[1:])
	}
	return fmt.Errorf("ethernet %q: want ap or phones", args[0])
}

// crowdRadios lists the crowd's namespaces that hold a radio, in order:
// crowd01, crowd02, ... (boxagent radios); the venue's access point takes
// the last one.
func crowdRadios() ([]int, error) {
	names, err := filepath.Glob("/run/netns/crowd*")
	if err != nil {
		return nil, err
	}
	var ns []int
	for _, name := range names {
		n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(name), "crowd"))
		if err == nil {
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	return ns, nil
}

func ethernetAP(args []string) error {
	fs := flag.NewFlagSet("ethernet ap", flag.ContinueOnError)
	port := fs.String("port", "eth1", "the box's new Ethernet port")
	ssid := fs.String("ssid", "Venue guests", "the access point's (open) network")
	freq := fs.Int("freq", 2462, "its frequency in MHz (channel 11: not the hotspot's 6)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	radios, err := crowdRadios()
	if err != nil || len(radios) == 0 {
		return fmt.Errorf("no crowd radio left for the access point (%v)", err)
	}
	last := radios[len(radios)-1]
	from := crowdNamespace(last)
	iface := fmt.Sprintf("wlan%d", last+2)
	if err := addNetns(venueNamespace); err != nil {
		return err
	}
	// The radio moves from its crowd namespace to the venue's.
	// The namespace holds one radio, named by its index: iw finds a name
	// in /sys/class/ieee80211, which shows only the box's own namespace's.
	info, err := exec.Command("nsenter", "--net=/run/netns/"+from, "--", "iw", "phy").CombinedOutput()
	if err != nil {
		return fmt.Errorf("iw phy in %s: %v: %s", from, err, info)
	}
	m := regexp.MustCompile(`wiphy index: (\d+)`).FindSubmatch(info)
	if m == nil {
		return fmt.Errorf("no radio in %s: %s", from, info)
	}
	phy := "phy#" + string(m[1])
	if out, err := exec.Command("nsenter", "--net=/run/netns/"+from, "--", "iw", phy, "set", "netns", "name", venueNamespace).CombinedOutput(); err != nil {
		return fmt.Errorf("moving %s (%s) to %s: %v: %s", phy, iface, venueNamespace, err, out)
	}
	fmt.Printf("ethernet: radio %s (%s) moved from %s to %s\n", iface, phy, from, venueNamespace)

	// The cable: PORT here, venue0 in the venue's namespace.
	nsf, err := os.Open("/run/netns/" + venueNamespace)
	if err != nil {
		return err
	}
	defer nsf.Close()
	if err := newVeth(*port, "venue0", int(nsf.Fd())); err != nil {
		return err
	}
	fmt.Printf("ethernet: veth %s here, venue0 in %s\n", *port, venueNamespace)
	if err := inNetns(venueNamespace, func() error {
		if err := newBridge("br0"); err != nil {
			return err
		}
		for _, dev := range []string{"lo", "venue0", "br0"} {
			if err := setLink(dev, "", true); err != nil {
				return err
			}
		}
		return setLink("venue0", "br0", true)
	}); err != nil {
		return err
	}

	// The access point, then its radio on the bridge (a radio joins a
	// bridge only once in access-point mode).
	dir := "/run/boxtest/wpa-" + venueNamespace
	if err := os.MkdirAll("/run/boxtest", 0o755); err != nil {
		return err
	}
	conf := "ctrl_interface=" + dir + "\nnetwork={\n\tssid=" + strconv.Quote(*ssid) +
		"\n\tmode=2\n\tfrequency=" + strconv.Itoa(*freq) + "\n\tkey_mgmt=NONE\n}\n"
	if err := os.WriteFile(dir+".conf", []byte(conf), 0o600); err != nil {
		return err
	}
	if out, err := exec.Command("nsenter", "--net=/run/netns/"+venueNamespace, "--", "wpa_supplicant", "-B", "-i", iface, "-D", "nl80211",
		"-c", dir+".conf", "-P", dir+".pid", "-f", dir+".log").CombinedOutput(); err != nil {
		return fmt.Errorf("starting the access point's wpa_supplicant: %v: %s", err, out)
	}
	ap := &crowdPhone{CrowdPhone: &CrowdPhone{}, iface: iface, ns: venueNamespace, dir: dir}
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := ap.command("STATUS")
		if err == nil && strings.Contains(st, "wpa_state=COMPLETED") && strings.Contains(st, "mode=AP") {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(dir + ".log")
			return fmt.Errorf("the access point did not start in 60 s (%q, %v); wpa_supplicant said:\n%s", st, err, log)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err := inNetns(venueNamespace, func() error { return setLink(iface, "br0", true) }); err != nil {
		return err
	}
	fmt.Printf("ethernet: open access point %q on %d MHz (%s), bridged with venue0 to the box's %s\n", *ssid, *freq, iface, *port)
	return nil
}

// inNetns runs f on a thread of its own in namespace ns (the thread ends
// with it).
func inNetns(ns string, f func() error) error {
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := enterNetns(ns); err != nil {
			ch <- err
			return
		}
		ch <- f()
	}()
	return <-ch
}

// rtattr appends a route attribute (padded to 4 bytes) to b.
func rtattr(b []byte, typ uint16, data []byte) []byte {
	l := 4 + len(data)
	b = binary.NativeEndian.AppendUint16(b, uint16(l))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// ifinfo is a struct ifinfomsg.
func ifinfo(index int32, flags, change uint32) []byte {
	b := make([]byte, unix.SizeofIfInfomsg)
	b[0] = unix.AF_UNSPEC
	binary.NativeEndian.PutUint32(b[4:], uint32(index))
	binary.NativeEndian.PutUint32(b[8:], flags)
	binary.NativeEndian.PutUint32(b[12:], change)
	return b
}

func cstr(s string) []byte { return append([]byte(s), 0) }

// rtnetlink sends one RTM_NEWLINK request (body: ifinfomsg and
// attributes) in the calling thread's namespace and reads its ack: the
// image has no ip(8).
func rtnetlink(flags uint16, body []byte) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	msg := make([]byte, unix.NLMSG_HDRLEN, unix.NLMSG_HDRLEN+len(body))
	binary.NativeEndian.PutUint32(msg[0:], uint32(unix.NLMSG_HDRLEN+len(body)))
	binary.NativeEndian.PutUint16(msg[4:], unix.RTM_NEWLINK)
	binary.NativeEndian.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|flags)
	binary.NativeEndian.PutUint32(msg[8:], 1)
	msg = append(msg, body...)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 8192)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	if n < unix.NLMSG_HDRLEN+4 || binary.NativeEndian.Uint16(buf[4:]) != unix.NLMSG_ERROR {
		return fmt.Errorf("rtnetlink: unexpected answer of %d bytes", n)
	}
	if e := int32(binary.NativeEndian.Uint32(buf[unix.NLMSG_HDRLEN:])); e != 0 {
		return unix.Errno(-e)
	}
	return nil
}

// vethInfoPeer is VETH_INFO_PEER of <linux/veth.h>.
const vethInfoPeer = 1

// newVeth makes the veth pair name (here) and peer (in the namespace
// of the open file nsfd).
func newVeth(name, peer string, nsfd int) error {
	var fd [4]byte
	binary.NativeEndian.PutUint32(fd[:], uint32(nsfd))
	p := ifinfo(0, 0, 0)
	p = rtattr(p, unix.IFLA_IFNAME, cstr(peer))
	p = rtattr(p, unix.IFLA_NET_NS_FD, fd[:])
	data := rtattr(nil, vethInfoPeer, p)
	info := rtattr(nil, unix.IFLA_INFO_KIND, cstr("veth"))
	info = rtattr(info, unix.IFLA_INFO_DATA, data)
	b := ifinfo(0, 0, 0)
	b = rtattr(b, unix.IFLA_IFNAME, cstr(name))
	b = rtattr(b, unix.IFLA_LINKINFO, info)
	if err := rtnetlink(unix.NLM_F_CREATE|unix.NLM_F_EXCL, b); err != nil {
		return fmt.Errorf("making the veth pair %s/%s: %w", name, peer, err)
	}
	return nil
}

// newBridge makes a bridge (no spanning tree: its ports forward at once).
func newBridge(name string) error {
	b := ifinfo(0, 0, 0)
	b = rtattr(b, unix.IFLA_IFNAME, cstr(name))
	b = rtattr(b, unix.IFLA_LINKINFO, rtattr(nil, unix.IFLA_INFO_KIND, cstr("bridge")))
	if err := rtnetlink(unix.NLM_F_CREATE|unix.NLM_F_EXCL, b); err != nil {
		return fmt.Errorf("making the bridge %s: %w", name, err)
	}
	return nil
}

// setLink puts dev on the bridge master (when not "") and up.
func setLink(dev, master string, up bool) error {
	ifi, err := net.InterfaceByName(dev)
	if err != nil {
		return err
	}
	var flags uint32
	if up {
		flags = unix.IFF_UP
	}
	b := ifinfo(int32(ifi.Index), flags, unix.IFF_UP)
	if master != "" {
		mi, err := net.InterfaceByName(master)
		if err != nil {
			return err
		}
		var idx [4]byte
		binary.NativeEndian.PutUint32(idx[:], uint32(mi.Index))
		b = rtattr(b, unix.IFLA_MASTER, idx[:])
	}
	if err := rtnetlink(0, b); err != nil {
		return fmt.Errorf("setting %s up (master %q): %w", dev, master, err)
	}
	return nil
}

func ethernetPhones(args []string) error {
	fs := flag.NewFlagSet("ethernet phones", flag.ContinueOnError)
	n := fs.Int("n", 20, "how many phones (the crowd radios before the access point's)")
	ssid := fs.String("ssid", "Venue guests", "the access point's open network")
	slug := fs.String("slug", "", "the event")
	photo := fs.String("photo", "", "the photo each phone sends (each copy made unique)")
	spread := fs.Duration("spread", time.Minute, "the phones arrive evenly over this time")
	total := fs.Duration("for", 8*time.Minute, "the phones give up this long after the first arrival")
	linger := fs.Duration("linger", 0, "once every phone has sent (or failed), they all stay on the access point this much longer")
	out := fs.String("out", "/run/boxtest/ethernet.json", "the report")
	if err := fs.Parse(args); err != nil {
		return err
	}
	data, err := os.ReadFile(*photo)
	if err != nil {
		return err
	}
	radios, err := crowdRadios()
	if err != nil {
		return err
	}
	// The access point took the last radio (it left its namespace, which
	// stays): the phones are the n before it.
	if len(radios) < *n+1 {
		return fmt.Errorf("%d crowd radios: want %d phones and the access point's", len(radios), *n)
	}
	radios = radios[len(radios)-1-*n : len(radios)-1]
	rep := EthernetReport{Started: time.Now(), Phones: make([]EthernetPhone, *n)}
	ctx, cancel := context.WithDeadline(context.Background(), rep.Started.Add(*total))
	defer cancel()
	// A phone leaves once every phone has sent (or failed), and the linger.
	var sent sync.WaitGroup
	sent.Add(len(radios))
	allSent := make(chan struct{})
	go func() {
		sent.Wait()
		select {
		case <-time.After(*linger):
		case <-ctx.Done():
		}
		close(allSent)
	}()
	var wg sync.WaitGroup
	for i, k := range radios {
		p := &rep.Phones[i]
		p.N, p.NS = i+1, crowdNamespace(k)
		at := rep.Started
		if *n > 1 {
			at = at.Add(time.Duration(i) * *spread / time.Duration(*n-1))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			select {
			case <-time.After(time.Until(at)):
			case <-ctx.Done():
				sent.Done()
				return
			}
			ph := &crowdPhone{CrowdPhone: &CrowdPhone{N: p.N}, sent: func() {}, iface: fmt.Sprintf("wlan%d", k+2), ns: p.NS}
			if err := venuePhone(ctx, ph, p, *ssid, *slug, data); err != nil {
				p.Error = err.Error()
			}
			sent.Done()
			select {
			case <-allSent:
			case <-ctx.Done():
			}
			ph.leave()
			fmt.Printf("phone %d (%s): address %v, captive %s, probe %q, %d uploads, %d DNS questions asked again, error %q\n",
				p.N, p.NS, p.Lease != nil, p.Captive, p.Probe, len(p.Uploads), p.DNSRetries, p.Error)
		}()
	}
	wg.Wait()
	rep.Ended = time.Now()
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return err
	}
	return writeFile(*out, bytes.NewReader(b), 0o644)
}

// venuePhone is one phone at the venue's access point, on its locked
// thread: it joins, gets its address from the box, meets the captive
// portal as Android does and sends one photo.
func venuePhone(ctx context.Context, ph *crowdPhone, p *EthernetPhone, ssid, slug string, photo []byte) error {
	ph.gone, ph.joins = make(chan struct{}), make(chan struct{}, 1)
	if err := enterNetns(ph.ns); err != nil {
		return err
	}
	if err := ph.startSupplicant(ssid, ""); err != nil {
		return err
	}
	events, err := ph.attach()
	if err != nil {
		return err
	}
	defer events.Close()
	go ph.watch(events)
	p.Arrived = time.Now()
	if _, err := ph.command("ENABLE_NETWORK 0"); err != nil {
		return err
	}
	select {
	case <-ph.joins:
		p.Joined = ph.Joined
	case <-ctx.Done():
		return errors.New("the access point never took the phone")
	}
	lease, err := ph.address(ctx, 90*time.Second)
	if err != nil {
		return err
	}
	p.Leased, p.Lease = time.Now(), lease
	if err := configure(ph.iface, lease); err != nil {
		return err
	}
	var retried atomic.Int32
	defer func() { p.DNSRetries = int(retried.Load()) }()
	c := venueClient(ph.ns, lease.DNS, &retried)
	if ip, err := lookupIn(ctx, ph.ns, lease.DNS, "connectivitycheck.gstatic.com", &retried); err != nil {
		p.Captive = "error: " + err.Error()
	} else {
		p.Captive = ip.String()
	}
	// Android's probe: anything but 204 shows the captive sheet.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://connectivitycheck.gstatic.com/generate_204", nil)
	if resp, err := c.Do(req); err == nil {
		p.Probe = fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Location"))
		resp.Body.Close()
	} else {
		p.Probe = "error: " + err.Error()
	}
	err = ph.send(ctx, c, slug, photo, 1)
	p.Uploads = ph.Uploads
	return err
}

// venueClient is a phone's browser behind the venue's access point: each
// name is asked of the box's DNS server dns (retried counting the
// questions asked again), every socket made in the phone's namespace ns.
func venueClient(ns string, dns net.IP, retried *atomic.Int32) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Jar:     jar,
		Timeout: 3 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
		Transport: &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, _ := net.SplitHostPort(addr)
			ip, err := lookupIn(ctx, ns, dns, host, retried)
			if err != nil {
				return nil, err
			}
			return dialIn(ctx, ns, network, net.JoinHostPort(ip.String(), port))
		}},
	}
}

// lookupIn asks the DNS server dns for name's IPv4 address from
// namespace ns, asking again after 5 s without an answer, three times in
// all, as a phone's resolver does; retried counts the questions asked
// again (a lost packet on the shared virtual air).
func lookupIn(ctx context.Context, ns string, dns net.IP, name string, retried *atomic.Int32) (net.IP, error) {
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dialIn(ctx, ns, "udp", net.JoinHostPort(dns.String(), "53"))
	}}
	var err error
	for try := 0; try < 3; try++ {
		if try > 0 && retried != nil {
			retried.Add(1)
		}
		var ips []net.IP
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ips, err = r.LookupIP(tctx, "ip4", name)
		cancel()
		if err == nil {
			return ips[0], nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, err
}
