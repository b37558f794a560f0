// Package netsetup turns the box into a network appliance.
//
// Hotspot: PlanHotspot computes, as a pure function, what makes wlan0 a
// Wi-Fi access point with NetworkManager (a keyfile connection in shared
// IPv4 mode, the Wi-Fi country, and a drop-in for NetworkManager's dnsmasq
// that answers every DNS name with the box's address, so that phones show
// their captive-portal sheet). Plan.Print shows a plan for --dry-run and an
// Applier carries it out through a Runner, which tests replace with a fake.
// PlanOff undoes it, and ReadStatus reports what is in place.
//
// Boot settings: ReadBootSettings reads eventbox.txt from the card's boot
// partition strictly (every bad value a Problem naming its key), and
// ApplyBootSettings applies it once (hotspot or country, time zone, the
// first owner handed back) and rewrites it without its password lines
// (docs/decisions.md, "The settings file on the boot partition").
//
// Going online: WiFi scans, joins a home network as its own connection
// (a keyfile, so the password is never on a command line), and reads
// Ethernet's state, the internet's reachability and what the radio can do
// at once (iw's interface combinations). Fallback, a service, brings the
// hotspot back when the home network is not joined, or is lost, for two
// minutes. SetupSSID names the setup hotspot so boxes tell apart.
//
// mDNS: an Advertiser announces the web interface as the DNS-SD service
// "eventbox" (_http._tcp, with grandcat/zeroconf) and answers address
// queries for <name>.local (with pion/mdns, because zeroconf answers no
// direct host-name query), on every interface that is up, including one that
// comes up later such as the hotspot.
//
// Connections: RTOListener accepts the daemon's connections with a lower
// floor under their retransmission timeout than the kernel's (RTOMin),
// so that an answer the hotspot loses is sent again sooner.
package netsetup
