package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"eventbox/assets"
	"eventbox/daemon"
	"eventbox/internal/testtool"
	"eventbox/store"
)

var shotDir = flag.String("shots", "", "save a full-page PNG of each page visited in this directory")

// sweep runs the tests that go through every language and screen size in
// all of them (make browsertest, which .ci/run runs after make test).
// Without it each such test runs the few cases it names as its quick ones,
// so that make test keeps within its four minutes on a two-core machine.
var sweep = flag.Bool("sweep", false, "run every language and size of the sweeping tests, not only their quick cases")

// swept reports whether the case name runs: always with -sweep or -shots
// (screenshots want every size), else only when quick names it.
func swept(name string, quick ...string) bool {
	return *sweep || *shotDir != "" || slices.Contains(quick, name)
}

// sweepOnly skips a test whose quick case would already be most of it
// unless -sweep is given (make browsertest): a sweep of every page, whose
// French console make test checks through TestConsoleInFrench and
// TestConsoleSettingsInFrench.
func sweepOnly(t *testing.T) {
	t.Helper()
	if !*sweep && *shotDir == "" {
		t.Skip("a sweep: runs in make browsertest (go test ./e2e -sweep)")
	}
}

// ownerPassword is the first owner's password on every test box.
const ownerPassword = "owner-password-e2e"

// stepTimeout bounds each browser step; the whole test is bounded by the
// sum of its steps.
const stepTimeout = 20 * time.Second

// phone is the viewport of the tests: a common phone, at 2x.
const phoneWidth, phoneHeight = 390, 844

// box is a running eventbox daemon on a local test server.
type box struct {
	URL   string
	Store *store.Store
	// Handler is the daemon's, for a test that serves it a second way
	// (HTTPS).
	Handler http.Handler
}

// startBox starts the real daemon over a fresh store with the embedded web
// interface; opts change its configuration. Everything stops when the test
// ends.
func startBox(t *testing.T, opts ...func(*daemon.Config)) *box {
	t.Helper()
	return startBoxWith(t, func(c *daemon.Config) {
		for _, o := range opts {
			o(c)
		}
	})
}

// startBoxWith is startBox with the daemon's configuration changed by
// edit (smaller upload limits, say).
func startBoxWith(t *testing.T, edit func(*daemon.Config)) *box {
	t.Helper()
	r := &restartableBox{dir: t.TempDir(), edit: edit}
	r.start(t)
	t.Cleanup(func() { r.kill(t) })
	return &box{URL: r.URL, Store: r.Store, Handler: r.Handler}
}

// restartableBox is a box that can be killed and started again on the
// same data directory and address, as a box that loses power does.
type restartableBox struct {
	URL   string
	Store *store.Store
	// Handler is the running daemon's, for a second server (HTTPS).
	Handler http.Handler
	dir     string
	addr    string
	edit    func(*daemon.Config)
	stop    func()
}

// testPages is the web interface prepared once for every box the tests
// start (daemon.PreparePages).
var testPages = sync.OnceValues(func() (*daemon.Pages, error) { return daemon.PreparePages(assets.Web()) })

// start runs the daemon on the box's directory; the first start picks a
// free port, later ones take the same address again.
func (r *restartableBox) start(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, r.dir, store.Options{})
	if err != nil {
		t.Fatalf("opening store: %v", err)
	}
	cfg := daemon.DefaultConfig()
	cfg.DataDir = r.dir
	cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg.UI = assets.Web()
	if cfg.Pages, err = testPages(); err != nil {
		t.Fatal(err)
	}
	cfg.AdminPassword = ownerPassword
	cfg.PasswordCost = 4
	cfg.Clock.Synced = func() (bool, error) { return true, nil } // never the test machine's clock (daemon/clock_wiring.go)
	if r.edit != nil {
		r.edit(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	srv, err := daemon.New(ctx, cfg, st)
	if err != nil {
		t.Fatalf("starting daemon: %v", err)
	}
	addr := r.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Run(runCtx); err != nil {
			t.Errorf("daemon run: %v", err)
		}
	}()
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	r.addr, r.URL, r.Store, r.Handler = ln.Addr().String(), ts.URL, st, srv.Handler()
	r.stop = func() {
		// Streams (booth events) stay open until their client goes: cut
		// them so Close does not wait for the browser.
		ts.CloseClientConnections()
		ts.Close()
		stop()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("daemon did not stop within 10s")
		}
		if err := st.Close(); err != nil {
			t.Errorf("closing store: %v", err)
		}
	}
}

