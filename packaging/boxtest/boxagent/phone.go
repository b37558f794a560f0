package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/net/ipv4"
)

// PhoneReport is what a guest's phone saw, printed as JSON for the test.
type PhoneReport struct {
	Joined     string            `json:"joined"`
	JoinTook   string            `json:"joinTook"`
	Lease      *Lease            `json:"lease"`
	Captive    map[string]string `json:"captiveDNS"`
	Probe      string            `json:"probe"`
	MDNS       string            `json:"mdns"`
	EventPage  int               `json:"eventPage"`
	Home       string            `json:"home"`
	Setup      string            `json:"setup,omitempty"`
	Uploads    []Upload          `json:"uploads"`
	ReportedAt time.Time         `json:"reportedAt"`
}

// Upload is one file the phone sent and what the box answered.
type Upload struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Status int    `json:"status"`
	ID     string `json:"id"`
}

// phone plays a guest: joins the Wi-Fi, gets an address, checks the
// captive DNS and mDNS, opens the event and uploads.
func phone(args []string) error {
	fs := flag.NewFlagSet("phone", flag.ContinueOnError)
	iface := fs.String("i", "wlan1", "the phone's radio")
	ssid := fs.String("ssid", "", "the hotspot's name")
	psk := fs.String("psk", "", "its password (empty: an open network)")
	slug := fs.String("slug", "", "the event to open (empty: only join and look)")
	code := fs.String("code", "", "the event's access code")
	photo := fs.String("photo", "", "a photo to upload")
	video := fs.String("video", "", "a video to upload")
	poster := fs.String("poster", "", "the video's poster frame (JPEG)")
	setup := fs.String("setup", "", "a first-run setup to send (JSON of POST /api/setup)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rep := PhoneReport{Captive: map[string]string{}}
	start := time.Now()
	if err := joinWiFi(*iface, *ssid, *psk, 90*time.Second); err != nil {
		return err
	}
	rep.Joined, rep.JoinTook = *ssid, time.Since(start).Round(time.Millisecond).String()
	lease, err := dhcp(*iface, 60*time.Second)
	if err != nil {
		return err
	}
	rep.Lease = lease
	if err := configure(*iface, lease); err != nil {
		return err
	}
	for _, name := range []string{"connectivitycheck.gstatic.com", "captive.apple.com", "www.msftconnecttest.com", "example.org"} {
		ip, err := resolveA(lease.DNS, name)
		if err != nil {
			rep.Captive[name] = "error: " + err.Error()
		} else {
			rep.Captive[name] = ip.String()
		}
	}
	box, err := mdnsA(*iface, "eventbox.local")
	if err != nil {
		return fmt.Errorf("resolving eventbox.local by mDNS: %w", err)
	}
	rep.MDNS = box.String()
	jar, _ := cookiejar.New(nil)
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	client := &http.Client{
		Jar:     jar,
		Timeout: 5 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
		Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, _ := net.SplitHostPort(addr)
			if host == "eventbox.local" {
				addr = net.JoinHostPort(box.String(), port)
			} else if ip, err := resolveA(lease.DNS, host); err == nil {
				addr = net.JoinHostPort(ip.String(), port)
			}
			return dialer.DialContext(ctx, network, addr)
		}},
	}
	// Android's probe: a box that answers it with anything but 204 is a
	// captive portal to the phone.
	if resp, err := client.Get("http://connectivitycheck.gstatic.com/generate_204"); err == nil {
		rep.Probe = fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Location"))
		resp.Body.Close()
	} else {
		rep.Probe = "error: " + err.Error()
	}
	// What the box's front page does with a phone: the event, the portal,
	// or the first-run setup.
	if resp, err := client.Get("http://eventbox.local/"); err == nil {
		rep.Home = fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Location"))
		resp.Body.Close()
	}
	if *setup != "" {
		req, _ := http.NewRequest(http.MethodPost, "http://eventbox.local/api/setup", strings.NewReader(*setup))
		req.Header.Set("Origin", "http://eventbox.local")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("sending the setup: %w", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		rep.Setup = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if *slug != "" {
		if err := guest(client, &rep, *slug, *code, *photo, *video, *poster); err != nil {
			return err
		}
	}
	rep.ReportedAt = time.Now()
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// joinWiFi starts wpa_supplicant on iface for the network and waits until
// the link is up (associated, keys agreed).
func joinWiFi(iface, ssid, psk string, timeout time.Duration) error {
	conf := "ctrl_interface=/run/wpa_supplicant-" + iface + "\nnetwork={\n\tssid=" + strconv.Quote(ssid) + "\n\tscan_ssid=1\n"
	if psk == "" {
		conf += "\tkey_mgmt=NONE\n"
	} else {
		conf += "\tkey_mgmt=WPA-PSK\n\tpsk=" + strconv.Quote(psk) + "\n"
	}
	conf += "}\n"
	path := "/run/boxtest/wpa-" + iface + ".conf"
	if err := os.MkdirAll("/run/boxtest", 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return err
	}
	pidfile := "/run/boxtest/wpa-" + iface + ".pid"
	if b, err := os.ReadFile(pidfile); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
				time.Sleep(500 * time.Millisecond)
			}
		}
	}
	out, err := exec.Command("wpa_supplicant", "-B", "-i", iface, "-D", "nl80211", "-c", path, "-P", pidfile, "-f", "/run/boxtest/wpa-"+iface+".log").CombinedOutput()
	if err != nil {
		return fmt.Errorf("starting wpa_supplicant: %v: %s", err, out)
	}
	// The link runs once associated and keyed. (Not /sys/class/net: sysfs
	// shows the namespace that mounted it, the box's, not the phone's.)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if ifi, err := net.InterfaceByName(iface); err == nil && ifi.Flags&net.FlagRunning != 0 {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	log, _ := os.ReadFile("/run/boxtest/wpa-" + iface + ".log")
	return fmt.Errorf("%s did not join %q in %s; wpa_supplicant said:\n%s", iface, ssid, timeout, log)
}

