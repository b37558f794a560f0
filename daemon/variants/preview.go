package variants

import (
	"container/list"
	"context"
	"errors"
	"fmt"

	"eventbox/imaging"
	"eventbox/store"
)

// previewCache bounds the previews kept in memory (a few KB each) and
// previewMakers the previews made at once.
const (
	previewCache  = 512
	previewMakers = 2
)

// previews keeps the last previewCache previews made, by photo id, so
// that every guest's album asking for a new photo's preview costs one
// extraction; a photo's entry goes once its variants are made.
type previews struct {
	order *list.List               // of *preview, most recent first
	byID  map[string]*list.Element // photo id → its element in order
}

// preview is one photo's preview; nil data: the photo has none.
type preview struct {
	id   string
	data []byte
}

func newPreviews() *previews {
	return &previews{order: list.New(), byID: map[string]*list.Element{}}
}

func (c *previews) get(id string) ([]byte, bool) {
	e, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*preview).data, true
}

// put keeps b (nil: the photo has none) as id's preview.
func (c *previews) put(id string, b []byte) {
	if e, ok := c.byID[id]; ok {
		c.order.MoveToFront(e)
		e.Value.(*preview).data = b
		return
	}
	c.byID[id] = c.order.PushFront(&preview{id: id, data: b})
	if c.order.Len() > previewCache {
		c.drop(c.order.Back().Value.(*preview).id)
	}
}

func (c *previews) drop(id string) {
	if e, ok := c.byID[id]; ok {
		c.order.Remove(e)
		delete(c.byID, id)
	}
}

// Preview returns what the album shows of a photo while its thumb is
// being made: the camera's own small preview, upright (imaging's
// Pool.Preview: a JPEG's EXIF thumbnail, a HEIC's thumbnail item), or nil
// when the original has none or the image memory is in use.
// It never waits for image work. Extractions run at most previewMakers
// at a time and are kept for the next guest asking; a preview not had
// because the memory was in use is not kept: the next asking tries again.
func (v *Maker) Preview(ctx context.Context, p store.Photo) ([]byte, error) {
	return v.preview(ctx, p, false)
}

// preview is Preview; wait, for the image work's own rough variants,
// waits for the image memory rather than answer nil while it is in use.
func (v *Maker) preview(ctx context.Context, p store.Photo, wait bool) ([]byte, error) {
	v.mu.Lock()
	b, ok := v.previews.get(p.ID)
	v.mu.Unlock()
	if ok {
		return b, nil
	}
	select {
	case v.previewTurns <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	b, err := v.makePreview(ctx, p, wait)
	<-v.previewTurns
	if errors.Is(err, imaging.ErrMemoryBusy) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	v.previews.put(p.ID, b)
	v.mu.Unlock()
	return b, nil
}

// makePreview extracts the photo's preview; nil and no error when it has
// none.
func (v *Maker) makePreview(ctx context.Context, p store.Photo, wait bool) ([]byte, error) {
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
	b, err := v.previewOf(ctx, f, st.Size(), wait)
	if errors.Is(err, imaging.ErrNoPreview) && !errors.Is(err, imaging.ErrMemoryBusy) {
		return nil, nil
	}
	return b, err
}
