package network

import (
	"context"
	"fmt"
	"net/http"

	"eventbox/daemon/web"
	"eventbox/netsetup"
	"eventbox/store"
)

// MaxPhoneCapacity is the most phones a figure may say a radio holds.
const MaxPhoneCapacity = 1000

// phonesDTO is how many phones are on the hotspot and about how many its
// radio holds. Only the count of the phones leaves the box's radio: their
// addresses are not read into the answer, nor kept.
type phonesDTO struct {
	// Connected is nil when the radio could not be asked.
	Connected *int `json:"connected"`
	// Capacity is nil when unknown; CapacityReason then says why.
	Capacity       *int   `json:"capacity"`
	CapacitySource string `json:"capacitySource"`
	CapacityReason string `json:"capacityReason"`
	// NearlyFull: at most one more phone fits.
	NearlyFull bool `json:"nearlyFull"`
	// Setting is the owner's figure, nil when none.
	Setting       *int   `json:"setting"`
	Driver        string `json:"driver"`
	Chip          string `json:"chip"`
	Firmware      string `json:"firmware"`
	FirmwareBuild string `json:"firmwareBuild"`
}

// phones reads the radio, the phones on it (none while the hotspot is
// down: the radio's one station is then the home router) and the
// figures. Only the settings' store failing is an error.
func (a *API) phones(ctx context.Context, hotspotUp bool) (*phonesDTO, error) {
	ns, r, c, err := a.radioCapacity(ctx)
	if err != nil {
		return nil, err
	}
	d := &phonesDTO{CapacitySource: c.Source, CapacityReason: c.Reason, Driver: r.Driver, Chip: r.Chip,
		Firmware: r.Firmware, FirmwareBuild: c.Build}
	if c.Phones > 0 {
		d.Capacity = &c.Phones
	}
	if ns.PhoneCapacity > 0 {
		d.Setting = &ns.PhoneCapacity
	}
	n := 0
	if hotspotUp {
		if n, err = a.box.Stations(ctx); err != nil {
			a.log.InfoContext(ctx, "counting the phones on the hotspot", "error", err)
			return d, nil
		}
	}
	d.Connected = &n
	d.NearlyFull = c.Phones > 0 && n >= c.Phones-1
	return d, nil
}

// radioCapacity reads the screen's settings, the hotspot's radio and the
// figure of phones it holds: the owner's figure, else WIFI_PHONE_CAPACITY,
// else the radio's from the table. Only the settings' store failing is an
// error; a radio that cannot be read gives an unknown figure.
func (a *API) radioCapacity(ctx context.Context) (store.NetworkSettings, netsetup.Radio, netsetup.Capacity, error) {
	ns, err := a.networkSettings(ctx)
	if err != nil {
		return ns, netsetup.Radio{}, netsetup.Capacity{}, err
	}
	r, err := a.box.Radio(ctx)
	if err != nil {
		a.log.DebugContext(ctx, "reading the hotspot's radio", "error", err)
	}
	setting := a.capacity
	if ns.PhoneCapacity > 0 {
		setting = ns.PhoneCapacity
	}
	return ns, r, netsetup.RadioCapacity(r, setting), nil
}

// networkSettings reads the screen's settings; none without a store.
func (a *API) networkSettings(ctx context.Context) (store.NetworkSettings, error) {
	if a.settings == nil {
		return store.NetworkSettings{}, nil
	}
	return a.settings.Settings(ctx)
}

// phonesBody is PUT /api/admin/network/phones.
type phonesBody struct {
	// Capacity is the owner's figure; null forgets it.
	Capacity *int `json:"capacity"`
}

// SetPhones is PUT /api/admin/network/phones: the owner's figure of how
// many phones the radio holds, or null to go back to the box's own.
func (a *API) SetPhones(w http.ResponseWriter, r *http.Request) error {
	var in phonesBody
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	if in.Capacity != nil && (*in.Capacity < 1 || *in.Capacity > MaxPhoneCapacity) {
		return web.Field("capacity", fmt.Sprintf("must be a whole number from 1 to %d, or null for the radio's own figure", MaxPhoneCapacity))
	}
	ctx := r.Context()
	if !a.available(ctx) || a.settings == nil {
		return errUnavailable
	}
	ns, err := a.settings.Settings(ctx)
	if err != nil {
		return err
	}
	ns.PhoneCapacity = 0
	if in.Capacity != nil {
		ns.PhoneCapacity = *in.Capacity
	}
	if err := a.settings.SaveSettings(ctx, ns); err != nil {
		return err
	}
	a.log.InfoContext(ctx, "the radio's phone figure changed", "capacity", ns.PhoneCapacity)
	hs, err := a.box.Hotspot(ctx)
	if err != nil {
		return networkFailed(err)
	}
	d, err := a.phones(ctx, hs.Active)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, struct {
		Phones *phonesDTO `json:"phones"`
	}{d})
}
