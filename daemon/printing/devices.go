package printing

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"eventbox/daemon/printing/cups"
	"eventbox/daemon/web"
)

// DefaultDeviceSchemes are the printers a host may add from the console:
// USB printers (usb), IPP printers (ipp, ipps: ipp-usb's IPP-over-USB
// ones, on localhost only) and those announced on the network (dnssd).
var DefaultDeviceSchemes = []string{"usb", "ipp", "ipps", "dnssd"}

// deviceDTO is a printer CUPS sees that has no queue yet.
type deviceDTO struct {
	URI       string `json:"uri"`
	Info      string `json:"info"`
	MakeModel string `json:"makeModel"`
	Class     string `json:"class"`
	DeviceID  string `json:"deviceId"`
	// Name is the queue name the console suggests; Driverless that CUPS
	// needs no driver for it (IPP Everywhere).
	Name       string `json:"name"`
	Driverless bool   `json:"driverless"`
}

// errPrinterFailed is CUPS refusing to list or add printers: details
// carry a reason the console words (not_authorized, refused, no_driver,
// unreachable) and CUPS's own words.
var errPrinterFailed = &web.Error{Status: http.StatusBadGateway, Code: "printer_failed"}

func printerFailed(err error) *web.Error {
	var st *cups.StatusError
	switch {
	case errors.Is(err, cups.ErrNotAuthorized):
		return errPrinterFailed.With(map[string]string{"reason": "not_authorized", "cups": err.Error()})
	case errors.As(err, &st):
		return errPrinterFailed.With(map[string]string{"reason": "refused", "cups": st.Message})
	}
	return errPrinterFailed.With(map[string]string{"reason": "unreachable", "cups": err.Error()})
}

// validScheme is a URI scheme (RFC 3986), in lower case as CUPS writes it.
var validScheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)

// splitURI answers a device URI's scheme and authority (between "//" and
// the path), as CUPS's backends write them: a dnssd URI's authority is a
// service name with %20 for its spaces, which url.Parse refuses as a host.
func splitURI(uri string) (scheme, authority string, ok bool) {
	if len(uri) > 1023 || strings.ContainsFunc(uri, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", "", false
	}
	scheme, rest, ok := strings.Cut(uri, ":")
	if !ok || !validScheme.MatchString(scheme) {
		return "", "", false
	}
	if rest, ok = strings.CutPrefix(rest, "//"); ok {
		authority, _, _ = strings.Cut(rest, "/")
		authority, _, _ = strings.Cut(authority, "?")
	}
	return scheme, authority, true
}

// allowedDevice reports whether the box may add a queue for uri: one of
// the schemes, and an IPP printer only on this box (ipp-usb).
func (a *API) allowedDevice(uri string) bool {
	scheme, _, ok := splitURI(uri)
	if !ok || !slices.Contains(a.cfg.DeviceSchemes, scheme) {
		return false
	}
	if scheme == "ipp" || scheme == "ipps" {
		u, err := url.Parse(uri)
		if err != nil {
			return false
		}
		h := u.Hostname()
		ip := net.ParseIP(h)
		return h == "localhost" || ip != nil && ip.IsLoopback()
	}
	return true
}

// driverless reports whether CUPS prints on uri without a driver: an
// IPP printer, directly or announced as one.
func driverless(uri string) bool {
	scheme, authority, ok := splitURI(uri)
	if !ok {
		return false
	}
	switch scheme {
	case "ipp", "ipps":
		return true
	case "dnssd":
		return strings.Contains(authority, "._ipp._tcp") || strings.Contains(authority, "._ipps._tcp")
	}
	return false
}

// validName is a queue name CUPS and the console's URLs take as is.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// suggestName makes a queue name of a device's words ("Canon SELPHY
// CP1500" becomes Canon_SELPHY_CP1500).
func suggestName(d cups.Device) string {
	src := d.MakeModel
	if src == "" || strings.EqualFold(src, "unknown") {
		src = d.Info
	}
	var b strings.Builder
	for _, r := range src {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		default:
			if s := b.String(); s != "" && !strings.HasSuffix(s, "_") {
				b.WriteByte('_')
			}
		}
		if b.Len() >= 60 {
			break
		}
	}
	n := strings.Trim(b.String(), "_-")
	if !validName.MatchString(n) {
		return "printer"
	}
	return n
}

