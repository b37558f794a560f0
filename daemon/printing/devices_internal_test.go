package printing

import (
	"testing"

	"eventbox/daemon/printing/cups"
)

// TestWhichPrintersTheConsoleAdds: only USB, IPP on this box (ipp-usb)
// and announced printers may be added; IPP printers need no driver; a
// queue name is made of the model's words.
func TestWhichPrintersTheConsoleAdds(t *testing.T) {
	a := New(Config{})
	for _, tc := range []struct {
		uri                 string
		allowed, driverless bool
	}{
		{"usb://Canon/SELPHY%20CP1300?serial=123", true, false},
		{"ipp://localhost:60000/ipp/print", true, true},
		{"ipps://127.0.0.1:60000/ipp/print", true, true},
		{"ipp://[::1]:60000/ipp/print", true, true},
		{"ipp://192.0.2.7/ipp/print", false, true},
		{"ipp://localhost.evil.example/ipp/print", false, true},
		{"dnssd://Canon%20SELPHY%20CP1500._ipp._tcp.local/?uuid=1", true, true},
		{"dnssd://Old%20Laser._pdl-datastream._tcp.local/", true, false},
		{"socket://192.0.2.7:9100", false, false},
		{"file:///etc/passwd", false, false},
		{"cups-pdf:/", false, false},
		{"usb:\x00", false, false},
	} {
		if got := a.allowedDevice(tc.uri); got != tc.allowed {
			t.Errorf("allowedDevice(%q) = %v, want %v", tc.uri, got, tc.allowed)
		}
		if got := driverless(tc.uri); got != tc.driverless {
			t.Errorf("driverless(%q) = %v, want %v", tc.uri, got, tc.driverless)
		}
	}
	for _, tc := range []struct {
		d    cups.Device
		want string
	}{
		{cups.Device{MakeModel: "Canon SELPHY CP1300", Info: "SELPHY"}, "Canon_SELPHY_CP1300"},
		{cups.Device{MakeModel: "Unknown", Info: "HP LaserJet (USB)"}, "HP_LaserJet_USB"},
		{cups.Device{MakeModel: "Épson ÉcoTank", Info: ""}, "pson_coTank"},
		{cups.Device{MakeModel: "///"}, "printer"},
	} {
		if got := suggestName(tc.d); got != tc.want || !validName.MatchString(got) {
			t.Errorf("suggestName(%+v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
