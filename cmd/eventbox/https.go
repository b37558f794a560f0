package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"time"

	"eventbox/cmd/eventbox/boxca"
	"eventbox/daemon"
	"eventbox/netsetup"
)

// httpsSetup is the HTTPS side of serve: its listener and certificate.
type httpsSetup struct {
	ln  net.Listener
	tls *tls.Config
}

// setUpHTTPS opens the HTTPS listener of TLS_LISTEN_ADDR with the host's
// certificate (TLS_CERT_FILE/TLS_KEY_FILE) or one from the box's own CA
// for its names (<MDNS_NAME>.local, the hotspot address, BASE_URL's
// host), and tells the daemon (cfg.HTTPSPort, cfg.BoxCA). It returns nil
// when HTTPS is off (docs/decisions.md, "HTTPS on the box").
func setUpHTTPS(cf *configFlags, cfg *daemon.Config, log *slog.Logger, now func() time.Time) (*httpsSetup, error) {
	if cf.tlsListenAddr == "off" {
		return nil, nil
	}
	var cert tls.Certificate
	if cf.tlsCertFile != "" {
		c, err := tls.LoadX509KeyPair(cf.tlsCertFile, cf.tlsKeyFile)
		if err != nil {
			return nil, fmt.Errorf("loading TLS_CERT_FILE and TLS_KEY_FILE: %w", err)
		}
		cert = c
	} else {
		hotspot, _, _ := net.ParseCIDR(netsetup.DefaultAddress)
		var baseHost string
		if u, err := url.Parse(cfg.BaseURL); err == nil {
			baseHost = u.Hostname()
		}
		names := boxca.NamesFor(cf.mdnsName, hotspot, baseHost)
		ca, made, err := boxca.Load(filepath.Join(cfg.DataDir, "tls"), names, now)
		if err != nil {
			return nil, fmt.Errorf("setting up the box's certificate authority: %w", err)
		}
		if made {
			log.Info("made the box's certificate authority: devices that should use HTTPS trust it from /ca.crt",
				"names", names.DNS, "addresses", names.IPs)
		}
		cert = ca.Certificate()
		cfg.BoxCA = ca.CACertDER()
	}
	ln, err := net.Listen("tcp", cf.tlsListenAddr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", cf.tlsListenAddr, err)
	}
	cfg.HTTPSPort = ln.Addr().(*net.TCPAddr).Port
	return &httpsSetup{ln: &netsetup.RTOListener{TCPListener: ln.(*net.TCPListener), Logger: log}, tls: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}, nil
}
