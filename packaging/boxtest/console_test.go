package boxtest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
)

// consoleInChromium signs in to the box's console in this machine's
// headless Chromium through the forwarded port, as a host would from a
// laptop on the hotspot, opens the event's photos and returns how many
// photos the page shows and the page's title.
func consoleInChromium(t *testing.T, base, user, password, eventID string) (tiles int, title string) {
	t.Helper()
	browser := testtool.NeedOne(t, "chromium", "chromium", "chromium-browser", "google-chrome")
	dir := t.TempDir()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1366, 768),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	// The box is an emulated machine: its pages take seconds, not
	// milliseconds.
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelTimeout()
	step := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
			t.Fatalf("the console in Chromium, %s: %v (page: %q)", what, err, body)
		}
	}
	step("opening the sign-in page",
		chromedp.Navigate(base+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#sign-in input[type=password]`)))
	step("signing in",
		chromedp.SendKeys(chromedp.CSS(`#sign-in input[autocomplete=username]`), user),
		chromedp.SendKeys(chromedp.CSS(`#sign-in input[type=password]`), password),
		chromedp.Click(chromedp.CSS(`#sign-in button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#events`)))
	step("opening the event's photos",
		chromedp.Navigate(base+"/admin/events/"+eventID+"/photos"),
		chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#photos .tile').length`))
	if err != nil {
		t.Fatalf("counting the photos in the console: %v", err)
	}
	title, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.title`))
	if err != nil {
		t.Fatalf("reading the console's title: %v", err)
	}
	if dir := os.Getenv("BOXTEST_SHOTS"); dir != "" {
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(90)); err == nil {
			_ = os.WriteFile(dir+"/console-photos.png", png, 0o644)
		}
	}
	return n, strings.TrimSpace(title)
}
