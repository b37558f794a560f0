// Command boxagent is the box test's hands inside the virtual machine that
// boots the card image (packaging/boxtest). It is never part of the image:
// the test writes it into its own copy of the card, with two units, before
// the first boot.
//
//	boxagent radios [N] before NetworkManager: N virtual radios (3 by
//	                    default), wlan1 and wlan2 moved into the network
//	                    namespaces "phone" and "home" and the rest into
//	                    crowd01, crowd02, ..., so the box's NetworkManager
//	                    sees only wlan0, as on a Pi
//	boxagent serve ADDR the test's control channel: runs commands (in a
//	                    namespace if asked) and moves files, over HTTP
//	boxagent phone ...  what a guest's phone does on the hotspot (see phone.go)
//	boxagent crowd ...  many phones arriving at the hotspot (see crowd.go)
//	boxagent ethernet ... a venue's access point on a second Ethernet port
//	                    and phones behind it (see ethernet.go)
//	boxagent sample     the box's load: stations, CPU, memory (see sample.go)
//	boxagent home ...   the "home" network's fake internet (see home.go)
//	boxagent dbcheck F  bbolt's consistency check of the database F
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: boxagent radios [N] | serve ADDR | phone ... | crowd ... | ethernet ap|phones ... | sample [IF] | home CMD ... | dbcheck DB | pipe HOST:PORT")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "radios":
		err = radios(os.Args[2:])
	case "serve":
		addr := ":7000"
		if len(os.Args) > 2 {
			addr = os.Args[2]
		}
		err = serve(addr)
	case "phone":
		err = phone(os.Args[2:])
	case "sample":
		err = sample(os.Args[2:])
	case "crowd":
		err = crowd(os.Args[2:])
	case "ethernet":
		err = ethernet(os.Args[2:])
	case "home":
		err = home(os.Args[2:])
	case "pipe":
		err = pipe(os.Args[2:])
	case "dbcheck":
		err = dbcheck(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "boxagent:", err)
		os.Exit(1)
	}
}
