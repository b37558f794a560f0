package network

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"eventbox/daemon/web"
	"eventbox/netsetup"
)

// Ports is what the "Radios and ports" card uses of the network, beside
// Box: the box's radios and Ethernet ports, which of them carry the
// hotspot, and which Ethernet port serves guests' access points. NM
// implements it; a Box without it shows no card.
type Ports interface {
	// Ports lists the radios and Ethernet ports.
	Ports(ctx context.Context) ([]netsetup.Port, error)
	// SetGuestPort sets an Ethernet port to guests' access points (on) or
	// back to the home internet.
	SetGuestPort(ctx context.Context, device string, on bool) error
	// SetHotspotRadios puts the hotspot on the radios devices.
	SetHotspotRadios(ctx context.Context, devices []string) error
	// PortPhones counts the phones on a radio (associated) or a guests'
	// port (with a DHCP lease); an error when it cannot tell.
	PortPhones(ctx context.Context, p netsetup.Port) (int, error)
}

var _ Ports = NM{}

// Ports implements Ports.
func (n NM) Ports(ctx context.Context) ([]netsetup.Port, error) { return n.WiFi.Ports(ctx) }

// SetGuestPort implements Ports.
func (n NM) SetGuestPort(ctx context.Context, device string, on bool) error {
	return n.WiFi.SetGuestPort(ctx, device, on)
}

// SetHotspotRadios implements Ports.
func (n NM) SetHotspotRadios(ctx context.Context, devices []string) error {
	return n.WiFi.SetHotspotRadios(ctx, devices)
}

// PortPhones implements Ports.
func (n NM) PortPhones(ctx context.Context, p netsetup.Port) (int, error) {
	return n.WiFi.PortPhones(ctx, p)
}

// portDTO is one radio or Ethernet port on the card.
type portDTO struct {
	Device string `json:"device"`
	// Kind is "wifi" or "ethernet".
	Kind  string `json:"kind"`
	State string `json:"state"`
	USB   bool   `json:"usb"`
	// Use is what it does: "hotspot" (a radio carrying it), "guests"
	// (an Ethernet port serving guests' access points), "home" (its
	// connection is the home internet's) or "none".
	Use string `json:"use"`
	// Phones is how many phones are on it (a radio's associated phones,
	// a guests' port's DHCP leases); nil when it cannot tell or it
	// carries no guests.
	Phones *int `json:"phones"`
}

// portsDTO is the "Radios and ports" card.
type portsDTO struct {
	// GuestPort is the Ethernet port set to guests' access points, ""
	// when none (every port is for the home internet, the default).
	GuestPort string `json:"guestPort"`
	// HotspotRadios are the radios that carry the hotspot.
	HotspotRadios []string  `json:"hotspotRadios"`
	List          []portDTO `json:"list"`
	// Shared lists the addresses from which several devices seem to come
	// (NATWatch): an access point in router mode.
	Shared []SharedAddress `json:"shared"`
}

// portsOf reads the card; nil when the box cannot list its ports.
func (a *API) portsOf(ctx context.Context) *portsDTO {
	pb, ok := a.box.(Ports)
	if !ok {
		return nil
	}
	list, err := pb.Ports(ctx)
	if err != nil {
		a.log.InfoContext(ctx, "listing the radios and ports", "error", err)
		return nil
	}
	d := &portsDTO{List: make([]portDTO, 0, len(list)), HotspotRadios: []string{}, Shared: a.nat.Shared()}
	for _, p := range list {
		pd := portDTO{Device: p.Device, Kind: p.Kind, State: p.State, USB: p.USB, Use: "none"}
		switch {
		case p.Hotspot:
			pd.Use = "hotspot"
			d.HotspotRadios = append(d.HotspotRadios, p.Device)
		case p.Guests:
			pd.Use = "guests"
			d.GuestPort = p.Device
		case p.Connection != "" && p.State == "connected":
			pd.Use = "home"
		}
		if pd.Use == "hotspot" || pd.Use == "guests" {
			if n, err := pb.PortPhones(ctx, p); err == nil {
				pd.Phones = &n
			} else {
				a.log.DebugContext(ctx, "counting the phones on a port", "device", p.Device, "error", err)
			}
		}
		d.List = append(d.List, pd)
	}
	return d
}

