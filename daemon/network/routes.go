package network

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"eventbox/daemon/outbox"
	"eventbox/daemon/web"
	"eventbox/netsetup"
	"eventbox/qr"
	"eventbox/signage"
	"eventbox/store"
)

// hotspotDTO is the hotspot on the screen; the route is the owners', who
// see its password (the one on the guests' table cards).
type hotspotDTO struct {
	Exists      bool   `json:"exists"`
	SSID        string `json:"ssid"`
	HasPassword bool   `json:"hasPassword"`
	Password    string `json:"password"`
	Channel     int    `json:"channel"`
	Country     string `json:"country"`
	On          bool   `json:"on"`
	Active      bool   `json:"active"`
	QRText      string `json:"qrText"`
}

type ethernetDTO struct {
	Device    string `json:"device"`
	State     string `json:"state"`
	Connected bool   `json:"connected"`
}

// homeDTO is the home Wi-Fi the box was told to join, and the fall-back's
// watch of it.
type homeDTO struct {
	SSID      string `json:"ssid"`
	Joining   bool   `json:"joining"`
	Connected bool   `json:"connected"`
	Watching  bool   `json:"watching"`
	FellBack  int    `json:"fellBack"`
	Error     string `json:"error"`
}

// capabilityDTO says what the radio does with the hotspot once online:
// keeps (it can do both), follows (both, the hotspot on the home
// network's channel), stops (one at a time) or unknown.
type capabilityDTO struct {
	Hotspot string `json:"hotspot"`
}

type deliveredDTO struct {
	Mail    *int64 `json:"mail"`
	Webhook *int64 `json:"webhook"`
	Export  *int64 `json:"export"`
}

// stateBody is GET /api/admin/network.
type stateBody struct {
	Available       bool           `json:"available"`
	Hotspot         *hotspotDTO    `json:"hotspot"`
	Ethernet        *ethernetDTO   `json:"ethernet"`
	Home            *homeDTO       `json:"home"`
	Internet        string         `json:"internet"`
	Capability      *capabilityDTO `json:"capability"`
	FallbackSeconds int            `json:"fallbackSeconds"`
	LastDelivered   deliveredDTO   `json:"lastDelivered"`
	Phones          *phonesDTO     `json:"phones"`
	// Ports is the "Radios and ports" card (ports.go); nil when the box
	// cannot list them.
	Ports *portsDTO `json:"ports"`
}

// errUnavailable answers a change asked of a box without NetworkManager.
var errUnavailable = web.ErrUnavailable.With(map[string]string{"network": "NetworkManager is not available on this machine"})

// networkFailed is NetworkManager's refusal, in its own words.
func networkFailed(err error) *web.Error {
	return &web.Error{Status: http.StatusBadGateway, Code: "network_failed", Message: err.Error()}
}

// available answers whether the box has a network to show.
func (a *API) available(ctx context.Context) bool { return a.box != nil && a.box.Available(ctx) }

// State is GET /api/admin/network.
func (a *API) State(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	body := stateBody{FallbackSeconds: int(a.grace / time.Second), Internet: string(netsetup.ConnectivityUnknown)}
	var err error
	if body.LastDelivered, err = a.lastDelivered(ctx); err != nil {
		return err
	}
	if !a.available(ctx) {
		return web.JSON(w, r, http.StatusOK, body)
	}
	body.Available = true
	hs, err := a.hotspot(ctx)
	if err != nil {
		return networkFailed(err)
	}
	body.Hotspot = &hs
	// The reads below are independent calls to NetworkManager and the
	// radio, a process each on the box: side by side, the screen answers
	// in the time of the slowest instead of all of them together (on a
	// box busy with a crowd of phones, that was many seconds).
	var (
		wg                sync.WaitGroup
		eth               netsetup.Link
		conn              netsetup.Connectivity
		c                 netsetup.Capability
		ethErr, connErr   error
		capErr, phonesErr error
		homeErr           error
		homeUp            bool
	)
	fb := a.fallback.State()
	wg.Go(func() { eth, ethErr = a.box.Ethernet(ctx) })
	wg.Go(func() { conn, connErr = a.box.Connectivity(ctx) })
	wg.Go(func() { c, capErr = a.box.Capability(ctx) })
	wg.Go(func() { body.Phones, phonesErr = a.phones(ctx, hs.Active) })
	wg.Go(func() { body.Ports = a.portsOf(ctx) })
	if fb.SSID != "" {
		wg.Go(func() { homeUp, homeErr = a.box.HomeConnected(ctx) })
	}
	wg.Wait()
	if phonesErr != nil {
		return phonesErr
	}
	if ethErr != nil {
		a.log.WarnContext(ctx, "reading Ethernet", "error", ethErr)
	} else if eth.Device != "" {
		body.Ethernet = &ethernetDTO{Device: eth.Device, State: eth.State, Connected: eth.Connected()}
	}
	if connErr != nil {
		a.log.WarnContext(ctx, "checking the internet", "error", connErr)
	} else {
		body.Internet = string(conn)
	}
	if capErr != nil {
		a.log.InfoContext(ctx, "reading the radio's capability", "error", capErr)
	}
	body.Capability = &capabilityDTO{Hotspot: capabilityWord(c)}
	a.mu.Lock()
	joining, joinErr := a.joining, a.joinErr
	a.mu.Unlock()
	if fb.SSID != "" {
		home := &homeDTO{SSID: fb.SSID, Joining: joining, Watching: fb.Armed, FellBack: fb.FellBack, Error: joinErr}
		if homeErr == nil {
			home.Connected = homeUp
		}
		body.Home = home
	}
	return web.JSON(w, r, http.StatusOK, body)
}

