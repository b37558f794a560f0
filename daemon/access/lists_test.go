package access

import (
	"fmt"
	"testing"
)

// The listings are generated like the media rules: every listing a viewer
// can ask for, with every setting of its event and link, against every
// kind of item, and the expected content stated once per listing in the
// product's terms.

// listItem is an item a list may or may not hold.
type listItem struct {
	status   string // visible, pending, hidden
	favorite bool
	by       string // "G1" (the asking guest), "G2" (another guest), "" (the hosts)
	ready    bool   // display image made / text written
}

func (c listItem) String() string {
	by := "sent by " + c.by
	if c.by == "" {
		by = "added by the hosts"
	}
	return fmt.Sprintf("%s favorite=%v ready=%v %s", c.status, c.favorite, c.ready, by)
}

func (c listItem) item() Item {
	return Item{EventID: ev, GuestID: c.by, Visible: c.status == "visible", Favorite: c.favorite, Ready: c.ready}
}

func listItems() []listItem {
	var out []listItem
	for _, status := range []string{"visible", "pending", "hidden"} {
		for _, fav := range []bool{false, true} {
			for _, by := range []string{"G1", "G2", ""} {
				for _, ready := range []bool{false, true} {
					out = append(out, listItem{status: status, favorite: fav, by: by, ready: ready})
				}
			}
		}
	}
	return out
}

// listing is one list, archive or stream, as its viewer asks for it.
type listing struct {
	name  string
	build func() (Filter, bool) // the rule; false: the route answers 403
	want  func(listItem) bool   // what it holds, in the product's terms
	deny  bool                  // the route refuses (403)
}

func listings() []listing {
	var out []listing
	add := func(l listing) { out = append(out, l) }
	visible := func(it listItem) bool { return it.status == "visible" }
	for _, ec := range eventCases() {
		e := ec.event()
		for _, all := range []bool{false, true} {
			for _, fav := range []bool{false, true} {
				add(listing{
					name:  fmt.Sprintf("guest G1's photos (scope=all %v, favorites=1 %v, %+v)", all, fav, ec),
					build: func() (Filter, bool) { return GuestPhotos("G1", e, now, all, fav), true },
					want: func(it listItem) bool {
						open := all && ec.albumOpen()
						if fav {
							// The open album's favourites: anyone's, visible.
							return open && visible(it) && it.favorite
						}
						// Their own in any status; others' visible ones on
						// an open album with scope=all.
						return it.by == "G1" || (open && visible(it))
					},
				})
			}
		}
		add(listing{
			name:  fmt.Sprintf("a gallery link's guestbook (%+v)", ec),
			build: func() (Filter, bool) { return GalleryMessages(e) },
			want:  func(it listItem) bool { return ec.guestbookInGallery && visible(it) },
			deny:  !ec.guestbookInGallery,
		})
		add(listing{
			name:  fmt.Sprintf("a wall's photos (%+v)", ec),
			build: func() (Filter, bool) { return WallPhotos(e, now), true },
			// None before revealAt; visible ones after (each then needs
			// WallShows).
			want: func(it listItem) bool { return ec.reveal != revealFuture && visible(it) },
		})
	}
	add(listing{
		name:  "guest G1's messages",
		build: func() (Filter, bool) { return GuestMessages("G1"), true },
		want:  func(it listItem) bool { return it.by == "G1" },
	})
	for _, linkFav := range []bool{false, true} {
		for _, dl := range []bool{false, true} {
			l := Link{EventID: ev, FavoritesOnly: linkFav, AllowDownload: dl}
			for _, asked := range []bool{false, true} {
				add(listing{
					name:  fmt.Sprintf("a gallery link's photos (favoritesOnly=%v download=%v, favorites=1 %v)", linkFav, dl, asked),
					build: func() (Filter, bool) { return GalleryPhotos(l, asked), true },
					want:  func(it listItem) bool { return visible(it) && (it.favorite || !linkFav && !asked) },
				})
			}
			add(listing{
				name:  fmt.Sprintf("a gallery link's ZIP (favoritesOnly=%v download=%v)", linkFav, dl),
				build: func() (Filter, bool) { return GalleryArchive(l) },
				want:  func(it listItem) bool { return dl && visible(it) && (it.favorite || !linkFav) },
				deny:  !dl,
			})
		}
	}
	add(listing{
		name:  "the console's lists and live stream",
		build: func() (Filter, bool) { return HostList(), true },
		want:  func(listItem) bool { return true },
	})
	add(listing{
		name:  "the console's guestbook archive",
		build: func() (Filter, bool) { return HostGuestbook(), true },
		want:  func(listItem) bool { return true },
	})
	for _, all := range []bool{false, true} {
		for _, fav := range []bool{false, true} {
			add(listing{
				name:  fmt.Sprintf("the console's ZIP (all=1 %v, favorites=1 %v)", all, fav),
				build: func() (Filter, bool) { return HostArchive(all, fav), true },
				want:  func(it listItem) bool { return (all || visible(it)) && (!fav || it.favorite) },
			})
		}
	}
	for _, fav := range []bool{false, true} {
		add(listing{
			name:  fmt.Sprintf("the printed album (favorites %v)", fav),
			build: func() (Filter, bool) { return AlbumBook(fav), true },
			want:  func(it listItem) bool { return visible(it) && (!fav || it.favorite) },
		})
	}
	for _, fav := range []bool{false, true} {
		add(listing{
			name:  fmt.Sprintf("a cloud export's photos (favorites scope %v)", fav),
			build: func() (Filter, bool) { return CloudPhotos(fav), true },
			want:  func(it listItem) bool { return visible(it) && (!fav || it.favorite) },
		})
	}
	add(listing{
		name:  "a cloud export's guestbook",
		build: func() (Filter, bool) { return CloudGuestbook(), true },
		want:  visible,
	})
	add(listing{
		name:  "a wall's guestbook",
		build: func() (Filter, bool) { return WallMessages(), true },
		want:  visible,
	})
	return out
}