// kill stops the daemon at once: open connections are cut mid-request.
func (r *restartableBox) kill(t *testing.T) {
	t.Helper()
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
}

// chromiumPath finds Debian's Chromium (or another Chrome), or skips (fails
// under EVENTBOX_REQUIRE_ALL=1, as in CI).
func chromiumPath(t *testing.T) string {
	t.Helper()
	return testtool.NeedOne(t, "chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
}

// browser is one headless Chromium tab at phone size. It records the
// page's uncaught JavaScript exceptions; the test fails if there are any.
type browser struct {
	ctx context.Context
	tab *tab

	mu     sync.Mutex
	errors []string
}

// record notes an uncaught exception or CSP violation of the page.
func (b *browser) record(msg string) {
	b.mu.Lock()
	b.errors = append(b.errors, msg)
	b.mu.Unlock()
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	return newBrowserAt(t, "en-US", phoneWidth, phoneHeight)
}

// newBrowserAt is a browser with the given language and window size; a
// window as narrow as a phone also gets a phone's touch and pixel ratio.
func newBrowserAt(t *testing.T, lang string, width, height int) *browser {
	t.Helper()
	return newBrowserFlags(t, lang, width, height, nil)
}

// newBrowserFlags is newBrowserAt with extra Chromium command-line flags.
// The tab is one a finished test gave back, wiped, or a new one.
func newBrowserFlags(t *testing.T, lang string, width, height int, flags map[string]any) *browser {
	t.Helper()
	proc := chromiums.get(t, lang, flags)
	b := &browser{}
	tb := proc.take()
	if tb == nil {
		var err error
		if tb, err = proc.open(); err != nil {
			t.Fatalf("opening a browser tab: %v", err)
		}
	}
	tb.owner.Store(b)
	b.ctx, b.tab = tb.ctx, tb
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, viewportFor(width, height)); err != nil {
		tb.close()
		t.Fatalf("sizing the browser tab: %v", err)
	}
	t.Cleanup(func() {
		tb.owner.Store(nil)
		proc.giveBack(tb)
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, e := range b.errors {
			t.Errorf("uncaught exception or CSP violation in the page: %s", e)
		}
	})
	return b
}

// tab is one window of a pooled Chromium, in a browser context of its
// own (cookies, storage, cache). A test borrows it for its browser; when
// the test ends the tab goes back to about:blank with its history,
// cookies, cache and the storage of every origin it visited cleared, and
// the next test takes it as a fresh one: opening a browser context costs
// Chromium a renderer process (about 0.8 CPU seconds each, 70 times over
// the suite), reusing one a page load.
type tab struct {
	ctx    context.Context
	cancel func()
	// owner is the browser the tab is lent to, which hears its page's
	// errors; nil while the tab waits in the pool.
	owner atomic.Pointer[browser]

	mu      sync.Mutex
	origins map[string]bool // every origin a frame of the tab showed
	// tainted is set by a test that changed what the wipe does not put
	// back (blocked URLs, network throttling): the tab is closed, not
	// reused.
	tainted bool
}

// taint marks the browser's tab as not to be reused.
func (b *browser) taint() {
	b.tab.mu.Lock()
	b.tab.tainted = true
	b.tab.mu.Unlock()
}

