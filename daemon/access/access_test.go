package access

import (
	"fmt"
	"testing"
)

// The tables below generate every combination of who asks, what is asked
// for and how the event and link are set, and state the expected rule once
// per role, in the terms of the product rather than of the code: a viewer
// may hold several roles at once (an organizer who also joined as a guest
// and opened a gallery link), and gets the most any of its roles allows.

const (
	ev      = "E1" // the event the items belong to
	otherEv = "E2" // another event
	now     = int64(1_000_000)
)

// accountRole is who the browser is signed in as, if anyone.
type accountRole int

const (
	noAccount accountRole = iota
	owner
	organizerInScope
	organizerOutOfScope
)

func (a accountRole) String() string {
	return [...]string{"no account", "owner", "organizer in scope", "organizer out of scope"}[a]
}

// guestRole is what the browser joined as.
type guestRole int

const (
	notJoined      guestRole = iota
	sender                   // the guest who sent the item
	otherGuest               // another guest of the item's event
	guestElsewhere           // the sender's id, but joined to another event
)

func (g guestRole) String() string {
	return [...]string{"not joined", "the sender", "another guest of the event", "a guest of another event"}[g]
}

// linkHeld is the gallery link the browser holds, if any.
type linkHeld struct {
	held, favoritesOnly, allowDownload, expired, ofOtherEvent bool
}

func (l linkHeld) String() string {
	if !l.held {
		return "no link"
	}
	return fmt.Sprintf("link(favoritesOnly=%v download=%v expired=%v otherEvent=%v)", l.favoritesOnly, l.allowDownload, l.expired, l.ofOtherEvent)
}

type viewerCase struct {
	account accountRole
	guest   guestRole
	link    linkHeld
}

func (c viewerCase) String() string { return fmt.Sprintf("%v, %v, %v", c.account, c.guest, c.link) }

func (c viewerCase) viewer() Viewer {
	v := Viewer{Now: now, Guests: map[string]string{}}
	switch c.account {
	case owner:
		v.Account = &Account{Owner: true}
	case organizerInScope:
		v.Account = &Account{EventIDs: []string{otherEv, ev}}
	case organizerOutOfScope:
		v.Account = &Account{EventIDs: []string{otherEv}}
	}
	switch c.guest {
	case sender:
		v.Guests[ev] = "G1"
	case otherGuest:
		v.Guests[ev] = "G2"
	case guestElsewhere:
		v.Guests[otherEv] = "G1"
	}
	if c.link.held {
		l := Link{EventID: ev, FavoritesOnly: c.link.favoritesOnly, AllowDownload: c.link.allowDownload}
		if c.link.expired {
			l.ExpiresAt = now
		} else if c.link.allowDownload {
			l.ExpiresAt = now + 1 // expiring later is as good as never
		}
		if c.link.ofOtherEvent {
			l.EventID = otherEv
		}
		v.Links = []Link{l}
	}
	return v
}

func viewerCases() []viewerCase {
	links := []linkHeld{{}}
	for _, fav := range []bool{false, true} {
		for _, dl := range []bool{false, true} {
			for _, exp := range []bool{false, true} {
				links = append(links, linkHeld{held: true, favoritesOnly: fav, allowDownload: dl, expired: exp})
			}
		}
	}
	links = append(links, linkHeld{held: true, allowDownload: true, ofOtherEvent: true})
	var out []viewerCase
	for a := noAccount; a <= organizerOutOfScope; a++ {
		for g := notJoined; g <= guestElsewhere; g++ {
			for _, l := range links {
				out = append(out, viewerCase{account: a, guest: g, link: l})
			}
		}
	}
	return out
}

type itemCase struct {
	status    string // visible, pending, hidden
	favorite  bool
	video     bool
	hostAdded bool // no guest sent it
}

func (c itemCase) String() string {
	kind := "photo"
	if c.video {
		kind = "video"
	}
	by := "sent by G1"
	if c.hostAdded {
		by = "added by the hosts"
	}
	return fmt.Sprintf("%s %s favorite=%v %s", c.status, kind, c.favorite, by)
}

