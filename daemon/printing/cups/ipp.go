// Package cups is the box's client of the local CUPS server: the small part
// of IPP/2.0 (RFC 8010, RFC 8011) and of CUPS's own operations the box
// prints with (CUPS-Get-Printers, Get-Printer-Attributes, Print-Job,
// Get-Job-Attributes, Get-Jobs, Cancel-Job) and adds printers with
// (CUPS-Get-Devices, CUPS-Get-PPDs, CUPS-Add-Modify-Printer), encoded and decoded by hand
// over HTTP to the CUPS socket or a host:port (docs/decisions.md,
// "Talking to CUPS"). It knows nothing of photos or layouts.
package cups

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// IPP operation ids.
const (
	opPrintJob             = 0x0002
	opCancelJob            = 0x0008
	opGetJobAttributes     = 0x0009
	opGetJobs              = 0x000A
	opGetPrinterAttributes = 0x000B
	opCUPSGetPrinters      = 0x4002
	opCUPSAddModifyPrinter = 0x4003
	opCUPSGetDevices       = 0x400B
	opCUPSGetPPDs          = 0x400C
)

// IPP delimiter and value tags.
const (
	tagOperation   = 0x01
	tagJob         = 0x02
	tagEnd         = 0x03
	tagPrinter     = 0x04
	tagInteger     = 0x21
	tagBoolean     = 0x22
	tagEnum        = 0x23
	tagText        = 0x41
	tagName        = 0x42
	tagKeyword     = 0x44
	tagURI         = 0x45
	tagCharset     = 0x47
	tagLanguage    = 0x48
	tagMimeType    = 0x49
	maxValueLength = 1 << 20
)

// attr is one attribute of a message: its tag and its values, each kept as
// its bytes (integers and enums big-endian).
type attr struct {
	name   string
	tag    byte
	values [][]byte
}

// group is one attribute group of a message (operation, job, printer).
type group struct {
	tag   byte
	attrs []attr
}

// message is an IPP request or response.
type message struct {
	// code is the operation id of a request, the status of a response.
	code      uint16
	requestID uint32
	groups    []group
}

// str returns the first value of the named attribute as text.
func (g group) str(name string) string {
	for _, a := range g.attrs {
		if a.name == name && len(a.values) > 0 {
			return string(a.values[0])
		}
	}
	return ""
}

// strs returns every value of the named attribute as text.
func (g group) strs(name string) []string {
	for _, a := range g.attrs {
		if a.name == name {
			out := make([]string, 0, len(a.values))
			for _, v := range a.values {
				out = append(out, string(v))
			}
			return out
		}
	}
	return nil
}

// int returns the first value of the named integer or enum attribute, and
// whether there was one.
func (g group) int(name string) (int, bool) {
	for _, a := range g.attrs {
		if a.name == name && len(a.values) > 0 && len(a.values[0]) == 4 &&
			(a.tag == tagInteger || a.tag == tagEnum) {
			return int(int32(binary.BigEndian.Uint32(a.values[0]))), true
		}
	}
	return 0, false
}

// bool returns the first value of the named boolean attribute.
func (g group) bool(name string) bool {
	for _, a := range g.attrs {
		if a.name == name && a.tag == tagBoolean && len(a.values) > 0 && len(a.values[0]) == 1 {
			return a.values[0][0] != 0
		}
	}
	return false
}

// textAttr, intAttr and friends make a request's attributes.
func textAttr(tag byte, name string, values ...string) attr {
	a := attr{name: name, tag: tag}
	for _, v := range values {
		a.values = append(a.values, []byte(v))
	}
	return a
}

func intAttr(tag byte, name string, v int) attr {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, uint32(int32(v)))
	return attr{name: name, tag: tag, values: [][]byte{b}}
}

func boolAttr(name string, v bool) attr {
	b := byte(0)
	if v {
		b = 1
	}
	return attr{name: name, tag: tagBoolean, values: [][]byte{{b}}}
}

// encode writes m as IPP/2.0.
func (m message) encode() []byte {
	out := []byte{2, 0, byte(m.code >> 8), byte(m.code)}
	out = binary.BigEndian.AppendUint32(out, m.requestID)
	for _, g := range m.groups {
		out = append(out, g.tag)
		for _, a := range g.attrs {
			for i, v := range a.values {
				out = append(out, a.tag)
				name := a.name
				if i > 0 {
					name = ""
				}
				out = binary.BigEndian.AppendUint16(out, uint16(len(name)))
				out = append(out, name...)
				out = binary.BigEndian.AppendUint16(out, uint16(len(v)))
				out = append(out, v...)
			}
		}
	}
	return append(out, tagEnd)
}

// errShort is a message that ends inside its attributes.
var errShort = errors.New("ipp: message cut short")

// decode reads an IPP message's header and attributes from r, leaving any
// document data after them unread. Collections come through flat (their
// members as further values): the box reads none.
func decode(r *bufio.Reader) (message, error) {
	var m message
	head := make([]byte, 8)
	if _, err := io.ReadFull(r, head); err != nil {
		return m, fmt.Errorf("ipp: reading the header: %w", err)
	}
	m.code = binary.BigEndian.Uint16(head[2:4])
	m.requestID = binary.BigEndian.Uint32(head[4:8])
	var cur *group
	for {
		tag, err := r.ReadByte()
		if err != nil {
			return m, errShort
		}
		if tag == tagEnd {
			return m, nil
		}
		if tag < 0x10 {
			m.groups = append(m.groups, group{tag: tag})
			cur = &m.groups[len(m.groups)-1]
			continue
		}
		name, err := readField(r)
		if err != nil {
			return m, err
		}
		value, err := readField(r)
		if err != nil {
			return m, err
		}
		if cur == nil {
			return m, errors.New("ipp: an attribute outside any group")
		}
		if len(name) == 0 {
			if len(cur.attrs) == 0 {
				return m, errors.New("ipp: an additional value without its attribute")
			}
			last := &cur.attrs[len(cur.attrs)-1]
			last.values = append(last.values, value)
			continue
		}
		cur.attrs = append(cur.attrs, attr{name: string(name), tag: tag, values: [][]byte{value}})
	}
}

// readField reads a two-byte length and that many bytes.
func readField(r *bufio.Reader) ([]byte, error) {
	var l [2]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, errShort
	}
	n := int(binary.BigEndian.Uint16(l[:]))
	if n > maxValueLength {
		return nil, errors.New("ipp: value too long")
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, errShort
	}
	return b, nil
}
