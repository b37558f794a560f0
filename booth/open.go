package booth

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3/gpioioctl"
)

// Config names the booth's pins and its dependencies.
type Config struct {
	// ButtonPin is the shutter button's GPIO line name, e.g. "GPIO17"
	// (BOOTH_BUTTON_PIN). Empty: no button.
	ButtonPin string
	// LEDPin is the status LED's GPIO line name (BOOTH_LED_PIN). Empty: no
	// LED.
	LEDPin string
	// Logger receives the booth's few log lines. Nil discards them.
	Logger *slog.Logger
	// Now is the clock that times button samples and presses; it must
	// advance like the wall clock, because the button loop also waits in real
	// time. Nil means time.Now.
	Now func() time.Time
}

func (c Config) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c.Logger.With("component", "booth")
}

func (c Config) clock() func() time.Time {
	if c.Now == nil {
		return time.Now
	}
	return c.Now
}

// Open returns the booth's Device for cfg. The returned Device is never nil.
//
// With no pins configured, or no GPIO on the machine (no /dev/gpiochip*),
// or none of the named pins found, it returns a no-op Device and a nil error:
// missing hardware never stops the daemon. A configured pin that is missing
// while the other is found is left out. Open logs one line saying which of
// these happened.
//
// Only when a pin exists but cannot be set up (held by another process,
// permission denied: the service needs the gpio group) does it return an
// error, together with a no-op Device the daemon can run instead.
//
// A pin is looked up by its kernel line name ("GPIO17"). When no line has
// that name, "GPIO17" or "17" is taken as line 17 of the SoC's own GPIO chip
// (label "pinctrl-…"), which is the BCM number on a Pi 3, 4 or 5; this finds
// pins that the Pi 3/4 device tree names after their alternate function
// (GPIO2 is "SDA1" there).
//
// Open loads only periph's character-device GPIO driver (gpioioctl), never
// the memory-mapped Pi drivers, which would map the wrong registers on a
// Pi 5.
func Open(ctx context.Context, cfg Config) (Device, error) {
	log := cfg.logger()
	if cfg.ButtonPin == "" && cfg.LEDPin == "" {
		log.InfoContext(ctx, "booth hardware off: no pins configured")
		return NoOp(), nil
	}
	if _, err := driverreg.Init(); err != nil {
		log.InfoContext(ctx, "booth hardware off: gpio drivers failed", "error", err)
		return NoOp(), nil
	}
	if len(gpioioctl.Chips) == 0 {
		log.InfoContext(ctx, "booth hardware off: no gpio on this machine")
		return NoOp(), nil
	}
	button, bok := lookup(cfg.ButtonPin)
	led, lok := lookup(cfg.LEDPin)
	var missing []string
	if cfg.ButtonPin != "" && !bok {
		missing = append(missing, cfg.ButtonPin)
	}
	if cfg.LEDPin != "" && !lok {
		missing = append(missing, cfg.LEDPin)
	}
	if !bok && !lok {
		log.InfoContext(ctx, "booth hardware off: pins not found", "pins", strings.Join(missing, ","))
		return NoOp(), nil
	}
	var in gpio.PinIn
	var out gpio.PinOut
	if bok {
		in = button
	}
	if lok {
		out = led
	}
	g, err := NewGPIO(in, out, cfg)
	if err != nil {
		return NoOp(), fmt.Errorf("opening booth pins: %w", err)
	}
	log.InfoContext(ctx, "booth hardware on", "button", pinName(in), "led", pinName(out),
		"missing", strings.Join(missing, ","))
	return g, nil
}

// numbered matches the pin names taken as a line number: "17", "GPIO17".
var numbered = regexp.MustCompile(`^(?i:gpio)?([0-9]{1,3})$`)

// lookup finds the pin called name, as documented on [Open].
func lookup(name string) (gpio.PinIO, bool) {
	if name == "" {
		return nil, false
	}
	if p := gpioreg.ByName(name); p != nil {
		return p, true
	}
	m := numbered.FindStringSubmatch(name)
	if m == nil {
		return nil, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return nil, false
	}
	for _, chip := range gpioioctl.Chips {
		if strings.HasPrefix(chip.Label(), "pinctrl-") && n < chip.LineCount() {
			if line := chip.ByNumber(n); line != nil {
				return line, true
			}
		}
	}
	return nil, false
}

func pinName(p interface{ Name() string }) string {
	if p == nil {
		return ""
	}
	return p.Name()
}
