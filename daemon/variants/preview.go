package variants

import (
	"container/list"
	"context"
	"errors"
	"fmt"

	"eventbox/daemon/imaging"
	"eventbox/store"
)

// previewCache bounds the previews kept in memory (a few KB each) and
// previewMakers the previews made at once.
const (
	previewCache  = 512
	previewMakers = 2
)

// ErrNoPreview: the photo's thumb is not made and its original carries no
// preview the album could show meanwhile.
var ErrNoPreview = errors.New("photo has no preview")

// previews keeps the last previewCache previews made, by photo id, so
// that every guest's album asking for a new photo's preview costs one
// extraction; a photo's entry goes once its variants are made.
type previews struct {
	order *list.List // of string ids, most recent first
	byID  map[string]*list.Element
	data  map[string][]byte
}

func newPreviews() *previews {
	return &previews{order: list.New(), byID: map[string]*list.Element{}, data: map[string][]byte{}}
}

func (c *previews) get(id string) ([]byte, bool) {
	e, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return c.data[id], true
}

// put keeps b (nil: the photo has none) as id's preview.
func (c *previews) put(id string, b []byte) {
	if e, ok := c.byID[id]; ok {
		c.order.MoveToFront(e)
		c.data[id] = b
		return
	}
	c.byID[id] = c.order.PushFront(id)
	c.data[id] = b
	for c.order.Len() > previewCache {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byID, last.Value.(string))
		delete(c.data, last.Value.(string))
	}
}

func (c *previews) drop(id string) {
	if e, ok := c.byID[id]; ok {
		c.order.Remove(e)
		delete(c.byID, id)
		delete(c.data, id)
	}
}

// Preview returns what the album shows of a photo while its thumb is
// being made: the camera's own small preview from the original's EXIF
// block, upright (imaging.Preview). It never waits for image work: it
// answers ErrNoPreview when the original has none. Extractions run at
// most previewMakers at a time and are kept for the next guest asking.
func (v *Maker) Preview(ctx context.Context, p store.Photo) ([]byte, error) {
	v.mu.Lock()
	b, ok := v.previews.get(p.ID)
	v.mu.Unlock()
	if !ok {
		select {
		case v.previewTurns <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		var err error
		b, err = v.makePreview(p)
		<-v.previewTurns
		if err != nil {
			return nil, err
		}
		v.mu.Lock()
		v.previews.put(p.ID, b)
		v.mu.Unlock()
	}
	if b == nil {
		return nil, ErrNoPreview
	}
	return b, nil
}

// makePreview extracts the photo's preview; nil and no error when it has
// none.
func (v *Maker) makePreview(p store.Photo) ([]byte, error) {
	if p.Video != nil {
		return nil, nil
	}
	f, err := v.store.Media().Open(p.OriginalName())
	if err != nil {
		return nil, fmt.Errorf("opening original of %s: %w", p.ID, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading original of %s: %w", p.ID, err)
	}
	b, err := imaging.Preview(f, st.Size())
	if errors.Is(err, imaging.ErrNoPreview) {
		return nil, nil
	}
	return b, err
}
