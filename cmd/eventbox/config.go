package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"eventbox/cmd/eventbox/internal/sdnotify"
	"eventbox/daemon"
	"eventbox/daemon/update"
)

// configFlags binds every configuration variable to a flag whose default
// comes from the environment (or the built-in default), so flags override
// the environment. What the daemon uses goes into cfg; what only the
// command uses (where to listen, the mDNS name, the booth's GPIO lines)
// stays here.
type configFlags struct {
	cfg daemon.Config
	// launched is set when an older binary exec'd this one as the
	// installed update (update.LaunchedEnv).
	launched bool
	// notify speaks to systemd when it runs the daemon (Type=notify).
	notify *sdnotify.Notifier
	errs   []error
	devUI  string
	logLvl string
	// listenAddr is where the HTTP server listens, e.g. ":8080".
	listenAddr string
	// mdnsName is advertised as <name>.local; "off" disables mDNS. The
	// daemon gets the name it answers to in cfg.OwnHosts.
	mdnsName string
	// tlsListenAddr is where the HTTPS server listens, e.g. ":443";
	// "off" (the default outside the systemd unit) serves HTTP only.
	tlsListenAddr string
	// tlsCertFile and tlsKeyFile are the host's own certificate and key
	// (PEM); empty: the box's own CA issues one (cmd/eventbox/boxca).
	tlsCertFile, tlsKeyFile string
	// boothButtonPin and boothLEDPin name GPIO lines; empty: no hardware.
	// serve opens them into cfg.Booth.
	boothButtonPin string
	boothLEDPin    string
	// releaseKeysFile adds trusted release keys to the built-in one
	// (update.LoadKeys); it must be root's.
	releaseKeysFile string
}

// Defaults of the settings the command keeps (README.md, "Configuration").
const (
	defaultListenAddr = ":8080"
	defaultMDNSName   = "eventbox"
	defaultTLSAddr    = "off"
)

