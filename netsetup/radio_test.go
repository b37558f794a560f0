package netsetup_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventbox/netsetup"
)

// The radios the tests know: sysfs's uevent of wlan0's device and what
// `ethtool -i wlan0` prints for it.
const (
	uevent43455 = "DRIVER=brcmfmac\nSDIO_CLASS=00\nSDIO_ID=02D0:4345\nSDIO_REVISION=0.0\nMODALIAS=sdio:c00v02D0d4345\n"
	uevent43430 = "DRIVER=brcmfmac\nSDIO_CLASS=00\nSDIO_ID=02D0:A9A6\nMODALIAS=sdio:c00v02D0dA9A6\n"
	ueventUSB   = "DEVTYPE=usb_interface\nDRIVER=mt76x2u\nPRODUCT=e8d/7612/100\nINTERFACE=255/255/255\n"

	ethtoolStandard = "driver: brcmfmac\nversion: 7.45.234\nfirmware-version: 01-996384e2\nexpansion-rom-version: \nbus-info: mmc1:0001:1\n"
	ethtoolMinimal  = "driver: brcmfmac\nversion: 7.45.241\nfirmware-version: 01-703fd60\nexpansion-rom-version: \nbus-info: mmc1:0001:1\n"
	ethtool43430    = "driver: brcmfmac\nversion: 7.45.98\nfirmware-version: 01-e58d219f\nbus-info: mmc1:0001:1\n"
	ethtoolUSB      = "driver: mt76x2u\nversion: 6.12.47+rpt-rpi-v8\nfirmware-version: N/A\nbus-info: 1-1.3:1.0\n"
)

// radioWiFi is a box whose wlan0 is the radio of uevent, ethtool printing
// ethtoolOut ("": ethtool missing), with n phones on the hotspot.
func radioWiFi(t *testing.T, uevent, ethtoolOut string, n int) (netsetup.WiFi, *fakeNM) {
	t.Helper()
	w, nm := newWiFi(t)
	nm.stations, nm.ethtool = n, ethtoolOut
	if uevent != "" {
		dir := filepath.Join(w.Root, "sys/class/net/wlan0/device")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "uevent"), []byte(uevent), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return w, nm
}

func TestStationsCountsThePhonesOnTheHotspot(t *testing.T) {
	for _, n := range []int{0, 7, 8} {
		w, nm := radioWiFi(t, uevent43455, ethtoolStandard, n)
		got, err := w.Stations(context.Background())
		if err != nil || got != n {
			t.Errorf("%d phones: Stations = %d, %v", n, got, err)
		}
		if calls := nm.ran(); len(calls) != 1 || calls[0] != "iw dev wlan0 station dump" {
			t.Errorf("%d phones: ran %q, want one station dump", n, calls)
		}
	}
}

func TestStationsSaysWhenIwFails(t *testing.T) {
	w, nm := radioWiFi(t, uevent43455, ethtoolStandard, 3)
	nm.setFail("iw dev wlan0 station dump", "command failed: No such device (-19)")
	got, err := w.Stations(context.Background())
	if err == nil || !strings.Contains(err.Error(), "No such device") || !strings.Contains(err.Error(), "wlan0") {
		t.Errorf("Stations = %d, %v; want an error naming wlan0 and iw's words", got, err)
	}
}

func TestRadioCapacityFromTheFirmwareTable(t *testing.T) {
	tests := []struct {
		name, uevent, ethtool string
		setting               int
		want                  netsetup.Radio
		phones                int
		source, build         string
		reason                string // a word the reason holds when unknown
	}{
		{name: "43455, standard firmware", uevent: uevent43455, ethtool: ethtoolStandard,
			want:   netsetup.Radio{Interface: "wlan0", Driver: "brcmfmac", Chip: "43455", Firmware: "7.45.234", FirmwareID: "01-996384e2"},
			phones: 8, source: netsetup.CapacityFromTable, build: netsetup.FirmwareStandard},
		{name: "43455, Raspberry Pi's minimal firmware", uevent: uevent43455, ethtool: ethtoolMinimal,
			want:   netsetup.Radio{Interface: "wlan0", Driver: "brcmfmac", Chip: "43455", Firmware: "7.45.241", FirmwareID: "01-703fd60"},
			phones: 19, source: netsetup.CapacityFromTable, build: netsetup.FirmwareMinimal},
		{name: "43430", uevent: uevent43430, ethtool: ethtool43430,
			want:   netsetup.Radio{Interface: "wlan0", Driver: "brcmfmac", Chip: "43430", Firmware: "7.45.98", FirmwareID: "01-e58d219f"},
			phones: 10, source: netsetup.CapacityFromTable},
		{name: "a USB adapter", uevent: ueventUSB, ethtool: ethtoolUSB,
			want:   netsetup.Radio{Interface: "wlan0", Driver: "mt76x2u", Device: "usb e8d/7612"},
			source: netsetup.CapacityUnknown, reason: "mt76x2u"},
		{name: "43455 without ethtool", uevent: uevent43455,
			want:   netsetup.Radio{Interface: "wlan0", Driver: "brcmfmac", Chip: "43455"},
			source: netsetup.CapacityUnknown, reason: "firmware"},
		{name: "no sysfs, no ethtool",
			want:   netsetup.Radio{Interface: "wlan0"},
			source: netsetup.CapacityUnknown, reason: "driver"},
		{name: "the setting over the table", uevent: uevent43455, ethtool: ethtoolStandard, setting: 12,
			want:   netsetup.Radio{Interface: "wlan0", Driver: "brcmfmac", Chip: "43455", Firmware: "7.45.234", FirmwareID: "01-996384e2"},
			phones: 12, source: netsetup.CapacityFromSetting, build: netsetup.FirmwareStandard},
		{name: "the setting for an unknown radio", uevent: ueventUSB, ethtool: ethtoolUSB, setting: 40,
			want:   netsetup.Radio{Interface: "wlan0", Driver: "mt76x2u", Device: "usb e8d/7612"},
			phones: 40, source: netsetup.CapacityFromSetting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := radioWiFi(t, tt.uevent, tt.ethtool, 0)
			r, err := w.Radio(context.Background())
			if r != tt.want {
				t.Errorf("Radio = %+v, want %+v", r, tt.want)
			}
			if (err != nil) != (tt.ethtool == "" || tt.uevent == "") {
				t.Errorf("Radio's error = %v", err)
			}
			c := netsetup.RadioCapacity(r, tt.setting)
			if c.Phones != tt.phones || c.Source != tt.source || c.Build != tt.build {
				t.Errorf("RadioCapacity = %+v, want %d phones from %q, build %q", c, tt.phones, tt.source, tt.build)
			}
			if tt.source == netsetup.CapacityUnknown && !strings.Contains(c.Reason, tt.reason) {
				t.Errorf("unknown for the reason %q, want one naming %q", c.Reason, tt.reason)
			}
			if tt.source != netsetup.CapacityUnknown && c.Reason != "" {
				t.Errorf("known, yet a reason: %q", c.Reason)
			}
		})
	}
}