// portsBody is PUT /api/admin/network/ports: either field, or both.
type portsBody struct {
	// GuestPort is the Ethernet port to set to guests' access points; ""
	// gives every port back to the home internet.
	GuestPort *string `json:"guestPort"`
	// HotspotRadios are the radios to carry the hotspot, the first with
	// the hotspot's own connection.
	HotspotRadios *[]string `json:"hotspotRadios"`
}

// SetPorts is PUT /api/admin/network/ports: which Ethernet port serves
// guests' access points (one at most; it then stops being the home
// internet's), and which radios carry the hotspot. The choice is kept in
// the screen's settings, and NetworkManager keeps the connections.
func (a *API) SetPorts(w http.ResponseWriter, r *http.Request) error {
	var in portsBody
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	if in.GuestPort == nil && in.HotspotRadios == nil {
		return web.BadRequest(map[string]string{"guestPort": "give guestPort, hotspotRadios or both"})
	}
	ctx := r.Context()
	if !a.available(ctx) {
		return errUnavailable
	}
	pb, ok := a.box.(Ports)
	if !ok {
		return errUnavailable
	}
	list, err := pb.Ports(ctx)
	if err != nil {
		return networkFailed(err)
	}
	kinds := map[string]string{}
	cur := ""
	for _, p := range list {
		kinds[p.Device] = p.Kind
		if p.Guests {
			cur = p.Device
		}
	}
	details := map[string]string{}
	if in.GuestPort != nil && *in.GuestPort != "" && kinds[*in.GuestPort] != "ethernet" {
		details["guestPort"] = "must be one of the box's Ethernet ports, or empty for none"
	}
	if in.HotspotRadios != nil {
		rs := *in.HotspotRadios
		switch {
		case len(rs) == 0 || len(rs) > 4:
			details["hotspotRadios"] = "must name 1 to 4 of the box's Wi-Fi radios"
		default:
			for i, d := range rs {
				if kinds[d] != "wifi" || slices.Contains(rs[:i], d) {
					details["hotspotRadios"] = fmt.Sprintf("%q is not one of the box's Wi-Fi radios, or is named twice", d)
					break
				}
			}
		}
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	if in.GuestPort != nil && *in.GuestPort != cur {
		// The old port goes back to the home internet first: never two
		// guests' ports, never a port both.
		if cur != "" {
			if err := pb.SetGuestPort(ctx, cur, false); err != nil {
				return networkFailed(err)
			}
		}
		if *in.GuestPort != "" {
			if err := pb.SetGuestPort(ctx, *in.GuestPort, true); err != nil {
				return networkFailed(err)
			}
		}
		a.log.InfoContext(ctx, "the guests' access points' port changed", "from", cur, "to", *in.GuestPort)
	}
	if in.HotspotRadios != nil {
		if err := pb.SetHotspotRadios(ctx, *in.HotspotRadios); err != nil {
			return networkFailed(err)
		}
		a.log.InfoContext(ctx, "the hotspot's radios changed", "radios", *in.HotspotRadios)
	}
	if a.settings != nil {
		ns, err := a.settings.Settings(ctx)
		if err != nil {
			return err
		}
		if in.GuestPort != nil {
			ns.GuestPort = *in.GuestPort
		}
		if in.HotspotRadios != nil {
			ns.HotspotRadios = append([]string(nil), *in.HotspotRadios...)
		}
		if err := a.settings.SaveSettings(ctx, ns); err != nil {
			return err
		}
	}
	return web.JSON(w, r, http.StatusOK, struct {
		Ports *portsDTO `json:"ports"`
	}{a.portsOf(ctx)})
}

// NAT is the watch of the browsers behind each address (Config.NAT; nil
// when none, which watches nothing).
func (a *API) NAT() *NATWatch { return a.nat }
