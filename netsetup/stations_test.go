package netsetup_test

import (
	"context"
	"net"
	"net/netip"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"eventbox/netsetup"
)

func TestParseStationDumpReadsEachPhone(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      []netsetup.Station
	}{
		{name: "none", out: "", want: nil},
		{name: "two phones", out: "Station 02:00:00:00:00:0A (on wlan0)\n\tinactive time:\t1200 ms\n\trx bytes:\t52311\n\tconnected time:\t61 seconds\n" +
			"Station 02:00:00:00:00:0b (on wlan0)\n\tinactive time:\t300000 ms\n\tconnected time:\t3600 seconds\n",
			want: []netsetup.Station{{MAC: "02:00:00:00:00:0a", Inactive: 1200 * time.Millisecond, Connected: 61 * time.Second, ConnectedKnown: true},
				{MAC: "02:00:00:00:00:0b", Inactive: 5 * time.Minute, Connected: time.Hour, ConnectedKnown: true}}},
		{name: "one joined in the last second", out: "Station 02:00:00:00:00:0c (on wlan0)\n\tinactive time:\t10 ms\n\tauthorized:\tno\n\tassociated:\tyes\n\tconnected time:\t0 seconds\n",
			want: []netsetup.Station{{MAC: "02:00:00:00:00:0c", Inactive: 10 * time.Millisecond, ConnectedKnown: true}}},
		{name: "one only authenticating is left out", out: "Station 02:00:00:00:00:0d (on wlan0)\n\tinactive time:\t0 ms\n\tauthenticated:\tyes\n\tassociated:\tno\n\tconnected time:\t0 seconds\n" +
			"Station 02:00:00:00:00:0e (on wlan0)\n\tinactive time:\t400 ms\n\tassociated:\tyes\n\tconnected time:\t9 seconds\n",
			want: []netsetup.Station{{MAC: "02:00:00:00:00:0e", Inactive: 400 * time.Millisecond, Connected: 9 * time.Second, ConnectedKnown: true}}},
		{name: "no times", out: "Station 02:00:00:00:00:01 (on wlan0)\n\tsignal:  \t-48 dBm\n",
			want: []netsetup.Station{{MAC: "02:00:00:00:00:01"}}},
	} {
		if got := netsetup.ParseStationDump(tc.out); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestParseNeighboursMapsEachRadioToItsAddresses(t *testing.T) {
	out := "10.42.0.23 lladdr 02:00:00:00:00:17 REACHABLE\n" +
		"fe80::1c2b:3dff:fe4e:5f60 lladdr 02:00:00:00:00:17 router STALE\n" +
		"10.42.0.24 lladdr 02:00:00:00:00:AA DELAY\n" +
		"10.42.0.99  INCOMPLETE\n" +
		"garbage\n"
	want := map[string][]netip.Addr{
		"02:00:00:00:00:17": {netip.MustParseAddr("10.42.0.23"), netip.MustParseAddr("fe80::1c2b:3dff:fe4e:5f60")},
		"02:00:00:00:00:aa": {netip.MustParseAddr("10.42.0.24")},
	}
	if got := netsetup.ParseNeighbours(out); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestLetGoDeauthenticatesOnePhone(t *testing.T) {
	for _, tc := range []struct {
		mac     string
		wantRun []string
		wantErr bool
	}{
		{mac: "02:00:00:00:00:17", wantRun: []string{"systemctl start eventbox-let-go@wlan0-020000000017.service"}},
		{mac: "02:00:00:00:00:AB", wantRun: []string{"systemctl start eventbox-let-go@wlan0-0200000000ab.service"}},
		{mac: "02:00:00:00:00:17 ; reboot", wantErr: true},
		{mac: "all", wantErr: true},
		{mac: "", wantErr: true},
	} {
		w, nm := newWiFi(t)
		err := w.LetGo(context.Background(), tc.mac)
		if (err != nil) != tc.wantErr {
			t.Errorf("LetGo(%q) = %v, want error %v", tc.mac, err, tc.wantErr)
		}
		if got := nm.ran(); !reflect.DeepEqual(got, tc.wantRun) {
			t.Errorf("LetGo(%q) ran %q, want %q", tc.mac, got, tc.wantRun)
		}
	}
}

func TestLetGoInstanceNamesOnePhoneOnOneRadio(t *testing.T) {
	for _, tc := range []struct {
		iface, mac string
		want       string
		wantErr    bool
	}{
		{iface: "wlan0", mac: "02:00:00:00:00:17", want: "wlan0-020000000017"},
		{iface: "wlx00c0ca123456", mac: "AA:BB:CC:DD:EE:FF", want: "wlx00c0ca123456-aabbccddeeff"},
		{iface: "wlan0", mac: "02:00:00:00:00", wantErr: true},
		{iface: "wlan0;reboot", mac: "02:00:00:00:00:17", wantErr: true},
		{iface: "../wlan0", mac: "02:00:00:00:00:17", wantErr: true},
		{iface: "", mac: "02:00:00:00:00:17", wantErr: true},
	} {
		got, err := netsetup.LetGoInstance(tc.iface, tc.mac)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("LetGoInstance(%q, %q) = %q, %v; want %q, error %v", tc.iface, tc.mac, got, err, tc.want, tc.wantErr)
			continue
		}
		if tc.wantErr {
			continue
		}
		// What the daemon names, the root unit reads back unchanged.
		iface, mac, err := netsetup.ParseLetGoInstance(got)
		if err != nil || iface != tc.iface || mac != strings.ToLower(tc.mac) {
			t.Errorf("ParseLetGoInstance(%q) = %q, %q, %v; want %q, %q", got, iface, mac, err, tc.iface, strings.ToLower(tc.mac))
		}
	}
}

func TestParseLetGoInstanceRefusesAnythingElse(t *testing.T) {
	for _, inst := range []string{"", "wlan0", "wlan0-", "-020000000017", "wlan0-02000000001", "wlan0-0200000000177",
		"wlan0-02000000001g", "wlan0-02:00:00:00:00:17", "WLAN0-020000000017", "wlan 0-020000000017", "a-b-020000000017"} {
		if iface, mac, err := netsetup.ParseLetGoInstance(inst); err == nil {
			t.Errorf("ParseLetGoInstance(%q) = %q, %q, want an error", inst, iface, mac)
		}
	}
}

func TestDeauthenticateRunsIwWithoutAControlSocket(t *testing.T) {
	for _, tc := range []struct {
		iface, mac string
		wantRun    []string
	}{
		{iface: "wlan1", mac: "02:00:00:00:00:AB", wantRun: []string{"iw dev wlan1 station del 02:00:00:00:00:ab"}},
		{iface: "wlan1", mac: "ff:ff:ff:ff:ff", wantRun: nil},
		{iface: "wlan1 x", mac: "02:00:00:00:00:ab", wantRun: nil},
	} {
		_, nm := newWiFi(t)
		err := netsetup.Deauthenticate(context.Background(), nm, t.TempDir(), tc.iface, tc.mac)
		if (err != nil) != (tc.wantRun == nil) {
			t.Errorf("Deauthenticate(%q, %q) = %v", tc.iface, tc.mac, err)
		}
		if got := nm.ran(); !reflect.DeepEqual(got, tc.wantRun) {
			t.Errorf("Deauthenticate(%q, %q) ran %q, want %q", tc.iface, tc.mac, got, tc.wantRun)
		}
	}
}

// TestDeauthenticateAsksTheAccessPoint: with the access point's control
// socket there (wpa_supplicant's, as NetworkManager runs it), the phone is
// let go by the access point itself, which frees its slot; deleting the
// station in the kernel behind its back left a mac80211 access point
// counting the phone (8 of 8 taken, 6 on the radio).
func TestDeauthenticateAsksTheAccessPoint(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		wantErr      bool
	}{
		{name: "done", answer: "OK\n"},
		{name: "refused", answer: "FAIL\n", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ap, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(dir, "wlan0"), Net: "unixgram"})
			if err != nil {
				t.Fatal(err)
			}
			defer ap.Close()
			got := make(chan string, 1)
			go func() {
				buf := make([]byte, 512)
				n, from, err := ap.ReadFromUnix(buf)
				if err != nil {
					return
				}
				got <- string(buf[:n])
				// An event line first, as an attached monitor would see.
				_, _ = ap.WriteToUnix([]byte("<3>AP-STA-DISCONNECTED 02:00:00:00:00:17"), from)
				_, _ = ap.WriteToUnix([]byte(tc.answer), from)
			}()
			_, nm := newWiFi(t)
			err = netsetup.Deauthenticate(context.Background(), nm, dir, "wlan0", "02:00:00:00:00:17")
			if (err != nil) != tc.wantErr {
				t.Errorf("Deauthenticate = %v, want error %v", err, tc.wantErr)
			}
			if cmd := <-got; cmd != "DEAUTHENTICATE 02:00:00:00:00:17" {
				t.Errorf("the access point was sent %q", cmd)
			}
			if ran := nm.ran(); len(ran) != 0 {
				t.Errorf("with the access point's socket, it also ran %q", ran)
			}
		})
	}
}
