package netsetup

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
)

// Radio is the hotspot's radio as the box can tell it without root: its
// driver and chip from sysfs (the interface's device's uevent), its
// firmware's version from `ethtool -i` (the kernel's ETHTOOL_GDRVINFO,
// which any user may ask). What cannot be read is "".
type Radio struct {
	// Interface is the hotspot's interface, e.g. "wlan0".
	Interface string
	// Driver is the kernel driver, e.g. "brcmfmac", "mt76x2u".
	Driver string
	// Chip is the Broadcom/Cypress chip of a Raspberry Pi's own radio,
	// "43455" or "43430"; "" for any other radio.
	Chip string
	// Device is the bus and ids of a radio that is not a known chip, e.g.
	// "usb e8d/7612" or "sdio 02D0:A9AF".
	Device string
	// Firmware is the firmware's version, e.g. "7.45.241". On brcmfmac it
	// is ethtool's "version" (the firmware's own revision): its
	// "firmware-version" is the build's id, kept in FirmwareID.
	Firmware, FirmwareID string
}

// The chips of the Raspberry Pis' own radios, by SDIO vendor:device.
var sdioChips = map[string]string{
	"02D0:4345": "43455", // Pi 3B+, 4, 5: CYW43455
	"02D0:A9A6": "43430", // Pi 3B, Zero W, Zero 2 W: CYW43430/43438
}

// Radio reads the hotspot interface's radio. It fills what it can; the
// error joins what could not be read.
func (w WiFi) Radio(ctx context.Context) (Radio, error) {
	r := Radio{Interface: w.iface()}
	var errs []error
	if err := r.readUevent(rooted(w.Root, path.Join("/sys/class/net", r.Interface, "device/uevent"))); err != nil {
		errs = append(errs, err)
	}
	out, err := w.Runner.Run(ctx, "ethtool", "-i", r.Interface)
	if err != nil {
		errs = append(errs, fmt.Errorf("reading %s's firmware with ethtool: %w: %s", r.Interface, err, strings.TrimSpace(string(out))))
	} else {
		r.readDrvInfo(out)
	}
	return r, errors.Join(errs...)
}

// readUevent fills the driver and the chip (or the device's ids) from a
// uevent file of sysfs.
func (r *Radio) readUevent(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading %s's driver: %w", r.Interface, err)
	}
	v := keyValues(data, "=")
	r.Driver = v["DRIVER"]
	switch {
	case v["SDIO_ID"] != "":
		id := strings.ToUpper(v["SDIO_ID"])
		if r.Chip = sdioChips[id]; r.Chip == "" {
			r.Device = "sdio " + id
		}
	case v["PRODUCT"] != "":
		// vendor/product/bcdDevice, in hex.
		p := strings.Split(v["PRODUCT"], "/")
		r.Device = "usb " + strings.Join(p[:min(2, len(p))], "/")
	case v["PCI_ID"] != "":
		r.Device = "pci " + v["PCI_ID"]
	}
	return nil
}

// readDrvInfo fills the firmware from `ethtool -i`'s output.
func (r *Radio) readDrvInfo(out []byte) {
	v := keyValues(out, ":")
	if r.Driver == "" {
		r.Driver = v["driver"]
	}
	fw := v["firmware-version"]
	if fw == "N/A" {
		fw = ""
	}
	if v["driver"] == "brcmfmac" {
		if ver := v["version"]; ver != "n/a" {
			r.Firmware = ver
		}
		r.FirmwareID = fw
		return
	}
	r.Firmware = fw
}

// keyValues reads "key<sep> value" lines.
func keyValues(data []byte, sep string) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), sep); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

// Stations counts the phones associated with the hotspot's interface
// (`iw dev <if> station dump`: nl80211's station dump, which needs no
// privilege). Only the count leaves: the phones' addresses are not kept.
func (w WiFi) Stations(ctx context.Context) (int, error) {
	list, err := w.StationList(ctx)
	if err != nil {
		return 0, fmt.Errorf("counting the phones: %w", err)
	}
	return len(list), nil
}

// Where a radio's capacity comes from.
const (
	// CapacityFromTable: the published figures for the chip and firmware.
	CapacityFromTable = "firmware table"
	// CapacityFromSetting: the owner's (or the box's configuration's).
	CapacityFromSetting = "setting"
	// CapacityUnknown: no figure, and no guess.
	CapacityUnknown = "unknown"
)

// The two firmware builds of the CYW43455 (Capacity.Build).
const (
	// FirmwareStandard is Cypress's standard build (Debian's
	// firmware-brcm80211): about 8 phones as an access point.
	FirmwareStandard = "standard"
	// FirmwareMinimal is Raspberry Pi's minimal build, 7.45.241: about 19.
	FirmwareMinimal = "minimal"
)

// minimalFirmware is the version of Raspberry Pi's minimal 43455 build.
const minimalFirmware = "7.45.241"

// Capacity is about how many phones a radio holds as an access point.
type Capacity struct {
	// Phones is the figure; 0 when unknown.
	Phones int
	// Source is CapacityFromTable, CapacityFromSetting or CapacityUnknown.
	Source string
	// Build is FirmwareStandard or FirmwareMinimal for a 43455, else "".
	Build string
	// Reason says why the figure is unknown ("" when it is known).
	Reason string
}

// RadioCapacity says about how many phones r holds: setting when it is
// more than 0, else the published figures (docs/decisions, "How many
// phones the radio holds"): a 43455 holds about 8 on the standard
// firmware and 19 on Raspberry Pi's minimal one, a 43430 about 10.
// Anything else is unknown, with the reason, never a guess.
func RadioCapacity(r Radio, setting int) Capacity {
	c := tableCapacity(r)
	if setting > 0 {
		c.Phones, c.Source, c.Reason = setting, CapacityFromSetting, ""
	}
	return c
}

// tableCapacity looks r up in the published figures.
func tableCapacity(r Radio) Capacity {
	switch {
	case r.Driver == "":
		return Capacity{Source: CapacityUnknown, Reason: "the radio's driver could not be read"}
	case r.Chip == "43430":
		return Capacity{Phones: 10, Source: CapacityFromTable}
	case r.Chip == "43455" && r.Firmware == "":
		return Capacity{Source: CapacityUnknown, Reason: "the 43455's firmware version could not be read (is ethtool installed?)"}
	case r.Chip == "43455" && r.Firmware == minimalFirmware:
		return Capacity{Phones: 19, Source: CapacityFromTable, Build: FirmwareMinimal}
	case r.Chip == "43455":
		return Capacity{Phones: 8, Source: CapacityFromTable, Build: FirmwareStandard}
	}
	return Capacity{Source: CapacityUnknown, Reason: "no published figure for this radio (driver " + r.Driver + ")"}
}
