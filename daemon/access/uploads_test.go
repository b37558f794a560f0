package access

import (
	"fmt"
	"testing"
)

// uploadCase is one upload attempt: who sends, how the event is set, and
// how many photos the sender has in.
type uploadCase struct {
	booth, keyOK      bool
	open, ended       bool
	closeAt           int64 // 0, passed (now) or ahead (now+1)
	max, sent         int
	videos, guestbook bool
}

func (c uploadCase) String() string {
	return fmt.Sprintf("booth=%v keyOK=%v open=%v ended=%v closeAt=%d max=%d sent=%d videos=%v guestbook=%v",
		c.booth, c.keyOK, c.open, c.ended, c.closeAt, c.max, c.sent, c.videos, c.guestbook)
}

func (c uploadCase) event() Event {
	return Event{ID: ev, UploadsOpen: c.open, Ended: c.ended, UploadsCloseAt: c.closeAt, MaxPhotosPerGuest: c.max,
		AllowVideos: c.videos, GuestbookEnabled: c.guestbook}
}

func uploadCases() []uploadCase {
	var out []uploadCase
	bools := []bool{false, true}
	for _, booth := range bools {
		for _, keyOK := range bools {
			for _, open := range bools {
				for _, ended := range bools {
					for _, closeAt := range []int64{0, now, now + 1} {
						for _, max := range []int{0, 2} {
							for sent := 0; sent <= 3; sent++ {
								for _, videos := range bools {
									for _, gb := range bools {
										out = append(out, uploadCase{booth: booth, keyOK: keyOK, open: open, ended: ended,
											closeAt: closeAt, max: max, sent: sent, videos: videos, guestbook: gb})
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// wantPhoto is the gate of a photo, in the order the guest meets it.
func wantPhoto(c uploadCase) Refusal {
	switch {
	case c.booth && !c.keyOK:
		// A booth whose key the hosts changed or switched off.
		return RefuseForbidden
	case !c.open || c.ended || c.closeAt == now:
		// Switched off, ended, or past the closing time.
		return RefuseClosed
	case !c.booth && c.max > 0 && c.sent >= c.max:
		// The booth has no quota.
		return RefuseQuota
	}
	return Accepted
}

func TestUploadRules(t *testing.T) {
	n, failed := 0, 0
	fail := func(format string, args ...any) {
		failed++
		if failed <= 20 {
			t.Errorf(format, args...)
		}
	}
	for _, c := range uploadCases() {
		n++
		u, e := Uploader{Booth: c.booth, BoothKeyOK: c.keyOK}, c.event()
		got := MayUpload(u, e, now)
		if got == Accepted {
			got = WithinQuota(u, e, c.sent)
		}
		want := wantPhoto(c)
		if got != want {
			fail("%v: a photo is %q, want %q", c, got, want)
		}
		if quota, wantQuota := UploadQuota(u, e), map[bool]int{false: c.max, true: 0}[c.booth]; quota != wantQuota {
			fail("%v: quota %d, want %d", c, quota, wantQuota)
		}
		// A video meets the same gates, then the event's videos switch.
		if got == Accepted {
			got = MayUploadVideo(e)
		}
		if want == Accepted && !c.videos {
			want = RefuseVideos
		}
		if got != want {
			fail("%v: a video is %q, want %q", c, got, want)
		}
		// A guestbook message: the guestbook on, the event not ended;
		// closed uploads and the quota do not matter.
		want = Accepted
		if !c.guestbook {
			want = RefuseForbidden
		} else if c.ended {
			want = RefuseClosed
		}
		if got := MayWriteGuestbook(e); got != want {
			fail("%v: a guestbook message is %q, want %q", c, got, want)
		}
		if got, want := UploadsOpen(e, now), c.open && !c.ended && c.closeAt != now; got != want {
			fail("%v: UploadsOpen = %v, want %v", c, got, want)
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d combinations wrong", failed, n)
	}
	t.Logf("%d combinations", n)
}
