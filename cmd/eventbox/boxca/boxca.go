// Package boxca is the box's own certificate authority, for HTTPS without
// the internet: a CA restricted by X.509 name constraints to the box's own
// names and addresses (so a device that trusts it trusts nothing else),
// kept in DATA_DIR, and a server certificate for those names issued from
// it at every start (docs/decisions.md, "HTTPS on the box" and "The box's
// CA: what it can sign"). It vouches for TLS servers only: no email
// address, no URI, no use but server authentication.
package boxca

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const (
	// caValidity is the CA's life: a booth tablet trusts it once.
	caValidity = 10 * 365 * 24 * time.Hour
	// leafValidity is the server certificate's life; it is issued anew
	// at every start, so it never runs out on a box that restarts.
	leafValidity = 397 * 24 * time.Hour
	// backdate covers a clock a little behind (a Pi without its RTC
	// before NTP).
	backdate = time.Hour
)

// Names are what the box's certificate names.
type Names struct {
	// DNS names: <MDNS_NAME>.local and BASE_URL's host when it is a
	// name. Lower case, no final dot.
	DNS []string
	// IPs: the hotspot address and BASE_URL's host when it is an
	// address.
	IPs []net.IP
}

// Authority is the box's CA and the server certificate it issued. It is
// safe for concurrent use once made.
type Authority struct {
	caCert *x509.Certificate
	caPEM  []byte
	leaf   tls.Certificate
}

// Load reads the CA from dir (DATA_DIR/tls), or makes one when there is
// none or when the stored one's constraints do not cover names (a new
// BASE_URL: devices must trust the new CA) or lack the email, URI and
// server-only limits (a CA made by an older version), then issues a server
// certificate for names. now is the clock; made reports a new CA.
func Load(dir string, names Names, now func() time.Time) (a *Authority, made bool, err error) {
	if len(names.DNS) == 0 && len(names.IPs) == 0 {
		return nil, false, errors.New("the box's certificate needs at least one name or address")
	}
	keyPath, certPath := filepath.Join(dir, "ca-key.pem"), filepath.Join(dir, "ca.pem")
	caCert, caKey, err := read(certPath, keyPath)
	if err != nil || !covers(caCert, names) || now().After(caCert.NotAfter.Add(-leafValidity)) {
		if caCert, caKey, err = newCA(names, now()); err != nil {
			return nil, false, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, false, fmt.Errorf("making %s: %w", dir, err)
		}
		der, err := x509.MarshalECPrivateKey(caKey)
		if err != nil {
			return nil, false, fmt.Errorf("encoding the CA key: %w", err)
		}
		if err := writeAtomic(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
			return nil, false, err
		}
		if err := writeAtomic(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caCert.Raw}), 0o644); err != nil {
			return nil, false, err
		}
		made = true
	}
	leaf, err := issue(caCert, caKey, names, now())
	if err != nil {
		return nil, false, err
	}
	return &Authority{caCert: caCert, leaf: leaf,
		caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caCert.Raw})}, made, nil
}

// CACertPEM is the CA certificate, PEM, for devices to trust.
func (a *Authority) CACertPEM() []byte { return bytes.Clone(a.caPEM) }

// CACertDER is the CA certificate, DER.
func (a *Authority) CACertDER() []byte { return bytes.Clone(a.caCert.Raw) }

// Certificate is the server certificate with its chain (leaf, CA).
func (a *Authority) Certificate() tls.Certificate { return a.leaf }

func read(certPath, keyPath string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cb, err := os.ReadFile(certPath)
	if err != nil {
		return nil, nil, err
	}
	kb, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, err
	}
	cp, _ := pem.Decode(cb)
	kp, _ := pem.Decode(kb)
	if cp == nil || kp == nil {
		return nil, nil, errors.New("not PEM")
	}
	cert, err := x509.ParseCertificate(cp.Bytes)
	if err != nil {
		return nil, nil, err
	}
	key, err := x509.ParseECPrivateKey(kp.Bytes)
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

// covers reports whether the CA's constraints are exactly those names
// would give it, email and URI names shut out and server authentication
// its only use. A CA made before those last two were added does not:
// Load makes a new one.
func covers(ca *x509.Certificate, names Names) bool {
	want := constraints(names)
	return slices.Equal(ca.PermittedDNSDomains, want.PermittedDNSDomains) &&
		slices.EqualFunc(ca.PermittedIPRanges, want.PermittedIPRanges, func(a, b *net.IPNet) bool { return a.String() == b.String() }) &&
		slices.Equal(ca.PermittedEmailAddresses, want.PermittedEmailAddresses) &&
		slices.Equal(ca.ExcludedEmailAddresses, want.ExcludedEmailAddresses) &&
		slices.Equal(ca.PermittedURIDomains, want.PermittedURIDomains) &&
		slices.Equal(ca.ExcludedURIDomains, want.ExcludedURIDomains) &&
		slices.Equal(ca.ExtKeyUsage, caUsage()) && len(ca.UnknownExtKeyUsage) == 0
}