func capabilityWord(c netsetup.Capability) string {
	switch {
	case !c.Known:
		return "unknown"
	case c.APAndClient && c.SameChannel:
		return "follows"
	case c.APAndClient:
		return "keeps"
	}
	return "stops"
}

// hotspot reads the hotspot and the country into its answer.
func (a *API) hotspot(ctx context.Context) (hotspotDTO, error) {
	hs, err := a.box.Hotspot(ctx)
	if err != nil {
		return hotspotDTO{}, err
	}
	d := hotspotDTO{Exists: hs.Exists, SSID: hs.SSID, HasPassword: hs.Password != "", Password: hs.Password,
		Channel: hs.Channel, Country: a.box.Country(ctx), On: hs.On, Active: hs.Active}
	if hs.SSID != "" {
		d.QRText = signage.QRText(hs.SSID, hs.Password)
	}
	return d, nil
}

// deliveryKinds are the job kinds whose last success the screen shows.
var deliveryKinds = [...]string{store.MailJobKind, outbox.WebhookJobKind, store.ExportJobKind}

// lastDeliveredLook is how many of a kind's newest jobs are looked at.
const lastDeliveredLook = 200

// lastDelivered reads, per kind, when its latest done job finished among
// the newest lastDeliveredLook of the kind.
func (a *API) lastDelivered(ctx context.Context) (deliveredDTO, error) {
	var at [len(deliveryKinds)]*int64
	for i, kind := range deliveryKinds {
		page, err := a.jobs.List(ctx, store.JobFilter{Kind: kind, Limit: lastDeliveredLook})
		if err != nil {
			return deliveredDTO{}, err
		}
		for _, j := range page.Jobs {
			if j.Status == store.JobDone && (at[i] == nil || j.FinishedAt > *at[i]) {
				t := j.FinishedAt
				at[i] = &t
			}
		}
	}
	return deliveredDTO{Mail: at[0], Webhook: at[1], Export: at[2]}, nil
}

// QRCode is GET /api/admin/network/qr: the hotspot's Wi-Fi QR code, SVG.
func (a *API) QRCode(w http.ResponseWriter, r *http.Request) error {
	if !a.available(r.Context()) {
		return errUnavailable
	}
	hs, err := a.box.Hotspot(r.Context())
	if err != nil {
		return networkFailed(err)
	}
	if hs.SSID == "" {
		return web.ErrNotFound
	}
	var buf bytes.Buffer
	if err := a.qr.SVG(&buf, signage.QRText(hs.SSID, hs.Password), qr.MinSize, qr.DefaultStyle(), hs.SSID); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Cache-Control", "no-store")
	_, err = w.Write(buf.Bytes())
	return err
}

// hotspotBody is PUT /api/admin/network/hotspot: the whole hotspot.
type hotspotBody struct {
	SSID     *string `json:"ssid"`
	Password *string `json:"password"`
	Channel  *int    `json:"channel"`
	Country  *string `json:"country"`
	On       *bool   `json:"on"`
}