// open starts a new tab in a new browser context of the Chromium.
func (c *chromiumProc) open() (*tab, error) {
	tb := &tab{origins: map[string]bool{}}
	ctx, cancel := chromedp.NewContext(c.ctx, chromedp.WithNewBrowserContext(), chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *page.EventFrameNavigated:
			if e.Frame != nil && strings.HasPrefix(e.Frame.SecurityOrigin, "http") {
				tb.mu.Lock()
				tb.origins[e.Frame.SecurityOrigin] = true
				tb.mu.Unlock()
			}
		case *cdplog.EventEntryAdded:
			if e.Entry != nil && strings.Contains(e.Entry.Text, "Content Security Policy") {
				// The page did something its CSP refuses (an inline
				// script or style): it would silently not work.
				if b := tb.owner.Load(); b != nil {
					b.record(e.Entry.Text)
				}
			}
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil && e.ExceptionDetails.Exception.Description != "" {
				msg = e.ExceptionDetails.Exception.Description
			}
			if b := tb.owner.Load(); b != nil {
				b.record(msg)
			}
		}
	}))
	tb.ctx, tb.cancel = ctx, cancel
	// The first action opens the tab; the tab lives as long as the
	// context of that first action, so it carries no timeout. Every
	// window of the shared browser is the focused one, as each phone's is.
	focus := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		return err
	})
	if err := chromedp.Do(ctx, focus); err != nil {
		cancel()
		return nil, err
	}
	return tb, nil
}

// wipe takes the tab back to the state of a new one: about:blank with no
// history, and no cookies, cache or storage.
func (tb *tab) wipe() error {
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		return fmt.Errorf("leaving the page: %w", err)
	}
	tb.mu.Lock()
	origins := slices.Sorted(maps.Keys(tb.origins))
	clear(tb.origins)
	tb.mu.Unlock()
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, page.ResetNavigationHistory, cdp.Empty{}); err != nil {
			return fmt.Errorf("clearing the history: %w", err)
		}
		if _, err := cdp.Call(ctx, tg, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
			return fmt.Errorf("clearing cookies: %w", err)
		}
		if _, err := cdp.Call(ctx, tg, network.ClearBrowserCache, cdp.Empty{}); err != nil {
			return fmt.Errorf("clearing the cache: %w", err)
		}
		for _, o := range origins {
			if _, err := cdp.Call(ctx, tg, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: o, StorageTypes: "all"}); err != nil {
				return fmt.Errorf("clearing the storage of %s: %w", o, err)
			}
		}
		return nil
	}))
}

// close ends the tab and its browser context.
func (tb *tab) close() { tb.cancel() }

// take lends out a tab the pool holds, or nil.
func (c *chromiumProc) take() *tab {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.idle) == 0 {
		return nil
	}
	tb := c.idle[len(c.idle)-1]
	c.idle = c.idle[:len(c.idle)-1]
	return tb
}

// giveBack wipes a tab a test is done with and keeps it for the next, or
// closes it if it cannot be wiped.
func (c *chromiumProc) giveBack(tb *tab) {
	tb.mu.Lock()
	tainted := tb.tainted
	tb.mu.Unlock()
	if tainted || tb.wipe() != nil {
		tb.close()
		return
	}
	c.mu.Lock()
	c.idle = append(c.idle, tb)
	c.mu.Unlock()
}

// chromiumPool keeps one headless Chromium process per language and set of
// flags for the whole test run. Every browser a test opens is a tab in a
// browser context of its own in one of them (its own cookies, storage,
// cache and service workers, as a fresh profile has, in its own window)
// for the cost of a tab instead of a process start (about 2 s and 2 CPU
// seconds each, 68 times over the suite); tabs that tests are done with
// are wiped and lent again (see tab).
type chromiumPool struct {
	mu    sync.Mutex
	procs map[string]*chromiumProc
}

// chromiumProc is one running Chromium, started on first use.
type chromiumProc struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	dir    string
	err    error

	mu   sync.Mutex
	idle []*tab // wiped tabs waiting for a test
}

// chromiums is the test run's pool; TestMain stops it.
var chromiums = &chromiumPool{procs: map[string]*chromiumProc{}}

// TestMain stops the pool's browsers after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	chromiums.close()
	os.Exit(code)
}

