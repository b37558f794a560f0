package daemon

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"eventbox/booth"
	"eventbox/daemon/api/box"
	"eventbox/daemon/network"
	"eventbox/daemon/outbox"
	"eventbox/daemon/passwords"
	"eventbox/daemon/setup"
	"eventbox/daemon/storage"
	"eventbox/daemon/update"
	"eventbox/imaging"
	"eventbox/netsetup"
)

// Config is everything the daemon needs, and only that, validated once by
// cmd/eventbox from the environment and flags. Nothing below cmd reads the
// environment. Where to listen, the mDNS name and the booth's GPIO lines
// are the command's: it listens itself (Server.HTTPServer), advertises the
// name and passes the box's names in OwnHosts, and opens the GPIO lines
// into Booth.
type Config struct {
	// DataDir holds the database, media and backups.
	DataDir string
	// BaseURL, when set, is the absolute origin used in QR codes, mails and
	// invitation links ("http://eventbox.local"); empty: derived from each
	// request's Host.
	BaseURL string
	// AdminUsername names the first owner; login without a username means
	// this account.
	AdminUsername string
	// AdminPassword is the first owner's password on a fresh DATA_DIR;
	// empty: one is generated.
	AdminPassword string
	// MetricsToken is the bearer token of /api/metrics; empty: 404.
	MetricsToken string
	// MaxUploadMB, MaxVideoMB cap upload bodies; MaxVideoSeconds caps
	// video duration.
	MaxUploadMB     int
	MaxVideoMB      int
	MaxVideoSeconds int
	// UpdateURL is the release manifest; empty: update checks answer 502.
	UpdateURL string
	// Version is the running binary's version ("1.2.0", "dev").
	Version string
	// UpdateKey verifies release manifests (the key built into the
	// binary; tests give their own). Nil refuses every manifest.
	UpdateKey ed25519.PublicKey
	// Updater, when not nil, is the updater cmd/eventbox booted with
	// (DATA_DIR/update, UpdateURL, UpdateKey, Version); nil: New makes
	// one from those fields.
	Updater *update.Updater
	// Restart, when not nil, restarts the daemon through the service
	// manager once an update is installed (updater "systemd"); it must
	// not block. Nil: the new version runs at the next start ("none").
	Restart func()
	// Backups is the backup service (a backup before an update, the
	// backup-age metric); nil: the box's own (daemon/backups).
	Backups Backups
	// SysRoot is where the metrics find /sys; empty means "/". Tests
	// point it at fake files.
	SysRoot string
	// Booth is the photo booth's button and LED; cmd/eventbox opens it
	// from BOOTH_BUTTON_PIN and BOOTH_LED_PIN. Server.Run runs it and
	// closes it when it returns, so one Device serves one Server. Nil: no
	// hardware (booth.NoOp).
	Booth booth.Device
	// HotspotWiFi, when not nil, tells the Wi-Fi network the box runs as
	// a hotspot (its name and WPA passphrase, "" for an open network) for
	// the printed signage's "join the Wi-Fi" step; ok is false when the
	// box runs none. cmd/eventbox reads netsetup's hotspot profile. It
	// must be safe for concurrent use.
	HotspotWiFi func(ctx context.Context) (ssid, password string, ok bool)
	// NetworkRunner runs nmcli and iw for the Network screen
	// (daemon/network); nil: no NetworkManager on this machine, and the
	// screen says so. cmd/eventbox gives netsetup.ExecRunner when nmcli
	// is installed; tests give netsetup/nmtest's stand-in.
	NetworkRunner netsetup.Runner
	// PhoneCapacity is about how many phones the hotspot's radio holds,
	// as cmd/eventbox's WIFI_PHONE_CAPACITY says; 0: the published figure
	// for the radio, or unknown (netsetup.RadioCapacity). The Network
	// screen's own figure, when the owner gives one, wins over it.
	PhoneCapacity int
	// The crowd watch of the hotspot (daemon/network, crowd.go):
	// PhoneSampleEvery is how often the phones are counted (0: every
	// minute, WIFI_SAMPLE_EVERY); FullNotice how long the hotspot stays
	// nearly full before the hosts are told (0: ten minutes,
	// WIFI_FULL_NOTICE); LetGoIdle how long a phone must have made no
	// request, with none in progress, before the box lets it go while the
	// hotspot is nearly full (0: five minutes; negative: never,
	// WIFI_LET_GO_IDLE=off).
	PhoneSampleEvery, FullNotice, LetGoIdle time.Duration
	// First-run setup (daemon/setup): SetupNetwork applies the setup
	// page's Wi-Fi, country and time zone (nil: no setup page, as under
	// make run); SetupWindow is how long after the start the page of an
	// unset box is open (0: setup.DefaultWindow). The page sets the box's
	// clock from the phone's through daemon/clock while it is unsure.
	SetupNetwork setup.Network
	SetupWindow  time.Duration
	// PortalPass is how long a phone that went on through the captive
	// portal page gets "connected" answers to its probes, by address, from
	// its continue and from each page it asks of the box; 0 means
	// portal.DefaultPass (ten minutes).
	PortalPass time.Duration
	// BoothCountdown is how long the LED shows the countdown after a
	// button press, matching the booth page's countdown; 0 means 3 s.
	BoothCountdown time.Duration
	// CUPS is the print server's address (cmd/eventbox's CUPS_SERVER): a
	// socket's path or host:port; empty means cups.DefaultAddr, the local
	// CUPS's socket (daemon/printing).
	CUPS string
	// PrintPoll is how often a print on its way asks CUPS how it goes;
	// zero means 2 s. Tests shorten it.
	PrintPoll time.Duration
	// PrintDevices are the kinds of printer (device URI schemes) the
	// console may add; nil means printing.DefaultDeviceSchemes. Tests add
	// cups-pdf.
	PrintDevices []string
	// HTTPSPort is the port the box also serves HTTPS on (cmd/eventbox's
	// TLS_LISTEN_ADDR); 0: no HTTPS. The booth page links to it.
	HTTPSPort int
	// BoxCA is the box's own CA certificate (DER) that devices may trust
	// for HTTPS (cmd/eventbox/boxca), served at /ca.crt and /ca.mobileconfig;
	// nil when there is none to trust (no HTTPS, or the host's own
	// certificate).
	BoxCA []byte
	// OwnHosts are host names the box answers to besides BASE_URL's host,
	// localhost and its own addresses, e.g. "eventbox.local" (docs/design.md,
	// "The box's own names"). cmd/eventbox fills it from MDNS_NAME. A
	// request for any other Host gets the captive portal's redirect (pages)
	// or 421 misdirected (API). Case and a final dot do not matter.
	OwnHosts []string
	// InterfaceAddrs lists the box's interface addresses, which are own
	// names too; nil means net.InterfaceAddrs. It is called again (at most
	// every few seconds) when a Host names an address it did not list, so
	// a new hotspot or Wi-Fi address is seen. Tests fake it.
	InterfaceAddrs func() ([]net.Addr, error)
	// UploadWindow and UploadMinBytes pace upload bodies: every
	// UploadWindow must bring at least UploadMinBytes, else the upload is
	// cut (408 timeout) and its temp file removed (docs/decisions.md,
	// "Slow and concurrent uploads"). Zero values mean 30 s and 16 KiB.
	UploadWindow   time.Duration
	UploadMinBytes int64

	// ExportQuiet is how long the cloud export waits after the last guest
	// upload started or ended before it sends its next file; zero means
	// 10 s (docs/decisions.md, "Cloud export").
	ExportQuiet time.Duration
	// CloudTransport makes the cloud export's WebDAV and S3 requests; nil
	// means each client's default transport. Tests put faults in it.
	CloudTransport http.RoundTripper
	// MailTLS is the base TLS configuration for the mail server (its
	// roots); nil means the system's. Tests trust their own SMTP server's
	// certificate with it.
	MailTLS *tls.Config
	// StorageMargin is the free space, in bytes, below which the storage
	// guard refuses uploads; 0 means the default (StorageMargin).
	StorageMargin int64
	// Statfs answers the free bytes of the file system holding a path;
	// nil means statfs(2). Tests fake a filling card with it.
	Statfs func(path string) (int64, error)
	// Mounts lists the system's mount points, where a USB drive for
	// backups is looked for; nil reads /proc/self/mountinfo. USBRoots are
	// the folders drives are mounted under; nil means /media, /run/media
	// and /mnt (daemon/backupzip, ChooseTarget).
	Mounts   func() ([]string, error)
	USBRoots []string

	// ImageWorkers is the size of the image worker pool; 0 picks one from
	// the number of CPUs.
	ImageWorkers int
	// ImageOutOfProcess, when not nil, makes the variants of photos whose
	// decoding would not fit the image memory budget in a process of its
	// own (cmd/eventbox starts its own binary's decode-image; package
	// isolate). Nil leaves them without variants: their jobs are set aside.
	ImageOutOfProcess imaging.OutOfProcessMaker
	// PasswordCost is the bcrypt cost; 0 means the library default. Tests
	// lower it.
	PasswordCost int
	// UI is the embedded web interface; nil serves no pages.
	UI fs.FS
	// Pages, when not nil, is UI already prepared (PreparePages) and is
	// used instead of it: daemons started many times in one process (the
	// tests) share one copy rather than each translating and hashing
	// every file again.
	Pages *Pages
	// NetChanges is the source of network changes that wake the outbox;
	// nil watches the routing table (outbox.RouteChanges). Tests inject
	// their own signals.
	NetChanges outbox.Changes
	// NetSettle is the quiet time after a network change before the
	// outbox is woken; zero means outbox.DefaultSettle.
	NetSettle time.Duration
	// NoticeWindow is the window in which bursts of notices (photos,
	// guestbook messages) are folded into one webhook delivery; zero
	// means outbox.DefaultWindow.
	NoticeWindow time.Duration
	// Logger must not be nil.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Clock reaches the system's clock (clock_wiring.go); zero: the real one.
	Clock ClockHooks
}

