package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"eventbox/assets"
	"eventbox/booth"
	"eventbox/daemon"
	"eventbox/netsetup"
	"eventbox/store"
)

// defaultMemoryLimit is the Go heap's soft limit unless GOMEMLIMIT says
// otherwise.
const defaultMemoryLimit = 384 << 20

// shutdownGrace bounds how long open requests may finish after a signal.
const shutdownGrace = 10 * time.Second

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	err := l.UnmarshalText([]byte(s))
	return l, err
}

// runServe runs the daemon until ctx is cancelled (SIGINT/SIGTERM), then
// shuts down in order: HTTP first, then the workers, then the store.
func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", stderr)
	cf := newConfigFlags(fs, getenv)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	level, err := parseLevel(cf.logLvl)
	if err != nil {
		cf.errs = append(cf.errs, fmt.Errorf("LOG_LEVEL %q must be debug, info, warn or error", cf.logLvl))
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cf.cfg.Logger = logger
	cf.cfg.OwnHosts = ownHosts(cf.mdnsName)
	cf.cfg.UI = uiFS(cf.devUI)
	if err := cf.validate(); err != nil {
		fmt.Fprintf(stderr, "eventbox: configuration:\n%v\n", err)
		return 2
	}
	if getenv("GOMEMLIMIT") == "" {
		// A soft heap limit for a 1 GB Pi: the GC works harder before the
		// heap grows past it (docs/decisions.md, "Memory").
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	if err := serve(ctx, cf); err != nil {
		logger.Error("eventbox stopped", "error", err)
		return 1
	}
	return 0
}

func uiFS(devDir string) fs.FS {
	if devDir != "" {
		return os.DirFS(devDir)
	}
	return assets.Web()
}

// serve runs the daemon configured by cf (validated) until ctx ends.
func serve(ctx context.Context, cf *configFlags) error {
	cfg := cf.cfg
	log := cfg.Logger
	st, err := store.Open(ctx, cfg.DataDir, store.Options{Logger: log.With("component", "store"), Now: cfg.Now})
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("another eventbox is already running with DATA_DIR %s: %w", cfg.DataDir, err)
		}
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Error("closing store", "error", err)
		}
	}()
	// Missing booth hardware never stops the daemon: Open falls back to a
	// device without hardware and says why in the log.
	dev, err := booth.Open(ctx, booth.Config{
		ButtonPin: cf.boothButtonPin, LEDPin: cf.boothLEDPin, Logger: log,
	})
	if err != nil {
		log.Warn("booth hardware off", "error", err)
	}
	cfg.Booth = dev
	// The printed signage names the hotspot's Wi-Fi when the box runs one
	// (eventbox netsetup hotspot).
	cfg.HotspotWiFi = func(context.Context) (string, string, bool) {
		return netsetup.ReadHotspotWiFi("", "")
	}
	srv, err := daemon.New(ctx, cfg, st)
	if err != nil {
		return errors.Join(err, dev.Close())
	}
	ln, err := net.Listen("tcp", cf.listenAddr)
	if err != nil {
		// srv.Run, which would close the booth device, never runs.
		return errors.Join(fmt.Errorf("listening on %s: %w", cf.listenAddr, err), dev.Close())
	}
	// The daemon's limits: header timeout and size, idle connections, no
	// write timeout; booth streams end at shutdown instead of waiting out
	// the grace period.
	httpSrv := srv.HTTPServer()
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := srv.Run(workCtx); err != nil {
			log.Error("background work stopped", "error", err)
		}
	}()
	if cf.mdnsName != "off" {
		adv, err := netsetup.NewAdvertiser(netsetup.MDNSConfig{
			Name: cf.mdnsName, Port: ln.Addr().(*net.TCPAddr).Port, Logger: log.With("component", "mdns"),
		})
		if err != nil {
			log.Warn("mDNS off", "error", err)
		} else {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := adv.Run(workCtx); err != nil {
					log.Warn("mDNS stopped", "error", err)
				}
			}()
		}
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	log.Info("eventbox is up", "version", version, "url", localURL(ln.Addr()), "data_dir", cfg.DataDir)

	select {
	case err := <-serveErr:
		stopWork()
		wg.Wait()
		return fmt.Errorf("serving http: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := httpSrv.Shutdown(shutCtx); err != nil {
		log.Warn("open requests cut off at shutdown", "error", err)
	}
	stopWork()
	wg.Wait()
	log.Info("stopped")
	return nil
}

// ownHosts are the names the daemon answers to besides BASE_URL's host,
// localhost and the box's addresses: <MDNS_NAME>.local unless mDNS is off.
func ownHosts(mdnsName string) []string {
	if mdnsName == "" || mdnsName == "off" {
		return nil
	}
	return []string{mdnsName + ".local"}
}

// localURL is the address to type into a browser on this machine.
func localURL(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "localhost"
	}
	return fmt.Sprintf("http://%s", net.JoinHostPort(host, fmt.Sprint(tcp.Port)))
}