// SetHotspot is PUT /api/admin/network/hotspot.
func (a *API) SetHotspot(w http.ResponseWriter, r *http.Request) error {
	var in hotspotBody
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	details := map[string]string{}
	for name, missing := range map[string]bool{"ssid": in.SSID == nil, "password": in.Password == nil,
		"channel": in.Channel == nil, "country": in.Country == nil, "on": in.On == nil} {
		if missing {
			details[name] = "is required"
		}
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	o := netsetup.HotspotOptions{SSID: *in.SSID, Password: *in.Password, Channel: *in.Channel, Country: strings.ToUpper(*in.Country)}
	if d := hotspotProblems(o); len(d) > 0 {
		return web.BadRequest(d)
	}
	ctx := r.Context()
	if !a.available(ctx) {
		return errUnavailable
	}
	cur, err := a.box.Hotspot(ctx)
	if err != nil {
		return networkFailed(err)
	}
	setCountry := o.Country != "" && o.Country != a.box.Country(ctx)
	if err := a.box.SetHotspot(ctx, o, *in.On, cur.Exists, setCountry); err != nil {
		a.log.WarnContext(ctx, "changing the hotspot failed", "error", err)
		return networkFailed(err)
	}
	a.log.InfoContext(ctx, "hotspot changed", "ssid", o.SSID, "channel", o.Channel, "country", o.Country, "on", *in.On, "open", o.Password == "")
	hs, err := a.hotspot(ctx)
	if err != nil {
		return networkFailed(err)
	}
	return web.JSON(w, r, http.StatusOK, struct {
		Hotspot hotspotDTO `json:"hotspot"`
	}{hs})
}

// hotspotProblems checks the hotspot's fields as netsetup would, one
// message per field.
func hotspotProblems(o netsetup.HotspotOptions) map[string]string {
	d := map[string]string{}
	if len(o.SSID) == 0 || len(o.SSID) > 32 {
		d["ssid"] = "must be 1 to 32 bytes"
	} else if web.LineProblem(o.SSID) != "" {
		d["ssid"] = "must not hold control characters"
	}
	if p := o.Password; p != "" && (len(p) < 8 || len(p) > 63 || !printableASCII(p)) {
		d["password"] = "must be 8 to 63 printable ASCII characters, or empty for an open network"
	}
	if o.Channel < 1 || o.Channel > 13 {
		d["channel"] = "must be a 2.4 GHz channel from 1 to 13"
	}
	if c := o.Country; c != "" && (len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z') {
		d["country"] = "must be a two-letter country code such as FR, or empty to keep it"
	}
	return d
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

type networkDTO struct {
	SSID     string `json:"ssid"`
	Signal   int    `json:"signal"`
	Security string `json:"security"`
	Open     bool   `json:"open"`
	InUse    bool   `json:"inUse"`
}

// Scan is GET /api/admin/network/wifi: the networks in range.
func (a *API) Scan(w http.ResponseWriter, r *http.Request) error {
	if !a.available(r.Context()) {
		return errUnavailable
	}
	nets, err := a.box.Scan(r.Context())
	if err != nil {
		return networkFailed(err)
	}
	out := make([]networkDTO, 0, len(nets))
	for _, n := range nets {
		out = append(out, networkDTO{SSID: n.SSID, Signal: n.Signal, Security: n.Security, Open: n.Open(), InUse: n.InUse})
	}
	return web.JSON(w, r, http.StatusOK, struct {
		Networks []networkDTO `json:"networks"`
	}{out})
}

type joinBody struct {
	SSID     *string `json:"ssid"`
	Password *string `json:"password"`
}

// joinTimeout bounds a join in the background (nmcli waits a minute).
const joinTimeout = 2 * time.Minute

// Join is POST /api/admin/network/wifi/join: it answers 202 at once and
// joins in the background, the fall-back armed first: the phone that
// asked loses the box when its radio leaves the hotspot.
func (a *API) Join(w http.ResponseWriter, r *http.Request) error {
	var in joinBody
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	details := map[string]string{}
	if in.SSID == nil {
		details["ssid"] = "is required"
	} else if len(*in.SSID) == 0 || len(*in.SSID) > 32 || web.LineProblem(*in.SSID) != "" {
		details["ssid"] = "must be 1 to 32 bytes without control characters"
	}
	if in.Password == nil {
		details["password"] = "is required (empty for an open network)"
	} else if p := *in.Password; p != "" && (len(p) < 8 || len(p) > 64 || !printableASCII(p)) {
		details["password"] = "must be 8 to 63 printable ASCII characters (or 64 hex digits), or empty for an open network"
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	if !a.available(r.Context()) {
		return errUnavailable
	}
	a.mu.Lock()
	if a.joining {
		a.mu.Unlock()
		return &web.Error{Status: http.StatusConflict, Code: "network_busy", Details: map[string]string{"ssid": "a join is already under way"}}
	}
	a.joining, a.joinErr = true, ""
	a.mu.Unlock()
	ssid, password := *in.SSID, *in.Password
	a.fallback.Joined(ssid)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), joinTimeout)
	a.joins.Add(1)
	go func() {
		defer a.joins.Done()
		defer cancel()
		err := a.box.Join(ctx, ssid, password)
		if err != nil {
			// Before the next join can start (joining is still true).
			a.fallback.JoinFailed(ssid)
		}
		a.mu.Lock()
		a.joining = false
		if err != nil {
			a.joinErr = err.Error()
		}
		a.mu.Unlock()
		if err != nil {
			a.log.WarnContext(ctx, "joining the home Wi-Fi failed; the hotspot comes back once NetworkManager or the watcher brings it, within the grace period",
				"ssid", ssid, "error", err, "grace", a.grace)
			return
		}
		a.log.InfoContext(ctx, "joined the home Wi-Fi", "ssid", ssid)
	}()
	return web.JSON(w, r, http.StatusAccepted, struct {
		SSID            string `json:"ssid"`
		FallbackSeconds int    `json:"fallbackSeconds"`
	}{ssid, int(a.grace / time.Second)})
}

// Back is POST /api/admin/network/hotspot/back: the home Wi-Fi given up
// and the hotspot back, by hand.
func (a *API) Back(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if !a.available(ctx) {
		return errUnavailable
	}
	a.fallback.Disarm()
	if err := a.box.HotspotUp(ctx); err != nil {
		a.log.WarnContext(ctx, "bringing the hotspot back failed", "error", err)
		return networkFailed(err)
	}
	a.log.InfoContext(ctx, "hotspot back by hand")
	return web.JSON(w, r, http.StatusOK, web.OK)
}
