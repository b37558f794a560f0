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
// mDNS: an Advertiser announces the web interface as the DNS-SD service
// "eventbox" (_http._tcp, with grandcat/zeroconf) and answers address
// queries for <name>.local (with pion/mdns, because zeroconf answers no
// direct host-name query), on every interface that is up, including one that
// comes up later such as the hotspot.
package netsetup