// resolveA asks server (port 53) for name's IPv4 address.
func resolveA(server net.IP, name string) (net.IP, error) {
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", net.JoinHostPort(server.String(), "53"))
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ips, err := r.LookupIP(ctx, "ip4", name)
	if err != nil {
		return nil, err
	}
	return ips[0], nil
}

// mdnsA asks the link's mDNS responders for name's IPv4 address, as a
// one-shot query from an ordinary port (RFC 6762, 5.1): the answer comes
// back to that port.
func mdnsA(iface, name string) (net.IP, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, err
	}
	c, err := net.ListenUDP("udp4", &net.UDPAddr{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	p := ipv4.NewPacketConn(c)
	if err := p.SetMulticastInterface(ifi); err != nil {
		return nil, err
	}
	q, err := dnsmessage.NewName(name + ".")
	if err != nil {
		return nil, err
	}
	msg := dnsmessage.Message{Header: dnsmessage.Header{ID: 7}, Questions: []dnsmessage.Question{{Name: q, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET}}}
	b, err := msg.Pack()
	if err != nil {
		return nil, err
	}
	group := &net.UDPAddr{IP: net.IPv4(224, 0, 0, 251), Port: 5353}
	buf := make([]byte, 9000)
	for try := 0; try < 10; try++ {
		if _, err := c.WriteTo(b, group); err != nil {
			return nil, err
		}
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		for {
			n, _, err := c.ReadFrom(buf)
			if err != nil {
				break
			}
			var m dnsmessage.Message
			if m.Unpack(buf[:n]) != nil {
				continue
			}
			for _, a := range append(m.Answers, m.Additionals...) {
				if r, ok := a.Body.(*dnsmessage.AResource); ok && strings.EqualFold(a.Header.Name.String(), q.String()) {
					return net.IP(r.A[:]), nil
				}
			}
		}
	}
	return nil, fmt.Errorf("no mDNS answer for %s on %s", name, iface)
}

// guest opens the event as a guest and uploads a photo and a video.
func guest(c *http.Client, rep *PhoneReport, slug, code, photo, video, poster string) error {
	base := "http://eventbox.local"
	resp, err := c.Get(base + "/e/" + slug)
	if err != nil {
		return fmt.Errorf("opening the event: %w", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	rep.EventPage = resp.StatusCode
	post := func(path, ctype string, body io.Reader, hdr map[string]string) (int, []byte, error) {
		req, err := http.NewRequest(http.MethodPost, base+path, body)
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Origin", base)
		req.Header.Set("Content-Type", ctype)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	var st int
	var b []byte
	if code != "" {
		st, b, err = post("/api/e/"+slug+"/unlock", "application/json", strings.NewReader(`{"code":`+strconv.Quote(code)+`}`), nil)
	} else {
		st, b, err = post("/api/e/"+slug+"/join", "application/json", strings.NewReader(`{}`), nil)
	}
	if err != nil || st != http.StatusOK {
		return fmt.Errorf("joining the event: %d %s %v", st, b, err)
	}
	if photo != "" {
		data, err := os.ReadFile(photo)
		if err != nil {
			return err
		}
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("photo", "IMG_0001.jpg")
		fw.Write(data)
		mw.Close()
		st, b, err := post("/api/e/"+slug+"/photos", mw.FormDataContentType(), &body, nil)
		if err != nil {
			return fmt.Errorf("uploading %s: %w", photo, err)
		}
		rep.Uploads = append(rep.Uploads, Upload{File: photo, SHA256: sum(data), Status: st, ID: photoID(b)})
	}
	if video != "" {
		data, err := os.ReadFile(video)
		if err != nil {
			return err
		}
		pdata, err := os.ReadFile(poster)
		if err != nil {
			return err
		}
		st, b, err := post("/api/e/"+slug+"/photos", "application/vnd.service.video", io.MultiReader(bytes.NewReader(pdata), bytes.NewReader(data)),
			map[string]string{"X-Poster-Bytes": strconv.Itoa(len(pdata))})
		if err != nil {
			return fmt.Errorf("uploading %s: %w", video, err)
		}
		rep.Uploads = append(rep.Uploads, Upload{File: video, SHA256: sum(data), Status: st, ID: photoID(b)})
	}
	return nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func photoID(b []byte) string {
	var v struct {
		Photo struct {
			ID string `json:"id"`
		} `json:"photo"`
	}
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	return v.Photo.ID
}