// Devices answers GET /api/admin/printing/devices (owners): the printers
// CUPS's backends see that have no queue yet, for the console's "Add".
func (a *API) Devices(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), a.cfg.DeviceTimeout+10*time.Second)
	defer cancel()
	body := struct {
		Available bool        `json:"available"`
		Devices   []deviceDTO `json:"devices"`
	}{Devices: []deviceDTO{}}
	ps, err := a.cups.Printers(ctx)
	if err != nil {
		a.log.WarnContext(ctx, "listing printers", "error", err)
		return web.JSON(w, r, http.StatusOK, body)
	}
	ds, err := a.cups.Devices(ctx, a.cfg.DeviceSchemes, int(a.cfg.DeviceTimeout/time.Second))
	if err != nil {
		a.log.WarnContext(ctx, "listing the printers CUPS sees", "error", err)
		if errors.Is(err, cups.ErrNotAuthorized) {
			return printerFailed(err)
		}
		return web.JSON(w, r, http.StatusOK, body)
	}
	body.Available = true
	for _, d := range ds {
		queued := slices.ContainsFunc(ps, func(p cups.Printer) bool { return p.DeviceURI == d.URI })
		if queued || !a.allowedDevice(d.URI) {
			continue
		}
		body.Devices = append(body.Devices, deviceDTO{URI: d.URI, Info: d.Info, MakeModel: d.MakeModel, Class: d.Class,
			DeviceID: d.ID, Name: suggestName(d), Driverless: driverless(d.URI)})
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// addPrinterRequest is the body of POST /api/admin/printing/printers.
type addPrinterRequest struct {
	Name      string               `json:"name"`
	URI       string               `json:"uri"`
	Info      web.Optional[string] `json:"info"`
	MakeModel web.Optional[string] `json:"makeModel"`
	DeviceID  web.Optional[string] `json:"deviceId"`
}

// AddPrinter answers POST /api/admin/printing/printers (owners): a CUPS
// queue for a printer CUPS sees, with IPP Everywhere for an IPP printer
// and otherwise the driver CUPS finds best for its device id or model.
func (a *API) AddPrinter(w http.ResponseWriter, r *http.Request) error {
	var req addPrinterRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	details := map[string]string{}
	if !validName.MatchString(req.Name) {
		details["name"] = "must be 1 to 64 letters, digits, - or _, starting with a letter or digit"
	}
	if !a.allowedDevice(req.URI) {
		details["uri"] = "must be the uri of a printer the box sees (" + strings.Join(a.cfg.DeviceSchemes, ", ") + "; ipp only on localhost)"
	}
	for field, v := range map[string]web.Optional[string]{"info": req.Info, "makeModel": req.MakeModel, "deviceId": req.DeviceID} {
		if len(v.Value) > 1023 || strings.ContainsAny(v.Value, "\x00\r\n") {
			details[field] = "must be at most 1023 characters on one line"
		}
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	ppd := "everywhere"
	if !driverless(req.URI) {
		ppds, err := a.cups.PPDs(ctx, req.DeviceID.Value, req.MakeModel.Value, 5)
		if err != nil {
			return printerFailed(err)
		}
		if len(ppds) == 0 {
			return errPrinterFailed.With(map[string]string{"reason": "no_driver", "cups": "no driver for " + req.MakeModel.Value})
		}
		ppd = ppds[0].Name
	}
	info := req.Info.Value
	if info == "" {
		info = req.MakeModel.Value
	}
	if err := a.cups.AddPrinter(ctx, req.Name, req.URI, ppd, info); err != nil {
		a.log.WarnContext(ctx, "adding a printer", "name", req.Name, "uri", req.URI, "ppd", ppd, "error", err)
		return printerFailed(err)
	}
	a.log.InfoContext(ctx, "printer added", "name", req.Name, "uri", req.URI, "ppd", ppd)
	p, err := a.cups.Printer(ctx, req.Name)
	if err != nil {
		return printerFailed(err)
	}
	return web.JSON(w, r, http.StatusCreated, struct {
		Printer printerDTO `json:"printer"`
	}{toPrinterDTO(p)})
}