func newConfigFlags(fs *flag.FlagSet, getenv func(string) string) *configFlags {
	c := &configFlags{cfg: daemon.DefaultConfig(), logLvl: "info", listenAddr: defaultListenAddr, mdnsName: defaultMDNSName, tlsListenAddr: defaultTLSAddr,
		releaseKeysFile: update.KeysFile}
	str := func(p *string, env, name, help string) {
		if v := getenv(env); v != "" {
			*p = v
		}
		fs.StringVar(p, name, *p, help+" (env "+env+")")
	}
	num := func(p *int, env, name, help string) {
		if v := getenv(env); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				c.errs = append(c.errs, fmt.Errorf("%s=%q is not a whole number", env, v))
			} else {
				*p = n
			}
		}
		fs.IntVar(p, name, *p, help+" (env "+env+")")
	}
	// dur reads a duration such as 5m; off (when allowed) is negative.
	dur := func(p *time.Duration, env, name, help string, off bool) {
		if v := getenv(env); v != "" {
			d, err := time.ParseDuration(v)
			switch {
			case off && v == "off":
				*p = -1
			case err != nil || d <= 0:
				c.errs = append(c.errs, fmt.Errorf("%s=%q is not a duration such as 5m", env, v))
			default:
				*p = d
			}
		}
		fs.DurationVar(p, name, *p, help+" (env "+env+")")
	}
	cfg := &c.cfg
	str(&c.listenAddr, "LISTEN_ADDR", "listen-addr", "address to listen on")
	str(&c.tlsListenAddr, "TLS_LISTEN_ADDR", "tls-listen-addr", "address to serve HTTPS on, e.g. :443; off disables")
	str(&c.tlsCertFile, "TLS_CERT_FILE", "tls-cert-file", "the host's own certificate chain (PEM) for HTTPS; empty: the box's own CA makes one")
	str(&c.tlsKeyFile, "TLS_KEY_FILE", "tls-key-file", "the key (PEM) of TLS_CERT_FILE")
	str(&cfg.DataDir, "DATA_DIR", "data-dir", "directory for the database, media and backups")
	str(&cfg.BaseURL, "BASE_URL", "base-url", "absolute origin for links in QR codes and mails; empty: from each request")
	str(&cfg.AdminUsername, "ADMIN_USERNAME", "admin-username", "username of the first owner")
	str(&cfg.AdminPassword, "ADMIN_PASSWORD", "admin-password", "first owner's password on a fresh data dir; empty: generated")
	str(&cfg.MetricsToken, "METRICS_TOKEN", "metrics-token", "bearer token for /api/metrics; empty: metrics off")
	num(&cfg.MaxUploadMB, "MAX_UPLOAD_MB", "max-upload-mb", "image upload limit in MB")
	num(&cfg.MaxVideoMB, "MAX_VIDEO_MB", "max-video-mb", "video upload limit in MB")
	num(&cfg.MaxVideoSeconds, "MAX_VIDEO_SECONDS", "max-video-seconds", "video duration limit in seconds")
	str(&cfg.CUPS, "CUPS_SERVER", "cups-server", "the print server: a socket's path or host:port; empty: the local CUPS's socket /run/cups/cups.sock")
	num(&cfg.PhoneCapacity, "WIFI_PHONE_CAPACITY", "wifi-phone-capacity", "about how many phones the hotspot's radio holds; 0: the published figure for the radio, or unknown")
	dur(&cfg.PhoneSampleEvery, "WIFI_SAMPLE_EVERY", "wifi-sample-every", "how often the phones on the hotspot are counted; 0: every minute", false)
	dur(&cfg.FullNotice, "WIFI_FULL_NOTICE", "wifi-full-notice", "how long the hotspot stays nearly full before the hosts are told; 0: 10m", false)
	dur(&cfg.LetGoIdle, "WIFI_LET_GO_IDLE", "wifi-let-go-idle", "how long a phone must be idle before the box lets it go while the hotspot is nearly full; 0: 5m; off: never", true)
	str(&cfg.UpdateURL, "UPDATE_URL", "update-url", "release manifest URL; empty: update checks off")
	str(&c.releaseKeysFile, "RELEASE_KEYS_FILE", "release-keys-file", "root's file of further trusted release keys, one a line")
	str(&c.boothButtonPin, "BOOTH_BUTTON_PIN", "booth-button-pin", "GPIO line of the booth's shutter button, e.g. GPIO17")
	str(&c.boothLEDPin, "BOOTH_LED_PIN", "booth-led-pin", "GPIO line of the booth's status LED, e.g. GPIO27")
	str(&c.mdnsName, "MDNS_NAME", "mdns-name", "advertise <name>.local; off disables")
	str(&c.logLvl, "LOG_LEVEL", "log-level", "debug, info, warn or error")
	fs.StringVar(&c.devUI, "dev-ui", "", "serve the web pages from this directory instead of the embedded copy (development)")
	return c
}

// validate checks the settings the command keeps and then the daemon's
// (daemon.Config.Validate), after the parse errors already found. Every
// problem is reported, each naming its variable.
func (c *configFlags) validate() error {
	errs := c.errs
	if c.listenAddr == "" {
		errs = append(errs, errors.New("LISTEN_ADDR must not be empty"))
	}
	if c.tlsListenAddr == "" {
		errs = append(errs, errors.New("TLS_LISTEN_ADDR must not be empty (use off to disable)"))
	}
	if (c.tlsCertFile == "") != (c.tlsKeyFile == "") {
		errs = append(errs, errors.New("TLS_CERT_FILE and TLS_KEY_FILE go together"))
	}
	if c.mdnsName == "" {
		errs = append(errs, errors.New("MDNS_NAME must not be empty (use off to disable)"))
	}
	return errors.Join(append(errs, c.cfg.Validate())...)
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("eventbox "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
