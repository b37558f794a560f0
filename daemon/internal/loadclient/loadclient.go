// Package loadclient holds what the measuring commands under
// daemon/internal (uploadload, coldstart) share to drive a real daemon: a
// free local address and a same-origin JSON POST.
package loadclient

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// FreeAddr is a local TCP address nothing listens on at the moment.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Post sends body (JSON) to origin+path with the Origin header the daemon
// requires, fails on an answer of 300 or more, and decodes the answer into
// out when out is not nil.
func Post(c *http.Client, origin, path, body string, out any) error {
	req, err := http.NewRequest(http.MethodPost, origin+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("POST %s: %d %s", path, res.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}
