package access

// Account is a signed-in console account, as far as the rules read it.
type Account struct {
	// Owner: the account manages the box and reaches every event.
	Owner bool
	// EventIDs are the events an organizer may reach.
	EventIDs []string
}

// Event is what the rules read of an event's settings.
type Event struct {
	ID string
	// AlbumShared: the event's guests see each other's visible photos,
	// once RevealAt has come ([AlbumOpen]).
	AlbumShared bool
	// RevealAt holds the album back until then (epoch ms; 0 = not held):
	// before it, guests do not see each other's photos and walls show
	// none.
	RevealAt int64
	// GuestbookInGallery: the event's gallery links show the guestbook's
	// visible messages, voice notes included.
	GuestbookInGallery bool
	// GuestbookEnabled: guests may write in the guestbook.
	GuestbookEnabled bool
	// UploadsOpen is the hosts' switch for uploads; UploadsCloseAt closes
	// them at a time (epoch ms; 0 = never); Ended: the hosts ended the
	// event, which closes uploads and the guestbook.
	UploadsOpen    bool
	UploadsCloseAt int64
	Ended          bool
	// MaxPhotosPerGuest caps each guest's uploads (0 = no cap).
	MaxPhotosPerGuest int
	// AllowVideos: guests may send videos.
	AllowVideos bool
}

// Link is one gallery link, with its settings as stored now.
type Link struct {
	EventID       string
	FavoritesOnly bool
	AllowDownload bool
	ExpiresAt     int64 // epoch ms; 0 = never
}

// Item is a photo, a video or a guestbook message (a voice note).
type Item struct {
	EventID string
	// GuestID is the guest who sent it; "" for photos the hosts added.
	GuestID  string
	Visible  bool // its status is visible (not pending, not hidden)
	Favorite bool // the hosts marked it a favorite
	// Ready is what a wall needs besides: a photo's display image is
	// made, a message has text.
	Ready bool
}

// Viewer is who asks, worked out once per request from its session and
// cookies.
type Viewer struct {
	// Now is the time of the request, epoch ms; links expire against it.
	Now int64
	// Account is the signed-in console account; nil when there is none.
	Account *Account
	// Guests maps the events this browser joined to the guest id it joined
	// as (the gr_guest cookie).
	Guests map[string]string
	// Links are the gallery links this browser unlocked or visited (the
	// gr_share cookie), as stored now. The daemon may fill in only the
	// links of the event the request is about.
	Links []Link
}

// Variant is a file of a photo or video, the v= of GET /api/media/:id.
type Variant string

// The variants of a photo or video.
const (
	Thumb    Variant = "thumb"    // the 400 px JPEG
	Display  Variant = "display"  // the 1920 px JPEG
	Original Variant = "original" // the file as sent
	Play     Variant = "play"     // a video's file, for playing
)

// Verdict is the answer of [Media].
type Verdict int

// The verdicts of [Media].
const (
	// NotFound: the viewer may not know the item exists (404).
	NotFound Verdict = iota
	// Forbidden: the viewer sees the item but may not have this variant
	// (403).
	Forbidden
	// Allowed: the viewer may have the variant.
	Allowed
)

// String names a verdict, for test output.
func (v Verdict) String() string {
	switch v {
	case Forbidden:
		return "forbidden"
	case Allowed:
		return "allowed"
	default:
		return "not found"
	}
}

// Reaches reports whether the account may reach the event: owners every
// event, organizers their listed events.
func Reaches(a Account, eventID string) bool {
	if a.Owner {
		return true
	}
	for _, id := range a.EventIDs {
		if id == eventID {
			return true
		}
	}
	return false
}

// OwnerActions reports whether the account may take owner-only actions
// (accounts, the box's settings, every event at once).
func OwnerActions(a Account) bool { return a.Owner }

// AlbumOpen reports whether the event's guests see each other's visible
// photos at now (epoch ms): the album is shared and its reveal time, if
// any, has come.
func AlbumOpen(e Event, now int64) bool {
	return e.AlbumShared && (e.RevealAt == 0 || now >= e.RevealAt)
}

// Live reports whether the link is still open at now (epoch ms).
func Live(l Link, now int64) bool { return l.ExpiresAt == 0 || now < l.ExpiresAt }

// LinkShows reports whether the link shows the item: visible ones, and
// only favorites when the link is favorites-only. It does not look at the
// item's event or the link's expiry.
func LinkShows(l Link, it Item) bool { return it.Visible && (!l.FavoritesOnly || it.Favorite) }

// LinkDownloads reports whether the link allows downloads: the ZIP of what
// it shows, and the originals.
func LinkDownloads(l Link) bool { return l.AllowDownload }

// LinkShowsGuestbook reports whether the event's gallery links show its
// guestbook.
func LinkShowsGuestbook(e Event) bool { return e.GuestbookInGallery }

// reachesEvent: the viewer is signed in with an account that reaches the
// event.
func reachesEvent(v Viewer, eventID string) bool {
	return v.Account != nil && Reaches(*v.Account, eventID)
}

// sentBy reports whether the viewer is the guest who sent the item.
func sentBy(v Viewer, it Item) bool {
	g, ok := v.Guests[it.EventID]
	return ok && g != "" && g == it.GuestID
}

// liveLinks returns the viewer's live links of the event.
func liveLinks(v Viewer, eventID string) []Link {
	var out []Link
	for _, l := range v.Links {
		if l.EventID == eventID && Live(l, v.Now) {
			out = append(out, l)
		}
	}
	return out
}

// Media answers whether the viewer may have a variant of a photo or video of
// event e. Whether the item has that variant at all (play of a photo) is
// not an access question.
func Media(v Viewer, e Event, it Item, variant Variant) Verdict {
	if reachesEvent(v, it.EventID) || sentBy(v, it) {
		return Allowed
	}
	if _, guest := v.Guests[it.EventID]; guest && it.Visible && AlbumOpen(e, v.Now) {
		return Allowed
	}
	shown, download := false, false
	for _, l := range liveLinks(v, it.EventID) {
		if LinkShows(l, it) {
			shown = true
			download = download || LinkDownloads(l)
		}
	}
	switch {
	case !shown:
		return NotFound
	case variant == Original && !download:
		// A link without downloads shows photos, not their files as
		// taken (docs/decisions.md, "Gallery links").
		return Forbidden
	}
	return Allowed
}

// Hear reports whether the viewer may hear a voice note of event e.
func Hear(v Viewer, e Event, m Item) bool {
	if reachesEvent(v, m.EventID) || sentBy(v, m) {
		return true
	}
	return m.Visible && LinkShowsGuestbook(e) && len(liveLinks(v, m.EventID)) > 0
}
