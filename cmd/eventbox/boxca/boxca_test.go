package boxca_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"eventbox/cmd/eventbox/boxca"
)

// TestChainVerifiesOnlyForTheBox: the server certificate verifies under
// the box's CA for eventbox.local, the hotspot address and BASE_URL's
// host; the CA's name constraints make a certificate it signs for any
// other name or address fail, even with the CA key in hand; the CA is
// kept across starts and made anew when the names change.
func TestChainVerifiesOnlyForTheBox(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC) }
	names := boxca.NamesFor("eventbox", net.ParseIP("10.42.0.1"), "photos.example.org")
	a, made, err := boxca.Load(dir, names, now)
	if err != nil || !made {
		t.Fatalf("load: %v, made %v", err, made)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(a.CACertPEM())
	leaf := a.Certificate().Leaf
	verify := func(c *x509.Certificate, name string) error {
		_, err := c.Verify(x509.VerifyOptions{Roots: roots, DNSName: name, CurrentTime: now()})
		return err
	}
	for _, name := range []string{"eventbox.local", "EVENTBOX.local", "10.42.0.1", "photos.example.org"} {
		if err := verify(leaf, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := verify(leaf, "example.com"); err == nil {
		t.Error("the box's certificate verifies for example.com")
	}

	// With the CA's key, sign certificates for other names: the
	// constraints refuse them.
	kb, err := os.ReadFile(filepath.Join(dir, "ca-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	kp, _ := pem.Decode(kb)
	caKey, err := x509.ParseECPrivateKey(kp.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(a.CACertDER())
	if err != nil {
		t.Fatal(err)
	}
	forged := func(dns string, ip net.IP) *x509.Certificate {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: dns},
			NotBefore: now().Add(-time.Hour), NotAfter: now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if dns != "" {
			tmpl.DNSNames = []string{dns}
		}
		if ip != nil {
			tmpl.IPAddresses = []net.IP{ip}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := x509.ParseCertificate(der)
		return c
	}
	for _, tt := range []struct {
		name string
		c    *x509.Certificate
		host string
	}{
		{"a bank's name", forged("www.bank.example", nil), "www.bank.example"},
		{"another .local name", forged("printer.local", nil), "printer.local"},
		{"another address", forged("", net.ParseIP("192.168.1.1")), "192.168.1.1"},
	} {
		if err := verify(tt.c, tt.host); err == nil {
			t.Errorf("%s: a certificate the CA signed verifies", tt.name)
		}
	}
	if err := verify(forged("cam.eventbox.local", nil), "cam.eventbox.local"); err != nil {
		t.Errorf("a name under the box's own is refused: %v", err)
	}

	again, made, err := boxca.Load(dir, names, now)
	if err != nil || made || string(again.CACertPEM()) != string(a.CACertPEM()) {
		t.Fatalf("second start: made %v, err %v, same CA %v", made, err, string(again.CACertPEM()) == string(a.CACertPEM()))
	}
	moved, made, err := boxca.Load(dir, boxca.NamesFor("eventbox", net.ParseIP("10.42.0.1"), "party.example.net"), now)
	if err != nil || !made || string(moved.CACertPEM()) == string(a.CACertPEM()) {
		t.Fatalf("new BASE_URL: made %v, err %v", made, err)
	}
}
