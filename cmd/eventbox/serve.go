package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/kardianos/service"

	"eventbox/assets"
	"eventbox/booth"
	"eventbox/cmd/eventbox/internal/sdnotify"
	"eventbox/daemon"
	"eventbox/daemon/update"
	"eventbox/imaging/isolate"
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
	if self, err := os.Executable(); err == nil {
		cf.cfg.ImageOutOfProcess = isolate.New(isolate.Config{Command: []string{self, isolate.Command},
			Logger: logger.With("component", "imaging")})
	} else {
		logger.Warn("large photos will get no variants: this binary cannot be found to decode them apart", "error", err)
	}
	cf.launched = getenv(update.LaunchedEnv) != ""
	if getenv(SetupPreviewEnv) != "" {
		// make run-setup: the setup page opens on a fresh data dir outside
		// the service, and only logs what it would apply.
		cf.cfg.SetupNetwork = setupPreview{log: logger}
	}
	cf.notify = sdnotify.FromEnv(getenv)
	if err := cf.validate(); err != nil {
		fmt.Fprintf(stderr, "eventbox: configuration:\n%v\n", err)
		return 2
	}
	if getenv("GOMEMLIMIT") == "" {
		// A soft heap limit for a 1 GB Pi: the GC works harder before the
		// heap grows past it (docs/decisions.md, "Memory").
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	if getenv("GOMAXPROCS") == "" {
		if was, n := runtime.GOMAXPROCS(0), threadsFor(runtime.GOMAXPROCS(0)); n != was {
			runtime.GOMAXPROCS(n)
			logger.Info("one CPU: Go code runs on two threads, one free for requests while an image is made", "threads", n)
		}
	}
	if err := serve(ctx, cf, args); err != nil {
		logger.Error("eventbox stopped", "error", err)
		return 1
	}
	return 0
}

// threadsFor is how many threads run Go code at once (GOMAXPROCS) on a
// machine where Go would run gomaxprocs: two at least. On a machine of
// one CPU the image worker's goroutine holds the only thread while it
// decodes, and a request that comes meanwhile waits for the runtime to
// notice it and take the thread back, up to 20 ms. With a second thread,
// one of them waits for the network and the kernel gives it the CPU as
// soon as a request comes (docs/decisions.md, "A thread for requests").
func threadsFor(gomaxprocs int) int { return max(gomaxprocs, 2) }

func uiFS(devDir string) fs.FS {
	if devDir != "" {
		return os.DirFS(devDir)
	}
	return assets.Web()
}

// serve runs the daemon configured by cf (validated) until ctx ends, or
// until an installed update asks for the restart. It first makes the
// updater's start-up decision (bootUpdate; args are serve's, for the exec
// of an installed update). The listener and mDNS live for the whole run;
// the store and the daemon are opened by serveOnce, again after a restore
// (daemon.Server.Restarts), when the next store.Open swaps the restored
// data in.
func serve(ctx context.Context, cf *configFlags, args []string) error {
	log := cf.cfg.Logger
	up, trial, err := bootUpdate(cf, args)
	if err != nil {
		return err
	}
	defer up.Close()
	// systemd (Type=notify): READY=1 ends the start, WATCHDOG=1 proves
	// the daemon alive. A trial says READY only once its health is
	// confirmed, so an update that hangs is stopped by the unit's start
	// timeout and rolled back by the next start (docs/decisions.md,
	// "Updates: what the box runs").
	sup := &supervision{notify: cf.notify, log: log.With("component", "service")}
	defer sup.send("STOPPING=1")
	ln, err := net.Listen("tcp", cf.listenAddr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cf.listenAddr, err)
	}
	defer ln.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	// Cancelled before wg.Wait (defers run last first).
	watchCtx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWatch()
	wg.Go(func() { sup.keepWatchdog(watchCtx) })
	advCtx, stopAdv := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAdv()
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
				if err := adv.Run(advCtx); err != nil {
					log.Warn("mDNS stopped", "error", err)
				}
			}()
		}
	}
	for {
		restart, err := serveOnce(ctx, cf, keepOpen{&netsetup.RTOListener{TCPListener: ln.(*net.TCPListener), Logger: log}}, up, trial, sup)
		if err != nil || !restart {
			return err
		}
		log.Info("restarting over the restored data")
	}
}

