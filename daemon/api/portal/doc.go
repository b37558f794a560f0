// Package portal answers the captive-portal probes that phones and laptops
// send when they join a Wi-Fi network, and serves what the portal page
// needs, so that a guest goes from the phone's sign-in sheet to the event
// in the phone's own browser and keeps the Wi-Fi.
//
// On the hotspot every DNS name resolves to the box (see netsetup), so a
// probe such as http://captive.apple.com/hotspot-detect.html reaches the
// daemon. Middleware recognises these requests by host and path and answers
// with a redirect (302) to the page the daemon names, instead of the answer
// each OS expects when it has internet: any other answer makes the OS show
// its portal UI (the sign-in sheet, a mini-browser where a file picker or
// the camera may not open and nothing stays stored). Redirect gives the
// same answer to any request; the daemon sends it for every page asked
// under a Host that is not one of the box's own names. InMiniBrowser tells
// the sheet's requests apart (the probe that opened it, its user agent),
// which the daemon sends to the portal page (PagePath) instead of the event.
//
// The portal page (assets/web/js/portal.js, through API) says how to open
// the event in the phone's own browser; its "continue" marks the device
// (Device: an IPv4 address, an IPv6 address's /64) in Passes, an
// in-memory, bounded memory with an injected clock, for one DHCP lease of
// the hotspot. Continues are rate-limited per device (Config.Limit), and a
// live pass is never dropped to make room: a new device is refused while
// the memory is full of them. Connected then answers that address's
// probes as the internet would (Apple's Success page, Android's 204,
// Windows' connecttest.txt and ncsi.txt, Firefox's success.txt, …), so the
// sheet goes away and the phone keeps the Wi-Fi. docs/decisions/guests.md,
// "Through the captive sheet", says why by address and for how long.
package portal
