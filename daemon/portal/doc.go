// Package portal answers the captive-portal probes that phones and laptops
// send when they join a Wi-Fi network, so that they open their sign-in sheet
// on the box's current event.
//
// On the hotspot every DNS name resolves to the box (see netsetup), so a
// probe such as http://captive.apple.com/hotspot-detect.html reaches the
// daemon. Middleware recognises these requests by host and path and answers
// with a redirect (302) to the page the daemon names, instead of the answer
// each OS expects when it has internet: any other answer makes the OS show
// its portal UI. The middleware keeps no state and sets no cookie, so it
// remembers nothing about the devices that probe. Redirect gives the same
// answer to any request; the daemon sends it for every page asked under a
// Host that is not one of the box's own names.
package portal
