package boxca_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/cmd/eventbox/boxca"
)

// TestCASignsOnlyServerCertificatesForTheBox: with the CA's key in hand,
// leaves for an email address (S/MIME), a URI or code signing are refused
// by Go's verifier and by `openssl verify` for every purpose they could
// serve (and for "any" where a name is involved); a server certificate
// for the box's name is still accepted by both.
func TestCASignsOnlyServerCertificatesForTheBox(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	a, _, err := boxca.Load(dir, boxca.NamesFor("eventbox", net.ParseIP("10.42.0.1"), ""), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	ca, caKey := caOf(t, dir, a)
	emailDN := pkix.Name{CommonName: "anyone", ExtraNames: []pkix.AttributeTypeAndValue{
		{Type: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}, Value: "anyone@google.com"}}}
	uri, _ := url.Parse("https://accounts.google.com/")
	smime := []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection}
	server := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	for _, tc := range []struct {
		name   string
		leaf   *x509.Certificate
		usages []x509.ExtKeyUsage // Go: what the leaf would be used for
		// openssl: the purposes that must refuse it ("any" only where a
		// name is at stake: OpenSSL checks no use for "any").
		purposes []string
		accept   bool
		// nameless: the leaf has no name Go constrains (Go reads no
		// address in the subject), so only its use can refuse it there.
		nameless bool
	}{
		{name: "an S/MIME leaf for anyone@google.com", usages: smime, purposes: []string{"smimesign", "smimeencrypt", "any"},
			leaf: &x509.Certificate{Subject: pkix.Name{CommonName: "anyone"}, EmailAddresses: []string{"anyone@google.com"}, ExtKeyUsage: smime}},
		{name: "an S/MIME leaf naming the address in its subject", usages: smime, purposes: []string{"smimesign", "smimeencrypt", "any"},
			leaf: &x509.Certificate{Subject: emailDN, ExtKeyUsage: smime}, nameless: true},
		{name: "an S/MIME leaf under .invalid", usages: smime, purposes: []string{"smimesign", "smimeencrypt"},
			leaf: &x509.Certificate{Subject: pkix.Name{CommonName: "x"}, EmailAddresses: []string{"a@box.invalid"}, ExtKeyUsage: smime}},
		{name: "a URI leaf", usages: server, purposes: []string{"sslserver", "any"},
			leaf: &x509.Certificate{Subject: pkix.Name{CommonName: "uri"}, URIs: []*url.URL{uri}, ExtKeyUsage: server}},
		{name: "a code-signing leaf", usages: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}, purposes: []string{"smimesign", "sslserver"}, nameless: true,
			leaf: &x509.Certificate{Subject: pkix.Name{CommonName: "Software Vendor"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}}},
		{name: "a server leaf for the box's name", usages: server, purposes: []string{"sslserver", "any"}, accept: true,
			leaf: &x509.Certificate{Subject: pkix.Name{CommonName: "eventbox.local"}, DNSNames: []string{"eventbox.local"},
				IPAddresses: []net.IP{net.ParseIP("10.42.0.1")}, ExtKeyUsage: server}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaf := sign(t, ca, caKey, tc.leaf, now)
			roots := x509.NewCertPool()
			roots.AddCert(ca)
			for _, usages := range [][]x509.ExtKeyUsage{tc.usages, {x509.ExtKeyUsageAny}} {
				if tc.nameless && usages[0] == x509.ExtKeyUsageAny {
					continue
				}
				_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: usages, CurrentTime: now})
				if tc.accept != (err == nil) {
					t.Errorf("Go, usages %v: %v, want accepted %v", usages, err, tc.accept)
				}
			}
			openssl, err := exec.LookPath("openssl")
			if err != nil {
				t.Log("no openssl here: Go's verifier only")
				return
			}
			leafFile := filepath.Join(t.TempDir(), "leaf.pem")
			os.WriteFile(leafFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw}), 0o600)
			for _, purpose := range tc.purposes {
				out, err := exec.Command(openssl, "verify", "-purpose", purpose, "-CAfile", filepath.Join(dir, "ca.pem"), leafFile).CombinedOutput()
				if tc.accept != (err == nil) {
					t.Errorf("openssl verify -purpose %s: %v %s, want accepted %v", purpose, err, strings.TrimSpace(string(out)), tc.accept)
				}
			}
		})
	}
}

// TestAnOlderCAIsMadeAnew: a CA kept from a version without the email,
// URI and server-only limits is replaced at the next start.
func TestAnOlderCAIsMadeAnew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	names := boxca.NamesFor("eventbox", net.ParseIP("10.42.0.1"), "")
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	old := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "eventbox CA for eventbox.local"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true,
		PermittedDNSDomainsCritical: true, PermittedDNSDomains: []string{"eventbox.local"},
		PermittedIPRanges: []*net.IPNet{{IP: net.ParseIP("10.42.0.1").To4(), Mask: net.CIDRMask(32, 32)}}}
	der, err := x509.CreateCertificate(rand.Reader, old, old, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(filepath.Join(dir, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(filepath.Join(dir, "ca-key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	a, made, err := boxca.Load(dir, names, func() time.Time { return now })
	if err != nil || !made {
		t.Fatalf("Load = made %v, %v; want a new CA", made, err)
	}
	ca, _ := x509.ParseCertificate(a.CACertDER())
	if len(ca.ExtKeyUsage) != 1 || ca.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth || len(ca.PermittedEmailAddresses) == 0 {
		t.Errorf("the new CA: usages %v, email constraints %v", ca.ExtKeyUsage, ca.PermittedEmailAddresses)
	}
	if _, made, err := boxca.Load(dir, names, func() time.Time { return now }); err != nil || made {
		t.Errorf("the next start: made %v, %v; want the same CA", made, err)
	}
}

func caOf(t *testing.T, dir string, a *boxca.Authority) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	kb, err := os.ReadFile(filepath.Join(dir, "ca-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	kp, _ := pem.Decode(kb)
	key, err := x509.ParseECPrivateKey(kp.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(a.CACertDER())
	if err != nil {
		t.Fatal(err)
	}
	return ca, key
}

func sign(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, tmpl *x509.Certificate, now time.Time) *x509.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl.SerialNumber = big.NewInt(now.UnixNano())
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
