package netsetup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
)

// Status is what ReadStatus found about the hotspot.
type Status struct {
	// Connection is the NetworkManager connection id looked at.
	Connection string
	// Profile is "installed", "absent" or "unreadable: …" for the keyfile.
	Profile string
	// SSID and Address come from the keyfile ("" when unknown).
	SSID, Address string
	// DropIn is the address the DNS drop-in answers, "" when it is absent.
	DropIn string
	// Active is true when NetworkManager has the connection up, on Device.
	Active bool
	Device string
	// Radio is nmcli's word for the Wi-Fi radio ("enabled", "disabled"),
	// "" when unknown.
	Radio string
	// Problems lists the commands that failed while looking.
	Problems []string
}

// ReadStatus looks at the hotspot named connection (DefaultConnection when
// empty): its keyfile and the DNS drop-in under root ("" for "/"), and what
// nmcli says through runner. It does not fail: what it cannot learn is
// listed in Problems.
func ReadStatus(ctx context.Context, runner Runner, root, connection string) Status {
	if connection == "" {
		connection = DefaultConnection
	}
	st := Status{Connection: connection, Profile: "absent"}
	if data, err := os.ReadFile(rooted(root, keyfilePath(connection))); err == nil {
		st.Profile = "installed"
		st.SSID = keyfileValue(string(data), "ssid")
		st.Address = keyfileValue(string(data), "address1")
	} else if !errors.Is(err, fs.ErrNotExist) {
		st.Profile = "unreadable: " + err.Error()
	}
	if data, err := os.ReadFile(rooted(root, DropInPath)); err == nil {
		st.DropIn = strings.TrimPrefix(keyfileValue(string(data), "address"), "/#/")
	}
	if out, err := runner.Run(ctx, "nmcli", "-t", "-f", "NAME,DEVICE", "connection", "show", "--active"); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			if name, dev, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && name == connection {
				st.Active, st.Device = true, dev
			}
		}
	} else {
		st.Problems = append(st.Problems, err.Error())
	}
	if out, err := runner.Run(ctx, "nmcli", "radio", "wifi"); err == nil {
		st.Radio = strings.TrimSpace(string(out))
	} else {
		st.Problems = append(st.Problems, err.Error())
	}
	return st
}

// keyfileValue returns the value of the first "key=" line of text.
// ReadHotspotWiFi reads the network name and WPA passphrase of the
// hotspot profile named connection (DefaultConnection when empty) under
// root ("" for "/"); ok is false when the profile is absent or names no
// network. The keyfile is readable by root only, as the daemon runs.
func ReadHotspotWiFi(root, connection string) (ssid, password string, ok bool) {
	if connection == "" {
		connection = DefaultConnection
	}
	data, err := os.ReadFile(rooted(root, keyfilePath(connection)))
	if err != nil {
		return "", "", false
	}
	ssid = unescapeSSID(keyfileValue(string(data), "ssid"))
	return ssid, unescapeKeyfileString(keyfileValue(string(data), "psk")), ssid != ""
}

// HotspotWiFi tells the hotspot's network name and WPA passphrase for the
// printed signs, as the daemon's own unprivileged user can read them:
// NetworkManager's answer through nmcli (runner), which shows a system
// connection's passphrase to a user who may modify it (the package's polkit
// rule grants the eventbox user that). The connection's keyfile under root
// ("" for "/"), root's and 0600 on a box, is read only when there is no
// nmcli (runner nil) or when nmcli fails or hides the passphrase: a daemon
// run as root, a developer's machine. ok is false when there is no hotspot,
// or when its passphrase cannot be read: a sign never shows a network with
// a password as an open one. What failed is logged on log (nil: nowhere).
func HotspotWiFi(ctx context.Context, runner Runner, root, connection string, log *slog.Logger) (ssid, password string, ok bool) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if runner == nil {
		return ReadHotspotWiFi(root, connection)
	}
	st, err := ReadHotspot(ctx, runner, connection)
	switch {
	case err != nil:
		if ssid, password, ok = ReadHotspotWiFi(root, connection); !ok {
			log.WarnContext(ctx, "signs: the hotspot's Wi-Fi is unknown (NetworkManager did not tell it, its connection file is root's): the signs leave it out", "error", err)
		}
		return ssid, password, ok
	case !st.Exists || st.SSID == "":
		return "", "", false
	case st.Secured && st.Password == "":
		// The file, if readable, only for the same network with a
		// password: never an open one on the sign.
		if ssid, password, ok = ReadHotspotWiFi(root, connection); ok && ssid == st.SSID && password != "" {
			return ssid, password, true
		}
		log.WarnContext(ctx, "signs: NetworkManager keeps the hotspot's password from the daemon (is the polkit rule installed?): the signs leave the Wi-Fi out", "ssid", st.SSID)
		return "", "", false
	}
	return st.SSID, st.Password, true
}

// unescapeSSID undoes keyfileSSID: "72;105;" is the bytes of "Hi".
func unescapeSSID(v string) string {
	if !strings.HasSuffix(v, ";") {
		return v
	}
	var b []byte
	for _, n := range strings.Split(strings.TrimSuffix(v, ";"), ";") {
		c, err := strconv.Atoi(n)
		if err != nil || c < 0 || c > 255 {
			return v
		}
		b = append(b, byte(c))
	}
	return string(b)
}

// unescapeKeyfileString undoes GLib's key file escapes (\\, \s, \t, \n).
func unescapeKeyfileString(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch v[i] {
		case 's':
			b.WriteByte(' ')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

func keyfileValue(text, key string) string {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return v
		}
	}
	return ""
}

// Print writes st as a few "name: value" lines.
func (st Status) Print(w io.Writer) error {
	bw := bufio.NewWriter(w)
	state := "down"
	if st.Active {
		state = "up on " + st.Device
	}
	fmt.Fprintf(bw, "connection: %s (%s)\n", st.Connection, st.Profile)
	if st.SSID != "" {
		fmt.Fprintf(bw, "ssid: %s\n", st.SSID)
	}
	if st.Address != "" {
		fmt.Fprintf(bw, "address: %s\n", st.Address)
	}
	fmt.Fprintf(bw, "state: %s\n", state)
	if st.Radio != "" {
		fmt.Fprintf(bw, "wifi radio: %s\n", st.Radio)
	}
	if st.DropIn != "" {
		fmt.Fprintf(bw, "captive dns: every name answers %s\n", st.DropIn)
	} else {
		fmt.Fprintf(bw, "captive dns: off\n")
	}
	for _, p := range st.Problems {
		fmt.Fprintf(bw, "problem: %s\n", p)
	}
	return bw.Flush()
}
