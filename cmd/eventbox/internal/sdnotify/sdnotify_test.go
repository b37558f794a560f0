package sdnotify_test

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"eventbox/cmd/eventbox/internal/sdnotify"
)

func TestNotifierSpeaksToTheSocket(t *testing.T) {
	for _, tc := range []struct {
		name     string
		socket   string // "file": a path, "abstract": @name
		pid      string
		usec     string
		watchdog time.Duration
	}{
		{name: "a path socket with a watchdog for this process", socket: "file", pid: strconv.Itoa(os.Getpid()), usec: "3000000", watchdog: 3 * time.Second},
		{name: "an abstract socket, watchdog without a pid", socket: "abstract", usec: "500000", watchdog: 500 * time.Millisecond},
		{name: "a watchdog meant for another process", socket: "file", pid: "1", usec: "3000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := filepath.Join(t.TempDir(), "notify")
			if tc.socket == "abstract" {
				addr = "@eventbox-test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			}
			l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: addr, Net: "unixgram"})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			env := map[string]string{"NOTIFY_SOCKET": addr, "WATCHDOG_PID": tc.pid, "WATCHDOG_USEC": tc.usec}
			n := sdnotify.FromEnv(func(k string) string { return env[k] })
			if n.Watchdog() != tc.watchdog {
				t.Errorf("Watchdog = %v, want %v", n.Watchdog(), tc.watchdog)
			}
			if err := n.Send("READY=1"); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 64)
			l.SetReadDeadline(time.Now().Add(5 * time.Second))
			k, err := l.Read(buf)
			if err != nil || string(buf[:k]) != "READY=1" {
				t.Fatalf("received %q, %v", buf[:k], err)
			}
		})
	}
	t.Run("without a socket nothing is sent", func(t *testing.T) {
		n := sdnotify.FromEnv(func(string) string { return "" })
		if n.Enabled() || n.Send("READY=1") != nil || n.Watchdog() != 0 {
			t.Error("a notifier without NOTIFY_SOCKET acts")
		}
	})
}
