package booth_test

import (
	"testing"
	"time"

	"eventbox/booth"
)

// sample is one raw reading: the button is down (or up) at ms milliseconds.
type sample struct {
	ms   int
	down bool
}

// feed runs samples through a fresh debouncer with the default timings and
// returns the press times, in ms from the start.
func feed(samples []sample) []int {
	t0 := time.Date(2025, 6, 14, 15, 0, 0, 0, time.UTC)
	d := booth.NewDebouncer(booth.DefaultStable, booth.DefaultLockout)
	var presses []int
	for _, s := range samples {
		if p, ok := d.Sample(s.down, t0.Add(time.Duration(s.ms)*time.Millisecond)); ok {
			presses = append(presses, int(p.At.Sub(t0)/time.Millisecond))
		}
	}
	return presses
}

// every returns samples of one level every step ms in [from, to].
func every(from, to, step int, down bool) []sample {
	var out []sample
	for ms := from; ms <= to; ms += step {
		out = append(out, sample{ms, down})
	}
	return out
}

func concat(parts ...[]sample) []sample {
	var out []sample
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestDebouncer(t *testing.T) {
	tests := []struct {
		name    string
		samples []sample
		want    []int
	}{
		{
			name:    "a clean press gives one press dated when the button went down",
			samples: concat(every(0, 100, 5, false), every(105, 200, 5, true), every(205, 400, 5, false)),
			want:    []int{105},
		},
		{
			name: "a bouncing press gives one press",
			samples: concat(every(0, 100, 5, false),
				[]sample{{101, true}, {102, false}, {103, true}, {105, false}, {106, true}, {108, false}, {110, true}},
				every(115, 300, 5, true), every(305, 500, 5, false)),
			want: []int{110},
		},
		{
			name:    "a held button gives one press",
			samples: concat(every(0, 50, 5, false), every(55, 5000, 5, true)),
			want:    []int{55},
		},
		{
			name:    "a glitch shorter than the stable time gives no press",
			samples: concat(every(0, 50, 5, false), every(55, 75, 5, true), every(80, 400, 5, false)),
			want:    nil,
		},
		{
			name: "a bouncing release gives no second press",
			samples: concat(every(0, 50, 5, false), every(55, 300, 5, true),
				[]sample{{301, false}, {302, true}, {304, false}, {306, true}, {309, false}},
				every(310, 800, 5, false)),
			want: []int{55},
		},
		{
			name: "two presses further apart than the lockout give two presses",
			samples: concat(every(0, 50, 5, false), every(55, 200, 5, true),
				every(205, 600, 5, false), every(605, 800, 5, true), every(805, 900, 5, false)),
			want: []int{55, 605},
		},
		{
			name: "a second press within the lockout is ignored",
			samples: concat(every(0, 50, 5, false), every(55, 150, 5, true),
				every(155, 250, 5, false), every(255, 400, 5, true), every(405, 500, 5, false)),
			want: []int{55},
		},
		{
			name:    "a button already down at start gives no press until released and pressed again",
			samples: concat(every(0, 1000, 5, true), every(1005, 1100, 5, false), every(1105, 1200, 5, true)),
			want:    []int{1105},
		},
		{
			name: "a long gap between samples does not turn a bounce into a press",
			// The loop stalled after seeing the button down, and the next
			// sample shows it up again: the down was never confirmed.
			samples: concat(every(0, 50, 5, false), []sample{{55, true}, {500, false}}, every(505, 700, 5, false)),
			want:    nil,
		},
		{
			name:    "a press seen only by sparse samples counts once the level is confirmed",
			samples: []sample{{0, false}, {100, true}, {200, true}, {300, true}, {400, false}, {500, false}},
			want:    []int{100},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := feed(tt.samples)
			if !equalInts(got, tt.want) {
				t.Errorf("presses at %v ms, want %v", got, tt.want)
			}
		})
	}
}

func TestDebouncerDeadline(t *testing.T) {
	t0 := time.Date(2025, 6, 14, 15, 0, 0, 0, time.UTC)
	d := booth.NewDebouncer(30*time.Millisecond, 300*time.Millisecond)
	if _, ok := d.Deadline(); ok {
		t.Fatal("a debouncer that has seen nothing has a deadline")
	}
	d.Sample(false, t0)
	if _, ok := d.Deadline(); ok {
		t.Fatal("a settled debouncer has a deadline")
	}
	d.Sample(true, t0.Add(10*time.Millisecond))
	dl, ok := d.Deadline()
	if want := t0.Add(40 * time.Millisecond); !ok || !dl.Equal(want) {
		t.Fatalf("deadline after the button went down = %v, %t; want %v, true", dl, ok, want)
	}
	if _, pressed := d.Sample(true, dl); !pressed {
		t.Fatal("sampling down at the deadline gave no press")
	}
	if _, ok := d.Deadline(); ok {
		t.Fatal("a debouncer that just reported a press still has a deadline")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
