package mail_test

import (
	"testing"

	eventmail "eventbox/daemon/mail"
)

// TestReachable: only an address the internet reaches may go in a
// guest's mail as the box's own link.
func TestReachable(t *testing.T) {
	t.Parallel()
	for origin, want := range map[string]bool{
		"http://eventbox.local":          false,
		"https://eventbox.local:8443":    false,
		"http://eventbox":                false,
		"http://localhost:8080":          false,
		"http://127.0.0.1:8080":          false,
		"http://10.42.0.1":               false,
		"http://192.168.4.1":             false,
		"http://172.20.1.1":              false,
		"http://169.254.10.1":            false,
		"http://100.64.1.1":              false,
		"http://[fe80::1]":               false,
		"http://[fd00::1]":               false,
		"http://[::1]":                   false,
		"http://box.home.arpa":           false,
		"http://box.lan":                 false,
		"ftp://photos.example.org":       false,
		"":                               false,
		"https://photos.example.org":     true,
		"https://fotos.lia-marco.it:443": true,
		"http://203.0.113.7":             true,
		"http://[2001:db8::7]":           true,
	} {
		if got := eventmail.Reachable(origin); got != want {
			t.Errorf("Reachable(%q) = %v, want %v", origin, got, want)
		}
	}
}
