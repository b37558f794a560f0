package imaging

import (
	"context"
	"errors"
	"fmt"
	"io"

	"eventbox/imaging/internal/planar"
)

// The smallest thumbnail item PreviewHEIC decodes: the HEIC decoder module
// returns wrong chroma for pictures narrower than this (testdata/README.md).
// Phones write theirs 320 px wide or more.
const previewMinSide = 128

// Preview returns the camera's own small preview of the photo of size bytes
// in r, upright and encoded as a JPEG at ThumbQuality, for the album to show
// while the thumb is being made: the EXIF thumbnail of a JPEG (the package
// function Preview), or the thumbnail item of a HEIC, as iPhones write one
// beside the photo (an HEVC picture of 320×240 or so, a 'thmb' reference to
// the primary image). It never waits for image work: the thumbnail is
// decoded in a decoder instance of its own, whose memory comes from the
// pool's budget only when it is free at once; otherwise, or when the photo
// has no usable preview, it answers ErrNoPreview, wrapped (with
// ErrMemoryBusy in the first case: asking again later may succeed).
func (p *Pool) Preview(ctx context.Context, r io.ReaderAt, size int64) ([]byte, error) {
	return p.preview(ctx, r, size, false)
}

// PreviewWaiting is Preview for the image work itself (a HEIC's rough
// variants): when the image memory is in use it waits for it, as
// Pool.Make does, rather than answer ErrMemoryBusy. A thumbnail item
// takes a few milliseconds; the alternative, decoding the whole photo,
// takes seconds.
func (p *Pool) PreviewWaiting(ctx context.Context, r io.ReaderAt, size int64) ([]byte, error) {
	return p.preview(ctx, r, size, true)
}

// ErrMemoryBusy says Pool.Preview found the image memory in use.
var ErrMemoryBusy = errors.New("the image memory is in use")

func (p *Pool) preview(ctx context.Context, r io.ReaderAt, size int64, wait bool) ([]byte, error) {
	head, err := readAt(r, 0, int(min(size, 512)), size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPreview, err)
	}
	switch f, _ := Sniff(head); f {
	case JPEG:
		return Preview(r, size)
	case HEIC:
		return p.previewHEIC(ctx, r, size, wait)
	}
	return nil, ErrNoPreview
}

// previewHEIC decodes the primary image's thumbnail item.
func (p *Pool) previewHEIC(ctx context.Context, r io.ReaderAt, size int64, wait bool) ([]byte, error) {
	if !heicSupported {
		return nil, ErrNoPreview
	}
	m, err := readHEIFMeta(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPreview, err)
	}
	info, err := m.primaryInfo(Info{Orientation: 1})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPreview, err)
	}
	id, w, h, ok := m.thumbnail(info)
	if !ok {
		return nil, ErrNoPreview
	}
	o, err := m.transforms(id)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPreview, err)
	}
	data, err := m.itemData(r, size, id, previewMaxBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPreview, err)
	}
	hvcC, _ := m.prop(id, "hvcC")
	need := heicInstanceBytes + bppHEIC*int64(w)*int64(h)
	if need > p.memBytes {
		return nil, fmt.Errorf("%w: its thumbnail item needs more than the image memory", ErrNoPreview)
	}
	if wait {
		if err := p.mem.Acquire(ctx, need); err != nil {
			return nil, fmt.Errorf("waiting for the image memory: %w", err)
		}
	} else if !p.mem.TryAcquire(need) {
		return nil, fmt.Errorf("%w: %w", ErrNoPreview, ErrMemoryBusy)
	}
	defer p.mem.Release(need)
	dec := newTileDecoder(withHEIFRuntimes(ctx, p.heif))
	defer dec.Close()
	img, err := dec.decode(singleHEIF(hvcC, w, h, data))
	if err != nil {
		return nil, fmt.Errorf("%w: decoding the thumbnail item: %w", ErrNoPreview, err)
	}
	if img.W != w || img.H != h {
		return nil, fmt.Errorf("%w: the thumbnail item decodes to %dx%d, not %dx%d", ErrNoPreview, img.W, img.H, w, h)
	}
	out, err := encode(planar.Orient(img, o.exif()), ThumbQuality)
	if err != nil {
		return nil, fmt.Errorf("encoding the preview: %w", err)
	}
	return out, nil
}

// thumbnail picks the primary image's first thumbnail item Preview can
// use: HEVC-coded, with its coded configuration, of a preview's size, and
// of the primary image's shape within a pixel of rounding (info is the
// primary's, before its transforms; so are a thumbnail's sizes).
func (m *heifMeta) thumbnail(info Info) (id int64, w, h int, ok bool) {
	for _, id := range m.thumbs[m.primary] {
		if m.types[id] != "hvc1" {
			continue
		}
		if _, ok := m.prop(id, "hvcC"); !ok {
			continue
		}
		w, h, ok := m.ispe(id)
		if !ok || w < previewMinSide || h < previewMinSide || w > previewMaxSide || h > previewMaxSide {
			continue
		}
		if d := w*info.storedH - h*info.storedW; max(d, -d) > max(info.storedW, info.storedH) {
			continue
		}
		return id, w, h, true
	}
	return 0, 0, 0, false
}

// transforms is an item's own rotation and mirror (irot, imir), in the
// order the file associates them, as an orientation.
func (m *heifMeta) transforms(id int64) (orientation, error) {
	var o orientation
	for _, idx := range m.assoc[id] {
		if idx < 1 || idx > len(m.props) {
			continue
		}
		p := m.props[idx-1]
		c := cursor{b: p.payload}
		o = o.transformed(&c, p.typ)
		if c.bad {
			return o, fmt.Errorf("%w: %s property", ErrCorrupt, p.typ)
		}
	}
	return o, nil
}