// keepOpen is the daemon's listener as one http.Server sees it: its
// Shutdown wakes the server's Accept with a past deadline but leaves the
// socket open for the next server (connections wait in the backlog
// meanwhile). serve closes the listener itself. Each connection it
// accepts is retransmitted sooner than the kernel's default
// (netsetup.RTOListener).
type keepOpen struct{ *netsetup.RTOListener }

func (k keepOpen) Close() error { return k.SetDeadline(time.Unix(1, 0)) }

// serveOnce opens the store and runs one daemon on ln until ctx ends, an
// installed update asks for the restart or a trial update is not healthy
// (restart false: the process exits, and the service manager starts the
// update), or the daemon asks to be restarted after a restore (restart
// true), then shuts down in order: HTTP first, then the workers, then the
// store.
func serveOnce(ctx context.Context, cf *configFlags, ln keepOpen, up *update.Updater, trial bool, sup *supervision) (restart bool, err error) {
	cfg := cf.cfg
	log := cfg.Logger
	cfg.Version, cfg.UpdateKey, cfg.Updater = version, releasePublicKey(), up
	updateRestart := make(chan struct{}, 1)
	if canRestart() {
		cfg.Restart = func() {
			select {
			case updateRestart <- struct{}{}:
			default:
			}
		}
	}
	// The media area's walk runs in the background once the daemon serves
	// (its media sweep starts with one), so a start with many photos is
	// not held by it.
	st, err := store.Open(ctx, cfg.DataDir, store.Options{Logger: log.With("component", "store"), Now: cfg.Now, MediaSweepLater: true})
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return false, fmt.Errorf("another eventbox is already running with DATA_DIR %s: %w", cfg.DataDir, err)
		}
		return false, err
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
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	// HTTPS beside HTTP when TLS_LISTEN_ADDR asks for it (https.go): its
	// listener is opened again at each start, and closed by Shutdown.
	secure, err := setUpHTTPS(cf, &cfg, log, now)
	if err != nil {
		return false, errors.Join(err, dev.Close())
	}
	closeSecure := func() error {
		if secure == nil {
			return nil
		}
		return secure.ln.Close()
	}
	// The Network screen drives NetworkManager with nmcli where it is
	// installed; elsewhere (make run) it says it is not available.
	var nmcli netsetup.Runner
	if _, err := exec.LookPath("nmcli"); err == nil {
		nmcli = netsetup.ExecRunner{}
		cfg.NetworkRunner = nmcli
	}
	// The printed signs' Wi-Fi, as NetworkManager tells it.
	cfg.HotspotWiFi = hotspotWiFi(nmcli, log)
	// The first-run setup page (daemon/setup): under the service, its
	// network choices go to the root step through DATA_DIR/setup.txt and
	// a restart; the clock is set from the phone's when it may be.
	if cfg.Restart != nil {
		cfg.SetupNetwork = setupHandoff{dir: cfg.DataDir, restart: cfg.Restart}
	}
	srv, err := daemon.New(ctx, cfg, st)
	if err != nil {
		return false, errors.Join(err, dev.Close(), closeSecure())
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
	if err := ln.SetDeadline(time.Time{}); err != nil {
		stopWork()
		wg.Wait()
		return false, fmt.Errorf("reusing the listener: %w", err)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	var httpsSrv *http.Server
	httpsErr := make(chan error, 1)
	if secure != nil {
		httpsSrv = srv.HTTPServer()
		httpsSrv.TLSConfig = secure.tls
		go func() { httpsErr <- httpsSrv.ServeTLS(secure.ln, "", "") }()
		log.Info("serving https", "addr", secure.ln.Addr().String())
	}
	log.Info("eventbox is up", "version", version, "url", localURL(ln.Addr()), "data_dir", cfg.DataDir)
	sup.serving(localURL(ln.Addr()))
	defer sup.serving("")
	if !trial {
		sup.send("READY=1")
	}
	unhealthy := make(chan error, 1)
	if trial {
		// This binary is an update on trial: it must find itself
		// healthy within a minute, else it exits and the next start
		// puts the previous one back.
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := up.Confirm(workCtx, healthCheck(localURL(ln.Addr()))); err != nil {
				if workCtx.Err() == nil {
					unhealthy <- err
				}
				return
			}
			sup.send("READY=1")
		}()
	}

	var stopErr error
	select {
	case err := <-serveErr:
		stopWork()
		wg.Wait()
		return false, errors.Join(fmt.Errorf("serving http: %w", err), closeSecure())
	case err := <-httpsErr:
		stopErr = fmt.Errorf("serving https: %w", err)
	case <-ctx.Done():
		log.Info("shutting down")
	case <-updateRestart:
		log.Info("restarting: into the installed update, or to apply the setup page's network")
	case stopErr = <-unhealthy:
		log.Error("the update is not healthy: exiting, the previous version comes back at the next start", "error", stopErr)
	case <-srv.Restarts():
		restart = true
		log.Info("stopping for a restart")
	}
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := httpSrv.Shutdown(shutCtx); err != nil {
		log.Warn("open requests cut off at shutdown", "error", err)
	}
	<-serveErr // its Accept has returned: the next server has the listener alone
	if httpsSrv != nil {
		if err := httpsSrv.Shutdown(shutCtx); err != nil {
			log.Warn("open https requests cut off at shutdown", "error", err)
		}
	}
	stopWork()
	wg.Wait()
	log.Info("stopped")
	return restart, stopErr
}

