package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestBlackBoxHTTPS: with TLS_LISTEN_ADDR the binary serves HTTPS beside
// HTTP with a certificate from its own CA, which a client that trusts the
// CA from /ca.crt verifies for BASE_URL's host and the hotspot address;
// the CA stays the same across a restart.
func TestBlackBoxHTTPS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsAddr := l.Addr().String()
	l.Close()
	env := []string{"TLS_LISTEN_ADDR=" + tlsAddr, "BASE_URL=http://party.test"}
	d := startDaemon(t, bin, dir, env...)

	caDER := get(t, d.url+"/ca.crt")
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatalf("/ca.crt is not a certificate: %v", err)
	}
	if !ca.IsCA || !ca.PermittedDNSDomainsCritical || len(ca.PermittedDNSDomains) != 1 || ca.PermittedDNSDomains[0] != "party.test" {
		t.Fatalf("CA constraints: %v %v", ca.PermittedDNSDomains, ca.PermittedIPRanges)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for _, name := range []string{"party.test", "10.42.0.1"} {
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: name},
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, tlsAddr)
			},
		}}
		// The certificate is checked for name; the request names
		// BASE_URL's host, one the box answers to on any address.
		req, _ := http.NewRequest("GET", "https://"+name+"/api/health", nil)
		req.Host = "party.test"
		res, err := hc.Do(req)
		if err != nil {
			t.Fatalf("https as %s: %v", name, err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("https as %s: %d", name, res.StatusCode)
		}
	}

	// A restart keeps the CA: the booth tablet trusts it once.
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-d.done
	again := startDaemon(t, bin, dir, env...)
	if !bytes.Equal(get(t, again.url+"/ca.crt"), caDER) {
		t.Fatal("the CA changed across a restart")
	}
	if _, err := os.Stat(filepath.Join(dir, "tls", "ca-key.pem")); err != nil {
		t.Fatalf("the CA key is not in DATA_DIR/tls: %v", err)
	}
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return b
}