func (c itemCase) item() Item {
	it := Item{EventID: ev, GuestID: "G1", Visible: c.status == "visible", Favorite: c.favorite}
	if c.hostAdded {
		it.GuestID = ""
	}
	return it
}

// revealCase is when the event's album is revealed.
type revealCase int

const (
	noReveal     revealCase = iota // not held back
	revealCome                     // revealAt is now: it has come
	revealFuture                   // revealAt is still ahead
)

func (r revealCase) String() string {
	return [...]string{"no revealAt", "revealAt come", "revealAt ahead"}[r]
}

func (r revealCase) at() int64 {
	return [...]int64{0, now, now + 1}[r]
}

type eventCase struct {
	albumShared, guestbookInGallery bool
	reveal                          revealCase
}

func (c eventCase) event() Event {
	return Event{ID: ev, AlbumShared: c.albumShared, GuestbookInGallery: c.guestbookInGallery, RevealAt: c.reveal.at()}
}

// albumOpen: guests see each other's visible photos.
func (c eventCase) albumOpen() bool { return c.albumShared && c.reveal != revealFuture }

func eventCases() []eventCase {
	var out []eventCase
	for _, shared := range []bool{false, true} {
		for _, gb := range []bool{false, true} {
			for r := noReveal; r <= revealFuture; r++ {
				out = append(out, eventCase{shared, gb, r})
			}
		}
	}
	return out
}

// wantMedia is the rule for photo and video files, per role.
func wantMedia(v viewerCase, it itemCase, e eventCase, variant Variant) Verdict {
	best := NotFound
	allow := func(got Verdict) {
		if got > best {
			best = got
		}
	}
	// Hosts in scope see everything, in any status, as sent.
	if v.account == owner || v.account == organizerInScope {
		allow(Allowed)
	}
	// The sender sees what they sent, in any status, as sent.
	if v.guest == sender && !it.hostAdded {
		allow(Allowed)
	}
	// Guests of the event see each other's visible photos when the album
	// is shared and its reveal time has come, the files included.
	if (v.guest == sender || v.guest == otherGuest) && it.status == "visible" && e.albumOpen() {
		allow(Allowed)
	}
	// A live link of the event shows visible photos (favorites only when it
	// says so); its originals only with downloads.
	l := v.link
	if l.held && !l.expired && !l.ofOtherEvent && it.status == "visible" && (!l.favoritesOnly || it.favorite) {
		if variant == Original && !l.allowDownload {
			allow(Forbidden)
		} else {
			allow(Allowed)
		}
	}
	return best
}

// wantHear is the rule for voice notes, per role.
func wantHear(v viewerCase, it itemCase, e eventCase) bool {
	hosts := v.account == owner || v.account == organizerInScope
	author := v.guest == sender && !it.hostAdded
	l := v.link
	gallery := l.held && !l.expired && !l.ofOtherEvent && it.status == "visible" && e.guestbookInGallery
	return hosts || author || gallery
}

