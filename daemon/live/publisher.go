package live

import (
	"context"

	"eventbox/store"
)

// Publisher turns changes of stored photos and guestbook messages into
// the hub's changes. The areas that change them call it: read which of
// the items are on the wall before the change (PhotosOnWall,
// MessagesOnWall), make the change, then publish the items' new state
// (PhotosChanged, MessagesChanged) or their removal (PhotosRemoved,
// MessagesRemoved).
type Publisher struct {
	hub   *Hub
	store *store.Store
}

// Changes is the live publisher as the areas that change photos and
// messages see it (daemon/api/guests, moderation, hearts): which of the items
// are on the wall before a change, then their new state or their removal.
// *Publisher is the daemon's; a test may record the calls instead.
type Changes interface {
	PhotosOnWall(ctx context.Context, ids []string) map[string]bool
	MessagesOnWall(ctx context.Context, ids []string) map[string]bool
	PhotosChanged(ctx context.Context, eventID string, ids []string, added bool, before map[string]bool)
	PhotosRemoved(eventID string, ids []string, before map[string]bool)
	MessagesChanged(ctx context.Context, eventID string, ids []string, added bool, before map[string]bool)
	MessagesRemoved(eventID string, ids []string, before map[string]bool)
}

var _ Changes = (*Publisher)(nil)

// NewPublisher makes a publisher to hub that reads the records from st.
func NewPublisher(hub *Hub, st *store.Store) *Publisher {
	return &Publisher{hub: hub, store: st}
}

// PhotosOnWall reads which of the photos are on the wall now: called
// before a change, it says which of them a wall may have been shown
// (Change.Shown). Unknown ids are not.
func (p *Publisher) PhotosOnWall(ctx context.Context, ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		if ph, err := p.store.Photos().Get(ctx, id); err == nil && PhotoOnWall(ph) {
			out[id] = true
		}
	}
	return out
}

// MessagesOnWall is PhotosOnWall for guestbook messages.
func (p *Publisher) MessagesOnWall(ctx context.Context, ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		if m, err := p.store.Messages().Get(ctx, id); err == nil && MessageOnWall(m) {
			out[id] = true
		}
	}
	return out
}

// PhotosChanged publishes the photos' current state after a change: added
// when added is true, changed otherwise, and removed for those that no
// longer exist. before holds the ids that were on the wall before the
// change (PhotosOnWall; nil for new photos).
func (p *Publisher) PhotosChanged(ctx context.Context, eventID string, ids []string, added bool, before map[string]bool) {
	for _, id := range ids {
		ph, err := p.store.Photos().Get(ctx, id)
		switch {
		case err != nil:
			p.hub.Publish(eventID, Change{Kind: PhotoRemoved, ID: id, Shown: before[id]})
		case added:
			p.hub.Publish(eventID, Change{Kind: PhotoAdded, ID: id, Photo: &ph, Shown: before[id]})
		default:
			p.hub.Publish(eventID, Change{Kind: PhotoChanged, ID: id, Photo: &ph, Shown: before[id]})
		}
	}
}

// PhotosRemoved publishes the removal of photos; before is as for
// PhotosChanged.
func (p *Publisher) PhotosRemoved(eventID string, ids []string, before map[string]bool) {
	for _, id := range ids {
		p.hub.Publish(eventID, Change{Kind: PhotoRemoved, ID: id, Shown: before[id]})
	}
}

// MessagesChanged publishes the messages' current state after a change,
// like PhotosChanged.
func (p *Publisher) MessagesChanged(ctx context.Context, eventID string, ids []string, added bool, before map[string]bool) {
	for _, id := range ids {
		m, err := p.store.Messages().Get(ctx, id)
		switch {
		case err != nil:
			p.hub.Publish(eventID, Change{Kind: MessageRemoved, ID: id, Shown: before[id]})
		case added:
			p.hub.Publish(eventID, Change{Kind: MessageAdded, ID: id, Message: &m, Shown: before[id]})
		default:
			p.hub.Publish(eventID, Change{Kind: MessageChanged, ID: id, Message: &m, Shown: before[id]})
		}
	}
}

// MessagesRemoved publishes the removal of messages, like PhotosRemoved.
func (p *Publisher) MessagesRemoved(eventID string, ids []string, before map[string]bool) {
	for _, id := range ids {
		p.hub.Publish(eventID, Change{Kind: MessageRemoved, ID: id, Shown: before[id]})
	}
}
