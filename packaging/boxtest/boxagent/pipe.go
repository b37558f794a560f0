package main

import (
	"errors"
	"io"
	"net"
	"os"
)

// pipe joins its standard input and output to a TCP connection to addr:
// run on the host by qemu for each connection the machine opens to a
// guestfwd address (its cmd: form), it lets the machine reach a server
// the test runs on the host, and nothing else.
func pipe(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: boxagent pipe HOST:PORT")
	}
	c, err := net.Dial("tcp", args[0])
	if err != nil {
		return err
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(c, os.Stdin)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- err
	}()
	_, err = io.Copy(os.Stdout, c)
	return err
}