// get returns the running Chromium with the language and flags, starting
// it on first use.
func (p *chromiumPool) get(t *testing.T, lang string, flags map[string]any) *chromiumProc {
	t.Helper()
	path := chromiumPath(t)
	keys := make([]string, 0, len(flags))
	for k, v := range flags {
		keys = append(keys, fmt.Sprintf("%s=%v", k, v))
	}
	slices.Sort(keys)
	key := lang + " " + strings.Join(keys, " ")
	p.mu.Lock()
	proc := p.procs[key]
	if proc == nil {
		proc = &chromiumProc{}
		p.procs[key] = proc
	}
	p.mu.Unlock()
	proc.once.Do(func() { proc.start(path, lang, flags) })
	if proc.err != nil {
		t.Fatalf("starting chromium: %v", proc.err)
	}
	return proc
}

func (c *chromiumProc) start(path, lang string, flags map[string]any) {
	c.dir, c.err = os.MkdirTemp("", "eventbox-e2e-chromium-")
	if c.err != nil {
		return
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		// One renderer for at most two windows, and no process per site:
		// every test's box is on 127.0.0.1, and starting renderers was a
		// tenth of the browser tests' CPU.
		chromedp.Flag("renderer-process-limit", "2"),
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,IsolateOrigins,site-per-process,PaintHolding,BackForwardCache"),
		// Windows in the background keep their timers and frames: the
		// tests run side by side, each in its own window.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("lang", lang),
		chromedp.Flag("accept-lang", lang),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.UserDataDir(c.dir),
		chromedp.WindowSize(1920, 1080),
	}
	for k, v := range flags {
		opts = append(opts, chromedp.Flag(k, v))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// The first run starts the browser; it must not carry a timeout.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		c.err = err
		return
	}
	c.ctx = ctx
	c.cancel = func() { cancel(); cancelAlloc() }
}

// close stops every browser of the pool.
func (p *chromiumPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.procs {
		for _, tb := range c.idle {
			tb.close()
		}
		if c.cancel != nil {
			c.cancel()
		}
		if c.dir != "" {
			os.RemoveAll(c.dir)
		}
	}
}

// do runs steps with a timeout; what says what the user is doing.
func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v (page text: %q)", what, err, b.bodyText())
	}
}

// eval evaluates a JavaScript expression and decodes its value into out.
func (b *browser) eval(t *testing.T, expr string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	if out != nil {
		if err := json.Unmarshal(v, out); err != nil {
			t.Fatalf("decoding %s: %v", v, err)
		}
	}
}

// bodyText is the page's visible text, for failure messages.
func (b *browser) bodyText() string {
	ctx, cancel := context.WithTimeout(b.ctx, 3*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body ? document.body.innerText : ''"))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// waitText waits until the element matching sel contains want.
func (b *browser) waitText(t *testing.T, sel, want string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.includes(%q); })()`, sel, want)
	b.do(t, fmt.Sprintf("waiting for %q in %s", want, sel),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Poll[bool](expr, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(stepTimeout-time.Second))(ctx, tg)
			return err
		}))
}

// waitJS waits until the expression is truthy.
func (b *browser) waitJS(t *testing.T, what, expr string) {
	t.Helper()
	b.do(t, what, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(stepTimeout-time.Second))(ctx, tg)
		return err
	}))
}

// text is the text content of the first element matching sel ("" if none).
func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	var s string
	b.eval(t, fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ''`, sel), &s)
	return strings.TrimSpace(s)
}

// shot saves a full-page screenshot as DIR/name.png when -shots is set.
func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	b.capture(t, name, chromedp.FullScreenshot(100))
}

// shotScreen saves what the phone's screen shows (no scrolling) as
// DIR/name.png when -shots is set: for long pages scrolled to a spot.
func (b *browser) shotScreen(t *testing.T, name string) {
	t.Helper()
	b.capture(t, name, chromedp.CaptureScreenshot())
}

func (b *browser) capture(t *testing.T, name string, how chromedp.Action[[]byte]) {
	t.Helper()
	if *shotDir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	// Let fonts, images and transitions settle.
	if err := chromedp.Do(ctx, chromedp.Sleep(400*time.Millisecond)); err != nil {
		t.Fatalf("settling before screenshot: %v", err)
	}
	buf, err := chromedp.Run(ctx, how)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(*shotDir, 0o755); err != nil {
		t.Fatalf("screenshot dir: %v", err)
	}
	if err := os.WriteFile(filepath.Join(*shotDir, name+".png"), buf, 0o644); err != nil {
		t.Fatalf("writing screenshot: %v", err)
	}
}