// DefaultConfig returns the configuration of a fresh machine with nothing
// set (docs/configuration in README.md).
func DefaultConfig() Config {
	return Config{
		DataDir:         "./data",
		AdminUsername:   "admin",
		MaxUploadMB:     25,
		MaxVideoMB:      200,
		MaxVideoSeconds: 60,
	}
}

// Validate checks the configuration and normalises BaseURL. Every problem
// is reported, each naming its variable.
func (c *Config) Validate() error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("DATA_DIR must not be empty"))
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			errs = append(errs, fmt.Errorf("BASE_URL %q must be an origin such as http://eventbox.local", c.BaseURL))
		} else {
			c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
		}
	}
	if strings.TrimSpace(c.AdminUsername) == "" || len(c.AdminUsername) > 60 {
		errs = append(errs, errors.New("ADMIN_USERNAME must be 1 to 60 characters"))
	}
	if c.AdminPassword != "" {
		if msg := passwords.Problem(c.AdminPassword); msg != "" {
			errs = append(errs, fmt.Errorf("ADMIN_PASSWORD %s", msg))
		}
	}
	for name, v := range map[string]int{"MAX_UPLOAD_MB": c.MaxUploadMB, "MAX_VIDEO_MB": c.MaxVideoMB, "MAX_VIDEO_SECONDS": c.MaxVideoSeconds} {
		if v < 1 || v > 100000 {
			errs = append(errs, fmt.Errorf("%s must be a whole number from 1 to 100000", name))
		}
	}
	if c.PhoneCapacity < 0 || c.PhoneCapacity > MaxPhoneCapacity {
		errs = append(errs, fmt.Errorf("WIFI_PHONE_CAPACITY must be a whole number from 1 to %d, or 0 for the radio's published figure", MaxPhoneCapacity))
	}
	if c.Logger == nil {
		errs = append(errs, errors.New("logger must not be nil"))
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return errors.Join(errs...)
}

// MaxPhoneCapacity is the most phones PhoneCapacity may say a radio holds.
const MaxPhoneCapacity = network.MaxPhoneCapacity

// Backups is what the updates and the metrics need of a backup service
// (box.Backups): a backup now, and when the last good one was made.
type Backups = box.Backups

// StorageMargin is the free space the storage guard keeps on the card
// with cfg, in bytes: cfg.StorageMargin, or the default figure
// (storage.DefaultMargin). The command line's restore keeps the same room.
func StorageMargin(cfg Config) int64 {
	if cfg.StorageMargin > 0 {
		return cfg.StorageMargin
	}
	return storage.DefaultMargin(cfg.MaxUploadMB, cfg.MaxVideoMB)
}
