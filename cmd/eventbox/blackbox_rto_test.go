package main

import (
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"eventbox/internal/testtool"
	"eventbox/netsetup"
)

// The daemon's connections are retransmitted sooner than the kernel's
// 200 ms floor allows: the kernel's own view of the server's end of a
// connection (ss) says its retransmission timeout. The kernel sets a
// connection's timeout from the floor it had when it was accepted and
// brings it down to the new floor by a quarter of the gap at each round
// trip, so the health check is asked twenty times on one connection, as
// a phone's page does over its visit.
func TestConnectionsAreRetransmittedSooner(t *testing.T) {
	testtool.Need(t, "iproute2", "ss")
	bin := buildBinary(t)
	p := startDaemon(t, bin, t.TempDir())
	c := &http.Client{}
	defer c.CloseIdleConnections()
	for range 20 {
		res, err := c.Get(p.url + "/api/health")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	if strings.Contains(p.stderr.String(), "the kernel keeps its own retransmission floor") {
		t.Skip("this kernel has no TCP_RTO_MIN_US (Linux 6.15)")
	}
	u, _ := url.Parse(p.url)
	out, err := exec.Command("ss", "-tinH", "state", "established", "( sport = :"+u.Port()+" )").CombinedOutput()
	if err != nil {
		t.Fatalf("ss: %v: %s", err, out)
	}
	m := regexp.MustCompile(`\brto:([0-9.]+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("ss shows no connection of the daemon's with its rto:\n%s", out)
	}
	rto, _ := strconv.ParseFloat(m[1], 64)
	if floor := float64(netsetup.RTOMin.Milliseconds()); rto < floor || rto > 2*floor {
		t.Errorf("the daemon's connection retransmits after %s ms, want %.0f to %.0f (the kernel's floor is 200):\n%s", m[1], floor, 2*floor, out)
	}
}
