package booth

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestOpenFallsBackToNoOp(t *testing.T) {
	chips, _ := filepath.Glob("/dev/gpiochip*")
	tests := []struct {
		name   string
		cfg    Config
		noGPIO bool // the case needs a machine without GPIO
	}{
		{name: "no pins configured gives a no-op device", cfg: Config{}},
		{name: "pins on a machine without gpio give a no-op device", cfg: Config{ButtonPin: "GPIO17", LEDPin: "GPIO27"}, noGPIO: true},
		{name: "a button alone on a machine without gpio gives a no-op device", cfg: Config{ButtonPin: "GPIO17"}, noGPIO: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.noGPIO && len(chips) > 0 {
				t.Skipf("this machine has GPIO chips %v", chips)
			}
			dev, err := Open(context.Background(), tt.cfg)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if _, ok := dev.(*noop); !ok {
				t.Fatalf("Open returned %T, want the no-op device", dev)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			dev.SetLED(Ready)
			if err := dev.Run(ctx); err != nil {
				t.Errorf("Run = %v", err)
			}
			if _, ok := <-dev.Presses(); ok {
				t.Error("the no-op device delivered a press")
			}
			if err := dev.Close(); err != nil {
				t.Errorf("Close = %v", err)
			}
		})
	}
}

func TestLookupOfUnknownNames(t *testing.T) {
	for _, name := range []string{"", "NOPE", "GPIO999", "GPIO17x"} {
		if p, ok := lookup(name); ok {
			t.Errorf("lookup(%q) found %v", name, p)
		}
	}
}
