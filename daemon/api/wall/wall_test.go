package wall

import (
	"testing"

	"eventbox/daemon/access"
	"eventbox/daemon/live"
	"eventbox/store"
)

// What a wall's stream sends for each change, once access.WallChange has
// decided: the event name and the data's shape, or nothing.
func TestWallLiveFrame(t *testing.T) {
	photo := &store.Photo{ID: "P1", Width: 4, Height: 3, Status: store.StatusVisible, Variants: true, Fingerprint: "f00d"}
	msg := &store.Message{ID: "M1", Text: "hi", Status: store.StatusVisible}
	rows := []struct {
		name   string
		c      live.Change
		news   access.WallNews
		event  string
		data   any
		silent bool
	}{
		{"a photo arrives on the wall", live.Change{Kind: live.PhotoAdded, ID: "P1", Photo: photo}, access.WallShow, live.PhotoAdded, wallPhotoDTO{ID: "P1", Width: 4, Height: 3}, false},
		{"a photo on the wall changes", live.Change{Kind: live.PhotoChanged, ID: "P1", Photo: photo}, access.WallShow, live.PhotoChanged, wallPhotoDTO{ID: "P1", Width: 4, Height: 3}, false},
		{"a text arrives: a wall knows only changed", live.Change{Kind: live.MessageAdded, ID: "M1", Message: msg}, access.WallShow, live.MessageChanged, wallMessageDTO{ID: "M1", Text: "hi"}, false},
		{"a photo leaves the wall", live.Change{Kind: live.PhotoChanged, ID: "P1", Photo: photo}, access.WallRemove, live.PhotoRemoved, live.Removed{ID: "P1"}, false},
		{"a deleted photo", live.Change{Kind: live.PhotoRemoved, ID: "P1"}, access.WallRemove, live.PhotoRemoved, live.Removed{ID: "P1"}, false},
		{"a deleted text", live.Change{Kind: live.MessageRemoved, ID: "M1"}, access.WallRemove, live.MessageRemoved, live.Removed{ID: "M1"}, false},
		{"a photo the wall may not hear of", live.Change{Kind: live.PhotoAdded, ID: "P1", Photo: photo}, access.WallSilent, "", nil, true},
		{"a text the wall may not hear of", live.Change{Kind: live.MessageRemoved, ID: "M1"}, access.WallSilent, "", nil, true},
	}
	for _, row := range rows {
		name, data, ok := wallLiveFrame(row.c, row.news)
		if ok == row.silent || name != row.event || data != row.data {
			t.Errorf("%s: %q %#v sent %v, want %q %#v sent %v", row.name, name, data, ok, row.event, row.data, !row.silent)
		}
	}
}