func TestMedia(t *testing.T) {
	variants := []Variant{Thumb, Display, Original, Play}
	n, failed := 0, 0
	for _, vc := range viewerCases() {
		v := vc.viewer()
		for _, status := range []string{"visible", "pending", "hidden"} {
			for _, fav := range []bool{false, true} {
				for _, video := range []bool{false, true} {
					for _, host := range []bool{false, true} {
						ic := itemCase{status: status, favorite: fav, video: video, hostAdded: host}
						for _, ec := range eventCases() {
							for _, variant := range variants {
								n++
								got := Media(v, ec.event(), ic.item(), variant)
								if want := wantMedia(vc, ic, ec, variant); got != want {
									failed++
									if failed <= 20 {
										t.Errorf("%v asks for the %s of a %v (%+v): %v, want %v", vc, variant, ic, ec, got, want)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d combinations wrong", failed, n)
	}
	t.Logf("%d combinations", n)
}

func TestHear(t *testing.T) {
	n, failed := 0, 0
	for _, vc := range viewerCases() {
		v := vc.viewer()
		for _, status := range []string{"visible", "pending", "hidden"} {
			// A voice note's author is always a guest; hostAdded stands
			// for a note nobody can claim.
			for _, host := range []bool{false, true} {
				ic := itemCase{status: status, hostAdded: host}
				for _, ec := range eventCases() {
					n++
					got := Hear(v, ec.event(), ic.item())
					if want := wantHear(vc, ic, ec); got != want {
						failed++
						if failed <= 20 {
							t.Errorf("%v asks to hear a %s voice note (%+v): %v, want %v", vc, status, ec, got, want)
						}
					}
				}
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d combinations wrong", failed, n)
	}
	t.Logf("%d combinations", n)
}

// A browser may hold several links of one event: it gets the most they
// allow together.
func TestMediaWithSeveralLinks(t *testing.T) {
	favDownload := Link{EventID: ev, FavoritesOnly: true, AllowDownload: true}
	allNoDownload := Link{EventID: ev}
	expiredAll := Link{EventID: ev, AllowDownload: true, ExpiresAt: now - 1}
	otherEvent := Link{EventID: otherEv, AllowDownload: true}
	fav := Item{EventID: ev, GuestID: "G1", Visible: true, Favorite: true}
	plain := Item{EventID: ev, GuestID: "G1", Visible: true}
	tests := []struct {
		name    string
		links   []Link
		it      Item
		variant Variant
		want    Verdict
	}{
		{"a favorite's original through the favorites link with downloads", []Link{allNoDownload, favDownload}, fav, Original, Allowed},
		{"another photo's original, shown only by the link without downloads", []Link{allNoDownload, favDownload}, plain, Original, Forbidden},
		{"another photo's display through the link that shows all", []Link{favDownload, allNoDownload}, plain, Display, Allowed},
		{"an expired link adds nothing", []Link{favDownload, expiredAll}, plain, Display, NotFound},
		{"a link of another event adds nothing", []Link{allNoDownload, otherEvent}, plain, Original, Forbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Viewer{Now: now, Links: tt.links}
			if got := Media(v, Event{ID: ev}, tt.it, tt.variant); got != tt.want {
				t.Errorf("Media = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScope(t *testing.T) {
	tests := []struct {
		name         string
		a            Account
		event        string
		reaches, own bool
	}{
		{"an owner reaches any event and may take owner actions", Account{Owner: true}, ev, true, true},
		{"an owner with no listed events still reaches all", Account{Owner: true, EventIDs: []string{}}, otherEv, true, true},
		{"an organizer reaches a listed event", Account{EventIDs: []string{otherEv, ev}}, ev, true, false},
		{"an organizer does not reach an unlisted event", Account{EventIDs: []string{otherEv}}, ev, false, false},
		{"an organizer without events reaches none", Account{}, ev, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Reaches(tt.a, tt.event); got != tt.reaches {
				t.Errorf("Reaches = %v, want %v", got, tt.reaches)
			}
			if got := OwnerActions(tt.a); got != tt.own {
				t.Errorf("OwnerActions = %v, want %v", got, tt.own)
			}
		})
	}
}

func TestLinkRules(t *testing.T) {
	for _, fav := range []bool{false, true} {
		for _, dl := range []bool{false, true} {
			for _, expiresAt := range []int64{0, now - 1, now, now + 1} {
				l := Link{EventID: ev, FavoritesOnly: fav, AllowDownload: dl, ExpiresAt: expiresAt}
				if got, want := Live(l, now), expiresAt == 0 || expiresAt > now; got != want {
					t.Errorf("Live(%+v) = %v, want %v", l, got, want)
				}
				if got := LinkDownloads(l); got != dl {
					t.Errorf("LinkDownloads(%+v) = %v, want %v", l, got, dl)
				}
				for _, visible := range []bool{false, true} {
					for _, favorite := range []bool{false, true} {
						it := Item{EventID: ev, Visible: visible, Favorite: favorite}
						if got, want := LinkShows(l, it), visible && (favorite || !fav); got != want {
							t.Errorf("LinkShows(%+v, %+v) = %v, want %v", l, it, got, want)
						}
					}
				}
			}
		}
	}
	for _, shared := range []bool{false, true} {
		if got := LinkShowsGuestbook(Event{ID: ev, GuestbookInGallery: shared}); got != shared {
			t.Errorf("LinkShowsGuestbook(guestbookInGallery=%v) = %v", shared, got)
		}
	}
}
