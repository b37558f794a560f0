package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFollowSaysWhatFailed(t *testing.T) {
	out := func(test, s string) event { return event{Action: "output", Test: test, Output: s + "\n"} }
	tests := []struct {
		name   string
		events []event
		want   []string // in the digest, in order
		not    []string // never in the digest
	}{
		{
			name: "a subtest's failure messages, though other parts ran after it",
			events: []event{
				out("TestCrowd/crowd", "    crowd_test.go:220: phones on: 29 of 30"),
				out("TestCrowd/crowd", "    crowd_test.go:243: FAILED: phone 7: dhcp: no lease"),
				out("TestCrowd/crowd", "    and its next line"),
				{Action: "fail", Test: "TestCrowd/crowd"},
				out("TestCrowd/ethernet", "    ethernet_test.go:90: 20 of 20 photos"),
				{Action: "pass", Test: "TestCrowd/ethernet"},
				out("TestCrowd", "--- FAIL: TestCrowd (1232.99s)"),
				{Action: "fail", Test: "TestCrowd"},
				{Action: "fail"},
			},
			want: []string{"[lane 1] TestCrowd/crowd failed:", "FAILED: phone 7: dhcp: no lease", "and its next line"},
			not:  []string{"29 of 30", "20 of 20", "TestCrowd failed:"},
		},
		{
			name: "a failure message followed by many lines",
			events: append([]event{
				out("TestCrowd", "    machine_test.go:379: FAILED: the box did not answer /api/health in 15m0s"),
				out("TestCrowd", "    health: 502, the agent: connection refused"),
			}, func() []event {
				var console []event
				for range 60 {
					console = append(console, out("TestCrowd", "        a console line"))
				}
				return append(console, event{Action: "fail", Test: "TestCrowd"}, event{Action: "fail"})
			}()...),
			want: []string{"TestCrowd failed:", "FAILED: the box did not answer /api/health", "health: 502"},
			not:  []string{"a console line"},
		},
		{
			name: "no FAILED line: the test's last lines",
			events: []event{
				out("TestCuts", "    powercut_test.go:10: one"),
				out("TestCuts", "    powercut_test.go:11: the database is damaged"),
				out("TestCuts", "--- FAIL: TestCuts (3.00s)"),
				{Action: "fail", Test: "TestCuts"},
				{Action: "fail"},
			},
			want: []string{"TestCuts failed:", "one", "the database is damaged"},
			not:  []string{"--- FAIL"},
		},
		{
			name: "a timeout: the binary's own last lines",
			events: []event{
				out("TestCuts", "    powercut_test.go:10: waiting"),
				out("", "panic: test timed out after 90m0s"),
				{Action: "fail"},
			},
			want: []string{"the test binary failed:", "panic: test timed out after 90m0s"},
		},
		{
			name: "everything passed",
			events: []event{
				out("TestCuts", "    powercut_test.go:10: fine"),
				{Action: "pass", Test: "TestCuts"},
				{Action: "pass"},
			},
			not: []string{"failed", "fine"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in strings.Builder
			for _, e := range tt.events {
				b, _ := json.Marshal(e)
				in.Write(b)
				in.WriteString("\n")
			}
			var live strings.Builder
			digest, err := follow(strings.NewReader(in.String()), &live, "[lane 1] ")
			if err != nil {
				t.Fatal(err)
			}
			at := 0
			for _, w := range tt.want {
				i := strings.Index(digest[at:], w)
				if i < 0 {
					t.Fatalf("the digest lacks %q after byte %d:\n%s", w, at, digest)
				}
				at += i + len(w)
			}
			for _, n := range tt.not {
				if strings.Contains(digest, n) {
					t.Errorf("the digest has %q:\n%s", n, digest)
				}
			}
			for _, e := range tt.events {
				if e.Action == "output" && !strings.Contains(live.String(), "[lane 1] "+e.Output) {
					t.Errorf("the live lines lack %q", e.Output)
				}
			}
		})
	}
}