func TestListings(t *testing.T) {
	n, failed := 0, 0
	for _, l := range listings() {
		f, ok := l.build()
		if ok == l.deny {
			t.Errorf("%s: allowed %v, want %v", l.name, ok, !l.deny)
		}
		for _, it := range listItems() {
			n++
			if got, want := f.Holds(it.item()), l.want(it); got != want {
				failed++
				if failed <= 20 {
					t.Errorf("%s holds a %v: %v, want %v", l.name, it, got, want)
				}
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d combinations wrong", failed, n)
	}
	t.Logf("%d combinations", n)
}

// A wall shows an item on its list, its stream and its files only when it
// is visible and ready, and no photo while the album is held back.
func TestWallRules(t *testing.T) {
	for _, it := range listItems() {
		if got, want := WallShows(it.item()), it.status == "visible" && it.ready; got != want {
			t.Errorf("WallShows(%v) = %v, want %v", it, got, want)
		}
	}
	for r := noReveal; r <= revealFuture; r++ {
		for _, shared := range []bool{false, true} {
			e := Event{ID: ev, AlbumShared: shared, RevealAt: r.at()}
			if got, want := WallHolds(e, now), r == revealFuture; got != want {
				t.Errorf("WallHolds(%v, album shared %v) = %v, want %v", r, shared, got, want)
			}
			if got, want := AlbumOpen(e, now), shared && r != revealFuture; got != want {
				t.Errorf("AlbumOpen(%v, album shared %v) = %v, want %v", r, shared, got, want)
			}
		}
	}
}

// A wall's files: an item of the wall's event that it shows, never while
// the album is held back, stated in the product's terms for every item and
// every event setting.
func TestWallFile(t *testing.T) {
	n := 0
	for _, ec := range eventCases() {
		e := ec.event()
		for _, it := range listItems() {
			for _, other := range []bool{false, true} {
				item := it.item()
				if other {
					item.EventID = "E2"
				}
				want := !other && it.status == "visible" && it.ready && ec.reveal != revealFuture
				if got := WallFile(e, item, now); got != want {
					t.Errorf("WallFile(%+v, %v, of another event %v) = %v, want %v", ec, it, other, got, want)
				}
				n++
			}
		}
	}
	t.Logf("%d combinations", n)
}

// A wall's live stream: what it says of each change, for every item after
// the change (or its deletion), whether the wall may have been shown it,
// photos and messages, and every event setting.
func TestWallChange(t *testing.T) {
	type after struct {
		name string
		item *listItem
	}
	afters := []after{{name: "deleted"}}
	for _, it := range listItems() {
		afters = append(afters, after{name: it.String(), item: &it})
	}
	n := 0
	for _, ec := range eventCases() {
		e := ec.event()
		for _, photo := range []bool{false, true} {
			for _, a := range afters {
				for _, shown := range []bool{false, true} {
					var item *Item
					onWall := false
					if a.item != nil {
						it := a.item.item()
						item = &it
						onWall = a.item.status == "visible" && a.item.ready
					}
					var want WallNews
					switch {
					case photo && ec.reveal == revealFuture:
						// Before revealAt a wall hears of no photo.
						want = WallSilent
					case onWall:
						want = WallShow
					case shown:
						// It leaves the wall the wall showed it on.
						want = WallRemove
					default:
						// Never on this wall: not even its id.
						want = WallSilent
					}
					if got := WallChange(e, now, photo, item, shown); got != want {
						t.Errorf("WallChange(%+v, photo %v, %s, shown %v) = %v, want %v", ec, photo, a.name, shown, got, want)
					}
					n++
				}
			}
		}
	}
	t.Logf("%d combinations", n)
}
