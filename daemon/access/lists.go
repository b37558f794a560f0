package access

// Filter says which of an event's photos or guestbook messages a list, an
// archive or a stream holds for its viewer. The rules below build it; the
// daemon turns it, field by field, into the store's query (and checks
// single items against [Filter.Holds]). What a viewer narrows on purpose
// (a challenge, a place, a page) is not part of it.
type Filter struct {
	// None: the viewer gets nothing at all, an empty list.
	None bool
	// VisibleOnly leaves pending and hidden items out.
	VisibleOnly bool
	// FavoritesOnly keeps the hosts' favorites only (photos; messages
	// have none).
	FavoritesOnly bool
	// GuestID keeps one guest's own items, in any status ("" = every
	// guest's, as the other fields say).
	GuestID string
	// AlsoVisible, with GuestID, adds the other guests' visible items.
	AlsoVisible bool
}

// Holds reports whether the filter lets the item through.
func (f Filter) Holds(it Item) bool {
	if f.None || (f.FavoritesOnly && !it.Favorite) {
		return false
	}
	if f.VisibleOnly && !it.Visible {
		return false
	}
	if f.GuestID == "" {
		return true
	}
	return it.GuestID == f.GuestID || (f.AlsoVisible && it.Visible)
}

// GuestPhotos is what a guest's list of photos holds: the guest's own, in
// any status; with all (scope=all) on an album that is open
// ([AlbumOpen]), the other guests' visible photos too. favorites
// (favorites=1) asks for the open album's favorites: visible favorites of
// anyone, and nothing while the album is not open or all is not asked.
func GuestPhotos(guestID string, e Event, now int64, all, favorites bool) Filter {
	open := all && AlbumOpen(e, now)
	if favorites {
		if !open {
			return Filter{None: true}
		}
		return Filter{VisibleOnly: true, FavoritesOnly: true}
	}
	return Filter{GuestID: guestID, AlsoVisible: open}
}

// GuestMessages is what a guest's list of guestbook messages holds: the
// guest's own, in any status.
func GuestMessages(guestID string) Filter { return Filter{GuestID: guestID} }

// GalleryPhotos is what a gallery link lists: visible photos, favorites
// only when the link is favorites-only or the visitor asks (favorites=1).
func GalleryPhotos(l Link, favorites bool) Filter {
	return Filter{VisibleOnly: true, FavoritesOnly: l.FavoritesOnly || favorites}
}

// GalleryMessages is what a gallery link lists of the guestbook: its
// visible messages, when the event's links show the guestbook; ok false
// otherwise (403 forbidden).
func GalleryMessages(e Event) (f Filter, ok bool) {
	if !LinkShowsGuestbook(e) {
		return Filter{None: true}, false
	}
	return Filter{VisibleOnly: true}, true
}

// GalleryArchive is what a gallery link's ZIP holds: what the link shows,
// when it allows downloads; ok false otherwise (403 forbidden).
func GalleryArchive(l Link) (f Filter, ok bool) {
	if !LinkDownloads(l) {
		return Filter{None: true}, false
	}
	return GalleryPhotos(l, false), true
}

// HostList is what the console lists of an event's photos or messages,
// and its live stream sends: every one, in any status (the hosts narrow
// by status, favorites, challenge or place themselves).
func HostList() Filter { return Filter{} }

// HostArchive is what the console's ZIP of photos holds: visible photos,
// pending and hidden too with all (all=1), favorites only with favorites
// (favorites=1).
func HostArchive(all, favorites bool) Filter {
	return Filter{VisibleOnly: !all, FavoritesOnly: favorites}
}

// HostGuestbook is what the console's guestbook archive holds: every
// message, in any status (guestbook.txt marks those not visible).
func HostGuestbook() Filter { return Filter{} }

// AlbumBook is what the hosts' printed album holds: visible photos,
// favorites only when asked.
func AlbumBook(favorites bool) Filter {
	return Filter{VisibleOnly: true, FavoritesOnly: favorites}
}

// CloudPhotos is what a cloud export sends of the photos and videos:
// visible ones, favorites only with the favorites scope. An export is
// the hosts' copy for keeping, like the printed album: what the hosts
// hid or have not yet approved stays on the box.
func CloudPhotos(favorites bool) Filter {
	return Filter{VisibleOnly: true, FavoritesOnly: favorites}
}

// CloudGuestbook is what a cloud export sends of the guestbook
// (guestbook.txt and the voice notes): visible messages.
func CloudGuestbook() Filter { return Filter{VisibleOnly: true} }

// WallHolds reports whether the event's album is still held back at now
// (epoch ms): before RevealAt a wall shows no photo, by its list, its
// stream or its files.
func WallHolds(e Event, now int64) bool { return e.RevealAt != 0 && now < e.RevealAt }

// WallPhotos is what a wall lists of the photos at now: visible ones,
// none while the album is held back. Each one also needs [WallShows].
func WallPhotos(e Event, now int64) Filter {
	if WallHolds(e, now) {
		return Filter{None: true}
	}
	return Filter{VisibleOnly: true}
}

// WallMessages is what a wall lists of the guestbook: visible messages.
// Each one also needs [WallShows].
func WallMessages() Filter { return Filter{VisibleOnly: true} }

// WallShows reports whether a wall shows the item, on its list or its
// live stream: visible and ready (a photo's display image made, a
// message with text). Whether the album is held back is [WallHolds].
func WallShows(it Item) bool { return it.Visible && it.Ready }

// WallFile reports whether a wall may have a photo's or video's file
// (thumb, display, play) at now: one of the wall's event that it shows
// ([WallShows]), and none while the album is held back ([WallHolds]).
// Anything else is 404, as if it did not exist.
func WallFile(e Event, it Item, now int64) bool {
	return it.EventID == e.ID && WallShows(it) && !WallHolds(e, now)
}

// WallNews is what a wall's live stream says of one change.
type WallNews int

// The answers of [WallChange].
const (
	// WallSilent: nothing, not even the item's id (the stream only moves
	// its reader's position on).
	WallSilent WallNews = iota
	// WallShow: the item as the wall shows it, added or changed.
	WallShow
	// WallRemove: the item's id, as removed from the wall.
	WallRemove
)

// String names an answer, for test output.
func (n WallNews) String() string {
	switch n {
	case WallShow:
		return "show"
	case WallRemove:
		return "remove"
	default:
		return "silent"
	}
}

// WallChange decides what a wall's live stream says at now of a change
// of one of its event's photos (photo) or guestbook messages. after is
// the item after the change, nil when it was deleted; shown says the
// wall may have been shown it before the change (it was on the wall then,
// or an earlier change put it there). While the album is held back
// ([WallHolds]) a wall hears of no photo at all. An item the wall shows
// now ([WallShows]) is shown; one that leaves the wall, or was deleted,
// is named only when the wall may have been shown it: a wall never learns
// the id of anything it was never shown.
func WallChange(e Event, now int64, photo bool, after *Item, shown bool) WallNews {
	switch {
	case photo && WallHolds(e, now):
		return WallSilent
	case after != nil && WallShows(*after):
		return WallShow
	case shown:
		return WallRemove
	default:
		return WallSilent
	}
}
