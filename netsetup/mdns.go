package netsetup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/grandcat/zeroconf"
	"github.com/pion/logging"
	"github.com/pion/mdns/v2"
	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// DefaultInstance is the DNS-SD instance name of the web interface.
const DefaultInstance = "eventbox"

// DefaultPollInterval is how often an Advertiser looks for interfaces that
// came up, went down or changed address.
const DefaultPollInterval = 5 * time.Second

// MDNSConfig configures an Advertiser.
type MDNSConfig struct {
	// Name is the host label: the box answers for <Name>.local. A DNS label
	// of letters, digits and '-' (e.g. "eventbox"). The caller handles
	// MDNS_NAME=off by not starting an Advertiser.
	Name string
	// Port is the HTTP port advertised in the service record, 1–65535.
	Port int
	// Instance is the DNS-SD instance name (DefaultInstance when empty).
	Instance string
	// PollInterval is how often interfaces are looked at
	// (DefaultPollInterval when 0).
	PollInterval time.Duration
	// Logger receives start, change and failure lines. Must not be nil.
	Logger *slog.Logger
}

// Advertiser announces the web interface over multicast DNS: the service
// record (_http._tcp, via grandcat/zeroconf) and the address record of
// <Name>.local (via pion/mdns, since zeroconf answers no direct A query).
// Each answer carries the address of the interface the query came in on.
type Advertiser struct {
	cfg MDNSConfig
	// list and start are the outside world; tests replace them.
	list  func() ([]iface, error)
	start func(cfg MDNSConfig, ifaces []iface) (io.Closer, error)
}

// iface is an interface worth advertising on, with its addresses.
type iface struct {
	net.Interface
	addrs []netip.Addr
}

var labelPattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// NewAdvertiser checks cfg and returns an Advertiser; nothing is sent until
// Run.
func NewAdvertiser(cfg MDNSConfig) (*Advertiser, error) {
	if !labelPattern.MatchString(cfg.Name) {
		return nil, fmt.Errorf("mdns name %q: want a DNS label of letters, digits and '-'", cfg.Name)
	}
	if cfg.Port < 1 || cfg.Port > 65535 {
		return nil, fmt.Errorf("mdns port %d: want 1–65535", cfg.Port)
	}
	if cfg.Instance == "" {
		cfg.Instance = DefaultInstance
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Logger == nil {
		return nil, errors.New("mdns: nil logger")
	}
	return &Advertiser{cfg: cfg, list: listInterfaces, start: startResponders}, nil
}

// Run advertises until ctx is done, then withdraws the service and returns
// nil. Every PollInterval it looks at the interfaces that are up, and when
// they change (the hotspot came up, an address changed) it restarts the
// responders on the new set, which also announces the service there. A
// failure to start is logged and retried at the next poll; Run does not
// return early. Run must be called once.
func (a *Advertiser) Run(ctx context.Context) error {
	log := a.cfg.Logger
	ticker := time.NewTicker(a.cfg.PollInterval)
	defer ticker.Stop()
	var (
		current io.Closer
		lastKey string
		started bool
		lastErr string
	)
	stop := func() {
		if current != nil {
			if err := current.Close(); err != nil {
				log.WarnContext(ctx, "stopping mdns", "error", err)
			}
			current = nil
		}
	}
	defer stop()
	for {
		ifaces, err := a.list()
		if err != nil {
			if msg := err.Error(); msg != lastErr {
				log.WarnContext(ctx, "listing interfaces for mdns", "error", err)
				lastErr = msg
			}
		} else if key := interfacesKey(ifaces); !started || key != lastKey {
			stop()
			started, lastKey = true, key
			if len(ifaces) == 0 {
				log.InfoContext(ctx, "mdns waiting for a network interface")
			} else if current, err = a.start(a.cfg, ifaces); err != nil {
				current = nil
				started = false // retry at the next poll
				if msg := err.Error(); msg != lastErr {
					log.WarnContext(ctx, "starting mdns", "error", err)
					lastErr = msg
				}
			} else {
				lastErr = ""
				log.InfoContext(ctx, "mdns advertising", "host", a.cfg.Name+".local",
					"port", a.cfg.Port, "interfaces", interfaceNames(ifaces))
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// listInterfaces returns the interfaces that are up, multicast-capable, not
// loopback, and have at least one address.
func listInterfaces() ([]iface, error) {
	all, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing interfaces: %w", err)
	}
	var out []iface
	for _, ifc := range all {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagMulticast == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		var ips []netip.Addr
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(n.IP); ok {
					ips = append(ips, ip.Unmap())
				}
			}
		}
		if len(ips) > 0 {
			out = append(out, iface{Interface: ifc, addrs: ips})
		}
	}
	return out, nil
}

// interfacesKey summarises ifaces so that a change of interface or address
// changes the key.
func interfacesKey(ifaces []iface) string {
	parts := make([]string, 0, len(ifaces))
	for _, ifc := range ifaces {
		addrs := make([]string, len(ifc.addrs))
		for i, a := range ifc.addrs {
			addrs[i] = a.String()
		}
		slices.Sort(addrs)
		parts = append(parts, fmt.Sprintf("%d/%s=%s", ifc.Index, ifc.Name, strings.Join(addrs, ",")))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func interfaceNames(ifaces []iface) []string {
	names := make([]string, len(ifaces))
	for i, ifc := range ifaces {
		names[i] = ifc.Name
	}
	return names
}

// responders are the two mDNS stacks running on one set of interfaces.
type responders struct {
	service *zeroconf.Server
	host    *mdns.Conn
}

// Close withdraws the service (zeroconf sends a goodbye) and stops both.
func (r *responders) Close() error {
	r.service.Shutdown()
	if err := r.host.Close(); err != nil {
		return fmt.Errorf("closing the mdns host responder: %w", err)
	}
	return nil
}

// startResponders starts the service and host responders on ifaces. Both
// bind *:5353 with SO_REUSEADDR (Go sets it for multicast addresses), so they
// coexist with each other and with an avahi-daemon that allows other stacks.
func startResponders(cfg MDNSConfig, ifaces []iface) (io.Closer, error) {
	nifs := make([]net.Interface, len(ifaces))
	for i, ifc := range ifaces {
		nifs[i] = ifc.Interface
	}
	host, err := startHostResponder(cfg, nifs)
	if err != nil {
		return nil, err
	}
	// No addresses given: zeroconf then answers with the addresses of the
	// interface each query arrived on.
	service, err := zeroconf.RegisterProxy(cfg.Instance, "_http._tcp", "local.", cfg.Port,
		cfg.Name, nil, []string{"path=/"}, nifs)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("registering the mdns service: %w", err), host.Close())
	}
	return &responders{service: service, host: host}, nil
}

// startHostResponder answers A and AAAA queries for <Name>.local.
func startHostResponder(cfg MDNSConfig, nifs []net.Interface) (*mdns.Conn, error) {
	l4, err4 := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(224, 0, 0, 0), Port: 5353})
	l6, err6 := net.ListenUDP("udp6", &net.UDPAddr{IP: net.ParseIP("ff02::"), Port: 5353})
	if err4 != nil && err6 != nil {
		return nil, fmt.Errorf("listening on udp port 5353: %w", errors.Join(err4, err6))
	}
	var p4 *ipv4.PacketConn
	var p6 *ipv6.PacketConn
	if err4 == nil {
		p4 = ipv4.NewPacketConn(l4)
	}
	if err6 == nil {
		p6 = ipv6.NewPacketConn(l6)
	}
	conn, err := mdns.NewServer(p4, p6,
		mdns.WithName("eventbox"),
		mdns.WithLocalNames(cfg.Name+".local"),
		mdns.WithInterfaces(nifs...),
		mdns.WithRecordTypes(dnsmessage.TypeA, dnsmessage.TypeAAAA),
		mdns.WithLoggerFactory(pionLogs{log: cfg.Logger.With("component", "mdns")}),
	)
	if err != nil {
		var cerr []error
		if l4 != nil {
			cerr = append(cerr, l4.Close())
		}
		if l6 != nil {
			cerr = append(cerr, l6.Close())
		}
		return nil, errors.Join(fmt.Errorf("starting the mdns host responder: %w", err), errors.Join(cerr...))
	}
	return conn, nil
}

// pionLogs sends pion's logs to slog. pion warns about single packets (a
// query on an interface it has not joined yet, which happens until the next
// poll), so its warnings go to debug and its errors to warn.
type pionLogs struct{ log *slog.Logger }

var _ logging.LoggerFactory = pionLogs{}

func (p pionLogs) NewLogger(scope string) logging.LeveledLogger {
	return pionLogger{log: p.log.With("scope", scope)}
}

type pionLogger struct{ log *slog.Logger }

var _ logging.LeveledLogger = pionLogger{}

func (p pionLogger) Trace(msg string)                  {}
func (p pionLogger) Tracef(format string, args ...any) {}
func (p pionLogger) Debug(msg string)                  { p.log.Debug(msg) }
func (p pionLogger) Debugf(format string, args ...any) { p.log.Debug(fmt.Sprintf(format, args...)) }
func (p pionLogger) Info(msg string)                   { p.log.Debug(msg) }
func (p pionLogger) Infof(format string, args ...any)  { p.log.Debug(fmt.Sprintf(format, args...)) }
func (p pionLogger) Warn(msg string)                   { p.log.Debug(msg) }
func (p pionLogger) Warnf(format string, args ...any)  { p.log.Debug(fmt.Sprintf(format, args...)) }
func (p pionLogger) Error(msg string)                  { p.log.Warn(msg) }
func (p pionLogger) Errorf(format string, args ...any) { p.log.Warn(fmt.Sprintf(format, args...)) }
