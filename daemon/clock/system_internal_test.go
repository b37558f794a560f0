//go:build linux

package clock

import "testing"

func TestSynced(t *testing.T) {
	tests := []struct {
		name     string
		state    int
		status   int32
		maxError int64
		want     bool
	}{
		{"kept by NTP", 0, 0x2001, 250_000, true},
		{"STA_UNSYNC set", 0, staUnsync, 250_000, false},
		{"TIME_ERROR", timeError, 0, 250_000, false},
		{"error past 16 s", 0, 0, 16_000_000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := synced(tt.state, tt.status, tt.maxError); got != tt.want {
				t.Fatalf("synced = %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := KernelSynced(); err != nil {
		t.Fatalf("KernelSynced: %v", err)
	}
}
