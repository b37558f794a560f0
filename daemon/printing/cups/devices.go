package cups

import (
	"context"
	"errors"
	"fmt"
)

// Device is a printer CUPS's backends can see (CUPS-Get-Devices), with or
// without a queue for it.
type Device struct {
	// URI is device-uri ("usb://Canon/SELPHY%20CP1500?serial=…",
	// "ipp://localhost:60000/ipp/print", "cups-pdf:/").
	URI string
	// Info is device-info, the printer's name for people; MakeModel
	// device-make-and-model; Class device-class (direct, network, file,
	// serial); ID the IEEE 1284 device-id ("MFG:Canon;MDL:CP1500;…").
	Info, MakeModel, Class, ID string
}

// Devices asks CUPS's backends for the printers they see, those of the
// schemes given only (include-schemes, CUPS runs no other backend), for
// at most timeoutSeconds. CUPS keeps it for its SystemGroup.
func (c *Client) Devices(ctx context.Context, schemes []string, timeoutSeconds int) ([]Device, error) {
	attrs := []attr{intAttr(tagInteger, "timeout", max(timeoutSeconds, 1)),
		textAttr(tagKeyword, "requested-attributes", "device-uri", "device-info", "device-make-and-model", "device-class", "device-id")}
	if len(schemes) > 0 {
		attrs = append(attrs, textAttr(tagName, "include-schemes", schemes...))
	}
	out, err := c.send(ctx, "/", c.request(opCUPSGetDevices, attrs...), nil, true)
	if errors.Is(err, ErrNotFound) {
		return nil, nil // no device at all
	}
	if err != nil {
		return nil, fmt.Errorf("listing the printers CUPS sees: %w", err)
	}
	var ds []Device
	for _, g := range out.groups {
		if g.tag != tagPrinter || g.str("device-uri") == "" {
			continue
		}
		ds = append(ds, Device{URI: g.str("device-uri"), Info: g.str("device-info"),
			MakeModel: g.str("device-make-and-model"), Class: g.str("device-class"), ID: g.str("device-id")})
	}
	return ds, nil
}

// PPD is a driver CUPS has (CUPS-Get-PPDs).
type PPD struct {
	// Name is ppd-name, what CUPS-Add-Modify-Printer takes.
	Name, MakeModel, DeviceID string
}

// PPDs answers the drivers CUPS finds for a device, best match first:
// by its IEEE 1284 device-id when there is one, else by its make and
// model; at most limit.
func (c *Client) PPDs(ctx context.Context, deviceID, makeModel string, limit int) ([]PPD, error) {
	attrs := []attr{intAttr(tagInteger, "limit", max(limit, 1)),
		textAttr(tagKeyword, "requested-attributes", "ppd-name", "ppd-make-and-model", "ppd-device-id")}
	if deviceID != "" {
		attrs = append(attrs, textAttr(tagText, "ppd-device-id", deviceID))
	}
	if makeModel != "" {
		attrs = append(attrs, textAttr(tagText, "ppd-make-and-model", makeModel))
	}
	out, err := c.do(ctx, "/", c.request(opCUPSGetPPDs, attrs...), nil)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("looking for a driver: %w", err)
	}
	var ps []PPD
	for _, g := range out.groups {
		if g.tag == tagPrinter && g.str("ppd-name") != "" {
			ps = append(ps, PPD{Name: g.str("ppd-name"), MakeModel: g.str("ppd-make-and-model"), DeviceID: g.str("ppd-device-id")})
		}
	}
	return ps, nil
}

// AddPrinter makes (or changes) queue name for the device at deviceURI
// with driver ppd ("everywhere" for an IPP printer that needs none),
// accepting jobs and idle (CUPS-Add-Modify-Printer). CUPS keeps it for
// its SystemGroup.
func (c *Client) AddPrinter(ctx context.Context, name, deviceURI, ppd, info string) error {
	m := c.request(opCUPSAddModifyPrinter, textAttr(tagURI, "printer-uri", printerURI(name)))
	p := group{tag: tagPrinter, attrs: []attr{
		textAttr(tagURI, "device-uri", deviceURI),
		textAttr(tagName, "ppd-name", ppd),
		boolAttr("printer-is-accepting-jobs", true),
		intAttr(tagEnum, "printer-state", PrinterIdle),
	}}
	if info != "" {
		p.attrs = append(p.attrs, textAttr(tagText, "printer-info", info))
	}
	m.groups = append(m.groups, p)
	if _, err := c.send(ctx, "/admin/", m, nil, true); err != nil {
		return fmt.Errorf("adding printer %q: %w", name, err)
	}
	return nil
}
