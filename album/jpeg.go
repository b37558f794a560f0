package album

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrImage is returned for an image the album cannot embed: not a JPEG,
// or one a PDF reader cannot draw (12-bit, two components). Nothing has
// been written for it.
var ErrImage = errors.New("not an embeddable JPEG")

// jpegInfo is what a PDF needs to know about a JPEG to embed it as is.
type jpegInfo struct {
	width, height int
	components    int  // 1 gray, 3 YCbCr or RGB, 4 CMYK or YCCK
	adobe         bool // an Adobe APP14 segment: its CMYK is stored inverted
}

// readJPEGInfo reads the markers of a JPEG up to its frame header. It
// reads only the header, skipping segment bodies.
func readJPEGInfo(r io.Reader) (jpegInfo, error) {
	br := bufio.NewReaderSize(r, 4096)
	var soi [2]byte
	if _, err := io.ReadFull(br, soi[:]); err != nil || soi != [2]byte{0xff, 0xd8} {
		return jpegInfo{}, fmt.Errorf("%w: no start-of-image marker", ErrImage)
	}
	var info jpegInfo
	for {
		marker, err := nextMarker(br)
		if err != nil {
			return jpegInfo{}, err
		}
		switch {
		case marker == 0xd8 || marker >= 0xd0 && marker <= 0xd7 || marker == 0x01:
			continue // no length
		case marker == 0xd9 || marker == 0xda:
			return jpegInfo{}, fmt.Errorf("%w: no frame header", ErrImage)
		}
		var lb [2]byte
		if _, err := io.ReadFull(br, lb[:]); err != nil {
			return jpegInfo{}, fmt.Errorf("%w: truncated header", ErrImage)
		}
		length := int(binary.BigEndian.Uint16(lb[:])) - 2
		if length < 0 {
			return jpegInfo{}, fmt.Errorf("%w: bad segment length", ErrImage)
		}
		switch {
		case marker == 0xee && length >= 5: // APP14
			head := make([]byte, 5)
			if _, err := io.ReadFull(br, head); err != nil {
				return jpegInfo{}, fmt.Errorf("%w: truncated header", ErrImage)
			}
			info.adobe = bytes.Equal(head, []byte("Adobe"))
			length -= 5
		case isSOF(marker):
			if length < 6 {
				return jpegInfo{}, fmt.Errorf("%w: short frame header", ErrImage)
			}
			var sof [6]byte
			if _, err := io.ReadFull(br, sof[:]); err != nil {
				return jpegInfo{}, fmt.Errorf("%w: truncated header", ErrImage)
			}
			info.height = int(binary.BigEndian.Uint16(sof[1:3]))
			info.width = int(binary.BigEndian.Uint16(sof[3:5]))
			info.components = int(sof[5])
			switch {
			case sof[0] != 8:
				return jpegInfo{}, fmt.Errorf("%w: %d bits per sample", ErrImage, sof[0])
			case info.width == 0 || info.height == 0:
				return jpegInfo{}, fmt.Errorf("%w: no size in the frame header", ErrImage)
			case info.components != 1 && info.components != 3 && info.components != 4:
				return jpegInfo{}, fmt.Errorf("%w: %d components", ErrImage, info.components)
			}
			return info, nil
		}
		if _, err := br.Discard(length); err != nil {
			return jpegInfo{}, fmt.Errorf("%w: truncated header", ErrImage)
		}
	}
}

// nextMarker skips to the next marker and returns its code.
func nextMarker(br *bufio.Reader) (byte, error) {
	c, err := br.ReadByte()
	for err == nil && c != 0xff {
		c, err = br.ReadByte()
	}
	for err == nil && c == 0xff {
		c, err = br.ReadByte()
	}
	if err != nil {
		return 0, fmt.Errorf("%w: truncated header", ErrImage)
	}
	return c, nil
}

// isSOF reports whether a marker starts a frame (any coding but the
// arithmetic-free lossless and hierarchical markers DHT, JPG and DAC).
func isSOF(m byte) bool {
	return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc
}

// imageDict is the XObject dictionary of an embedded JPEG, less /Length.
func (j jpegInfo) imageDict() string {
	cs := "/DeviceRGB"
	decode := ""
	switch j.components {
	case 1:
		cs = "/DeviceGray"
	case 4:
		cs = "/DeviceCMYK"
		if j.adobe {
			decode = " /Decode [1 0 1 0 1 0 1 0]"
		}
	}
	return fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8 /Filter /DCTDecode%s",
		j.width, j.height, cs, decode)
}