// bootUpdate runs the updater's start-up decision (daemon/update, Boot):
// roll back an update that never confirmed itself healthy, and exec the
// installed update when there is one. It answers the updater, which holds
// the update lock until closed, and whether this binary is on trial.
func bootUpdate(cf *configFlags, args []string) (*update.Updater, bool, error) {
	log := cf.cfg.Logger.With("component", "update")
	keys, err := update.LoadKeys(cf.releaseKeysFile, 0)
	if err != nil {
		// Refused whole: only the built-in key is trusted.
		log.Error("release keys file refused: trusting the built-in key only", "error", err)
	} else if len(keys) > 0 {
		log.Info("trusting release keys from a file besides the built-in one", "file", cf.releaseKeysFile, "keys", len(keys))
	}
	up, err := update.New(update.Config{Dir: filepath.Join(cf.cfg.DataDir, "update"), URL: cf.cfg.UpdateURL,
		Key: releasePublicKey(), Keys: keys, Version: version, Now: cf.cfg.Now, Logger: log})
	if err != nil {
		return nil, false, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, false, errors.Join(fmt.Errorf("finding this binary: %w", err), up.Close())
	}
	start, err := up.Boot(self, cf.launched)
	if errors.Is(err, update.ErrRunning) {
		// The store's lock will say the same, with the usual message.
		return up, false, nil
	}
	if err != nil {
		return nil, false, errors.Join(fmt.Errorf("starting the updater: %w", err), up.Close())
	}
	if start.RolledBack != "" {
		log.Warn("the update did not confirm itself healthy: the previous version is back", "update", start.RolledBack)
	}
	if start.Refused != "" {
		log.Warn("the installed update was refused: running the packaged binary", "reason", start.Refused)
	}
	if start.Exec == "" {
		return up, start.Trial, nil
	}
	log.Info("running the installed update", "binary", start.Exec)
	// The exec lets the update lock go; the new binary takes it again.
	err = syscall.Exec(start.Exec, append([]string{start.Exec, "serve"}, args...),
		append(os.Environ(), update.LaunchedEnv+"=1"))
	// Only a failed exec comes back here.
	log.Error("the installed update does not start: putting the previous version back", "error", err)
	if err := up.Rollback(fmt.Sprintf("it did not start: %v", err)); err != nil {
		return nil, false, errors.Join(err, up.Close())
	}
	return up, false, nil
}

// canRestart reports whether a service manager restarts the daemon when it
// exits: systemd runs it (kardianos/service sees systemd and no terminal
// behind the process). The unit's Restart=always then brings it back two
// seconds after the exit that ends an update.
func canRestart() bool {
	s := service.ChosenSystem()
	return s != nil && s.String() == "linux-systemd" && !service.Interactive()
}

// healthCheck asks the daemon's own /api/health, as a scraper would.
func healthCheck(base string) func(context.Context) error {
	client := &http.Client{Timeout: 5 * time.Second}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/health", nil)
		if err != nil {
			return err
		}
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("health answered %s", res.Status)
		}
		return nil
	}
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

// hotspotWiFi is the daemon's HotspotWiFi: the printed signs name the
// hotspot's Wi-Fi and its password when the box runs one, as
// NetworkManager tells them through nmcli (nil: no nmcli here), since
// the connection file is root's and the daemon is not
// (docs/decisions/trust.md, "The Network screen: what the daemon may
// change").
func hotspotWiFi(nmcli netsetup.Runner, log *slog.Logger) func(context.Context) (string, string, bool) {
	return func(ctx context.Context) (string, string, bool) {
		return netsetup.HotspotWiFi(ctx, nmcli, "", "", log)
	}
}