// caUsage is the one use of the CA and of whatever it signs: TLS servers.
func caUsage() []x509.ExtKeyUsage { return []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth} }

// noName is a constraint no real email address or URI host meets: the
// reserved .invalid domain (RFC 2606). A permitted list of it shuts the
// name type out for OpenSSL, which ignores an excluded empty constraint;
// the excluded empty constraint shuts it out for Go even under .invalid.
const noName = ".invalid"

// constraints are the CA's name constraints: only the box's names (and
// names under them) and exactly its addresses, no email address and no
// URI. Without an address, every address is excluded, since no IP
// constraint would mean any.
func constraints(names Names) *x509.Certificate {
	t := &x509.Certificate{PermittedDNSDomainsCritical: true}
	t.PermittedDNSDomains = slices.Sorted(slices.Values(names.DNS))
	for _, ip := range names.IPs {
		bits := 8 * len(ip)
		if v4 := ip.To4(); v4 != nil {
			ip, bits = v4, 32
		}
		t.PermittedIPRanges = append(t.PermittedIPRanges, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
	}
	if len(t.PermittedIPRanges) == 0 {
		t.ExcludedIPRanges = []*net.IPNet{
			{IP: net.IPv4zero.To4(), Mask: net.CIDRMask(0, 32)},
			{IP: net.IPv6zero, Mask: net.CIDRMask(0, 128)},
		}
	}
	if len(t.PermittedDNSDomains) == 0 {
		// Likewise: no DNS constraint would mean any name.
		t.ExcludedDNSDomains = []string{""}
	}
	// The box serves web pages: no email address (S/MIME) and no URI
	// may be vouched for.
	t.PermittedEmailAddresses, t.ExcludedEmailAddresses = []string{noName}, []string{""}
	t.PermittedURIDomains, t.ExcludedURIDomains = []string{noName}, []string{""}
	return t
}

func serial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("making a serial number: %w", err)
	}
	return n, nil
}

func newCA(names Names, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("making the CA key: %w", err)
	}
	sn, err := serial()
	if err != nil {
		return nil, nil, err
	}
	tmpl := constraints(names)
	label := "eventbox"
	if len(names.DNS) > 0 {
		label = names.DNS[0]
	}
	tmpl.SerialNumber = sn
	tmpl.Subject = pkix.Name{CommonName: "eventbox CA for " + label, Organization: []string{"eventbox"}}
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-backdate), now.Add(caValidity)
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	// Limits every certificate under it to TLS servers: verifiers (Go,
	// OpenSSL, browsers) refuse a leaf for S/MIME or code signing.
	tmpl.ExtKeyUsage = caUsage()
	tmpl.BasicConstraintsValid, tmpl.IsCA, tmpl.MaxPathLenZero = true, true, true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("making the CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the CA certificate back: %w", err)
	}
	return cert, key, nil
}

func issue(ca *x509.Certificate, caKey *ecdsa.PrivateKey, names Names, now time.Time) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("making the server key: %w", err)
	}
	sn, err := serial()
	if err != nil {
		return tls.Certificate{}, err
	}
	cn := "eventbox"
	if len(names.DNS) > 0 {
		cn = names.DNS[0]
	}
	tmpl := &x509.Certificate{
		SerialNumber: sn, Subject: pkix.Name{CommonName: cn},
		DNSNames: names.DNS, IPAddresses: names.IPs,
		NotBefore: now.Add(-backdate), NotAfter: now.Add(leafValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("issuing the server certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("reading the server certificate back: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der, ca.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

// NamesFor gathers the box's names: host.local for the mDNS name (unless
// off), the hotspot address, and BASE_URL's host.
func NamesFor(mdnsName string, hotspot net.IP, baseHost string) Names {
	var n Names
	add := func(h string) {
		h = strings.TrimSuffix(strings.ToLower(h), ".")
		if h == "" {
			return
		}
		if ip := net.ParseIP(h); ip != nil {
			if !slices.ContainsFunc(n.IPs, ip.Equal) {
				n.IPs = append(n.IPs, ip)
			}
			return
		}
		if !slices.Contains(n.DNS, h) {
			n.DNS = append(n.DNS, h)
		}
	}
	if mdnsName != "" && mdnsName != "off" {
		add(mdnsName + ".local")
	}
	if hotspot != nil {
		add(hotspot.String())
	}
	add(baseHost)
	return n
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr, os.Chmod(tmp, mode)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