// viewportFor sizes a tab as a screen of width×height: a phone's (at most
// phoneWidth) at twice the pixels, with touch.
func viewportFor(width, height int) chromedp.Action[chromedp.Void] {
	if width <= phoneWidth {
		return chromedp.EmulateViewport(int64(width), int64(height), chromedp.EmulateScale(2), chromedp.EmulateTouch)
	}
	return chromedp.EmulateViewport(int64(width), int64(height))
}

// signIn signs the first owner in on the console.
func (b *browser) signIn(t *testing.T, base string) {
	t.Helper()
	b.do(t, "opening the console",
		chromedp.Navigate(base+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#sign-in input[type=password]`)))
	b.do(t, "signing in",
		chromedp.SendKeys(chromedp.CSS(`#sign-in input[type=password]`), ownerPassword),
		click(`#sign-in button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#events`)))
}

// fill replaces the value of the input matching sel by typing text.
func fill(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = ''; return true; })()`, sel))(ctx, tg)
			return err
		}),
		chromedp.SendKeys(chromedp.CSS(sel), text))
}

// block makes the browser fail every request matching the URL patterns
// (URLPattern syntax) as if the network dropped them; no pattern unblocks.
func (b *browser) block(t *testing.T, patterns ...string) {
	t.Helper()
	b.taint()
	list := make([]*network.BlockPattern, 0, len(patterns))
	for _, p := range patterns {
		list = append(list, &network.BlockPattern{URLPattern: p, Block: true})
	}
	b.do(t, "blocking "+strings.Join(patterns, ", "), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: list})
		return err
	}))
}

// eventually polls cond every 50 ms until it holds, failing the test
// after stepTimeout.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, stepTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// choose picks value in the select matching sel, as a person would: the
// page hears the change.
func choose(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; e.dispatchEvent(new Event('change', { bubbles: true })); return e.value === %q; })()`, sel, value, value))(ctx, tg)
		return err
	})
}

// throttle limits the browser's upload speed to bytesPerSec, as a slow
// hotspot does; -1 lifts the limit.
func (b *browser) throttle(t *testing.T, bytesPerSec float64) {
	t.Helper()
	b.taint()
	b.do(t, "throttling uploads", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{UploadThroughput: bytesPerSec, DownloadThroughput: -1}},
		})
		return err
	}))
}

// click clicks the element matching sel as a person does: once it is
// visible and has stopped moving (a smooth scroll to a refused field, a
// transition), so that the press and the release both land on it. A click
// during the move lands its release elsewhere and the page hears no click.
func click(sel string) chromedp.Action[chromedp.Void] {
	still := fmt.Sprintf(`(async () => {
		const frame = () => new Promise((ok) => requestAnimationFrame(ok));
		let prev = '';
		for (let i = 0; i < 600; i++) {
			const e = document.querySelector(%q);
			const r = e && e.getBoundingClientRect();
			const now = r ? [r.x, r.y, r.width, r.height].join() : '';
			if (now && now === prev) return true;
			prev = now;
			await frame();
		}
		return false;
	})()`, sel)
	return chromedp.Steps(
		chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			ok, err := chromedp.Evaluate[bool](still, chromedp.EvalAwaitPromise)(ctx, tg)
			if err == nil && !ok {
				err = fmt.Errorf("%s keeps moving", sel)
			}
			return err
		}),
		chromedp.Click(chromedp.CSS(sel)))
}

// screenSize is one of the sizes a page is looked at: name, width, height.
type screenSize struct {
	name string
	w, h int
}

// screenSizes are the phone, laptop and venue-screen sizes every page is
// checked and photographed at.
func screenSizes() []screenSize {
	return []screenSize{{"phone", 390, 844}, {"laptop", 1366, 768}, {"venue", 1920, 1080}}
}
