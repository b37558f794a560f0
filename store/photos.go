package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Photo statuses.
const (
	StatusVisible = "visible"
	StatusPending = "pending"
	StatusHidden  = "hidden"
)

// VideoInfo describes the video behind a video upload; the photo's own
// files are then its poster frame and variants made from it.
type VideoInfo struct {
	DurationMs int64  `json:"durationMs"`
	MIME       string `json:"mime"`
	Size       int64  `json:"size"`
}

// Photo is one uploaded photo or video.
type Photo struct {
	ID          string `json:"id"`
	EventID     string `json:"eventId"`
	GuestID     string `json:"guestId"`   // "" for an admin import
	GuestName   string `json:"guestName"` // name (or import credit) at upload time
	Status      string `json:"status"`
	Favorite    bool   `json:"favorite"`
	ChallengeID string `json:"challengeId"`
	SpotID      string `json:"spotId"`
	CreatedAt   int64  `json:"createdAt"` // epoch ms, unique within the event
	// TakenAt is the capture time read from the photo's EXIF at ingest
	// (imaging.ReadMetadata), epoch ms; 0 when unknown.
	TakenAt     int64  `json:"takenAt,omitempty"`
	Width       int    `json:"width"` // as displayed
	Height      int    `json:"height"`
	Format      string `json:"format"`      // the original's image format
	Size        int64  `json:"size"`        // bytes of the original image
	Fingerprint string `json:"fingerprint"` // retry key of the upload, hex (daemon/ingest/fingerprint.go)
	Downloads   int    `json:"downloads"`
	Variants    bool   `json:"variants"` // thumb and display are on disk
	// VariantsFailed: the photo's variant job was set aside, after
	// VariantAttempts failures or as many attempts that died with the
	// process; only the original exists. Photos.RetryVariants clears it.
	VariantsFailed bool `json:"variantsFailed,omitempty"`
	// VariantsRough: the thumb and display on disk are the camera's own
	// small preview (a HEIC's thumbnail item), made in milliseconds;
	// the sharp ones, made from the whole photo, replace them (a job of
	// SharpenJobKind, queued with the rough ones).
	VariantsRough bool       `json:"variantsRough,omitempty"`
	Video         *VideoInfo `json:"video,omitempty"`
	// Hearts is how many guests and gallery visitors hearted the photo:
	// the number of its entries in the hearts bucket, kept in step with
	// them in the same transaction (hearts.go).
	Hearts int `json:"hearts,omitempty"`
}

// Media names of a photo's files.
func (p Photo) OriginalName() string { return MediaName(p.EventID, p.ID+".orig") }

// VideoName is the media name of a video upload's video file.
func (p Photo) VideoName() string { return MediaName(p.EventID, p.ID+".video") }

// VariantName is the media name of a variant ("thumb", "display").
func (p Photo) VariantName(v string) string { return MediaName(p.EventID, p.ID+"."+v+".jpg") }

func (p Photo) files() []string {
	names := []string{p.OriginalName(), p.VariantName("thumb"), p.VariantName("display")}
	if p.Video != nil {
		names = append(names, p.VideoName())
	}
	return names
}

// ErrQuota: the guest reached the event's per-guest limit.
var ErrQuota = errors.New("photo quota reached")

func statusByte(s string) []byte { return []byte{s[0]} }

// photoIndexKeys returns the index entries of a photo, bucket by bucket.
func photoIndexKeys(p Photo) map[string][]byte {
	ev, ts := []byte(p.EventID), timeKey(p.CreatedAt)
	keys := map[string][]byte{
		string(bPhotoByEvent):  join(ev, ts),
		string(bPhotoByStatus): join(ev, statusByte(p.Status), ts),
	}
	if p.GuestID != "" {
		keys[string(bPhotoByGuest)] = join(ev, []byte(p.GuestID), ts)
	}
	if p.Favorite {
		keys[string(bPhotoFavorite)] = join(ev, ts)
	}
	if p.ChallengeID != "" {
		keys[string(bPhotoByChal)] = join(ev, []byte(p.ChallengeID), ts)
	}
	if p.SpotID != "" {
		keys[string(bPhotoBySpot)] = join(ev, []byte(p.SpotID), ts)
	}
	if p.Hearts > 0 {
		keys[string(bPhotoLoved)] = join(ev, u64(uint64(LovedKey(p))))
	}
	return keys
}

func hashKey(p Photo) []byte {
	sum, _ := hex.DecodeString(p.Fingerprint)
	return join([]byte(p.EventID), []byte(p.GuestID), sum)
}

func putPhoto(tx *bolt.Tx, p Photo) error {
	for bucket, key := range photoIndexKeys(p) {
		if err := tx.Bucket([]byte(bucket)).Put(key, []byte(p.ID)); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bPhotos), []byte(p.ID), p)
}

func removePhotoIndexes(tx *bolt.Tx, p Photo) error {
	for bucket, key := range photoIndexKeys(p) {
		if err := tx.Bucket([]byte(bucket)).Delete(key); err != nil {
			return err
		}
	}
	return nil
}

// AddPhotoResult tells what Photos.Add did.
type AddPhotoResult struct {
	Photo Photo
	// Existing is true when the same guest had already sent the same bytes
	// to the event: Photo is that earlier photo and nothing was stored.
	Existing bool
}

// Photos holds the photos of the events: their records, indexes, downloads
// and variants' state. It is a view of the Store it came from, as cheap to
// copy as a pointer; its methods are safe for concurrent use.
type Photos struct{ s *Store }

// Photos returns the photos of the events.
func (s *Store) Photos() Photos { return Photos{s} }

// Add stores a new photo record with its indexes and counts, and
// enqueues jobs (its variant job, VariantJobSpec), in one transaction,
// after its files are on disk. It assigns
// ID unless set, and CreatedAt: now, moved forward by 1 ms while another
// photo of the event has it. A guest's repeat of the same bytes (same
// Fingerprint) returns the existing photo. quota > 0 limits the guest's photos:
// ErrQuota. A repeat enqueues nothing.
func (ps Photos) Add(ctx context.Context, p Photo, quota int, jobs ...JobSpec) (AddPhotoResult, error) {
	if p.ID == "" {
		p.ID = NewID()
	}
	var res AddPhotoResult
	err := ps.s.db.Update(func(tx *bolt.Tx) error {
		if p.GuestID != "" && p.Fingerprint != "" {
			if id := tx.Bucket(bPhotoByHash).Get(hashKey(p)); id != nil {
				var old Photo
				if err := getJSON(tx.Bucket(bPhotos), id, &old); err != nil {
					return err
				}
				res = AddPhotoResult{Photo: old, Existing: true}
				return nil
			}
		}
		if quota > 0 && p.GuestID != "" && countPrefix(tx.Bucket(bPhotoByGuest), []byte(p.EventID+p.GuestID), quota) >= quota {
			return ErrQuota
		}
		p.CreatedAt = ps.s.nowMs()
		byEvent := tx.Bucket(bPhotoByEvent)
		for byEvent.Get(join([]byte(p.EventID), timeKey(p.CreatedAt))) != nil {
			p.CreatedAt++
		}
		if err := putPhoto(tx, p); err != nil {
			return err
		}
		if p.GuestID != "" && p.Fingerprint != "" {
			if err := tx.Bucket(bPhotoByHash).Put(hashKey(p), []byte(p.ID)); err != nil {
				return err
			}
		}
		if _, err := ps.s.Jobs().enqueue(tx, jobs); err != nil {
			return err
		}
		res = AddPhotoResult{Photo: p}
		if err := addHourly(tx, p.EventID, p.CreatedAt, 1, 0); err != nil {
			return err
		}
		return updateCounts(tx, p.EventID, func(c *EventCounts) {
			c.Photos++
			if p.Video != nil {
				c.Videos++
				c.Bytes += p.Video.Size
			}
			if p.Status == StatusPending {
				c.Pending++
			}
			c.Bytes += p.Size
		})
	})
	if err != nil {
		return AddPhotoResult{}, fmt.Errorf("adding photo: %w", err)
	}
	return res, nil
}

// countPrefix counts keys with the prefix, stopping at max.
func countPrefix(b *bolt.Bucket, prefix []byte, max int) int {
	n := 0
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && n < max; k, _ = c.Next() {
		n++
	}
	return n
}

// CountByGuest returns how many photos a guest has in an event, counting
// up to max (max <= 0: no limit).
func (ps Photos) CountByGuest(ctx context.Context, eventID, guestID string, max int) (int, error) {
	if max <= 0 {
		max = int(^uint(0) >> 1)
	}
	n := 0
	err := ps.s.db.View(func(tx *bolt.Tx) error {
		n = countPrefix(tx.Bucket(bPhotoByGuest), []byte(eventID+guestID), max)
		return nil
	})
	return n, err
}

// Get returns the photo with the id.
func (ps Photos) Get(ctx context.Context, id string) (Photo, error) {
	var p Photo
	err := ps.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bPhotos), []byte(id), &p)
	})
	if err != nil {
		return Photo{}, fmt.Errorf("reading photo %s: %w", id, err)
	}
	return p, nil
}

// Update applies fn to each photo of the event among ids and returns
// the ids it changed (fn reports whether it changed the photo). Ids of
// other events or unknown ids are skipped. Indexes and counts follow.
func (ps Photos) Update(ctx context.Context, eventID string, ids []string, fn func(*Photo) bool) ([]string, error) {
	var changed []string
	err := ps.s.db.Update(func(tx *bolt.Tx) error {
		return eachPhoto(tx, ids, func(p Photo) error {
			if p.EventID != eventID {
				return nil
			}
			before := p
			if !fn(&p) {
				return nil
			}
			p.ID, p.EventID, p.CreatedAt, p.GuestID, p.Hearts = before.ID, before.EventID, before.CreatedAt, before.GuestID, before.Hearts
			if p.Status == StatusHidden && before.Status != StatusHidden {
				// A hidden photo's hearts go with it (hearts.go).
				if err := deletePrefix(tx.Bucket(bHearts), []byte(p.ID)); err != nil {
					return err
				}
				p.Hearts = 0
			}
			if err := removePhotoIndexes(tx, before); err != nil {
				return err
			}
			if err := putPhoto(tx, p); err != nil {
				return err
			}
			if before.Status != p.Status {
				err := updateCounts(tx, eventID, func(c *EventCounts) {
					if before.Status == StatusPending {
						c.Pending--
					}
					if p.Status == StatusPending {
						c.Pending++
					}
				})
				if err != nil {
					return err
				}
			}
			changed = append(changed, p.ID)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("updating photos: %w", err)
	}
	return changed, nil
}

// IncrementDownloads adds n to a photo's download count.
func (ps Photos) IncrementDownloads(ctx context.Context, ids []string) error {
	err := ps.s.db.Update(func(tx *bolt.Tx) error {
		return eachPhoto(tx, ids, func(p Photo) error {
			p.Downloads++
			return putJSON(tx.Bucket(bPhotos), []byte(p.ID), p)
		})
	})
	if err != nil {
		return fmt.Errorf("counting downloads: %w", err)
	}
	return nil
}

// eachPhoto calls fn with each stored photo among ids, skipping unknown
// ids, inside the transaction.
func eachPhoto(tx *bolt.Tx, ids []string, fn func(Photo) error) error {
	for _, id := range ids {
		var p Photo
		if err := getJSON(tx.Bucket(bPhotos), []byte(id), &p); errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

// Delete removes the photos of the event among ids (records, indexes,
// counts and, after the commit, their files) and returns the ids removed.
// With guestID set only that guest's photos are removed.
func (ps Photos) Delete(ctx context.Context, eventID, guestID string, ids []string) ([]string, error) {
	var removed []string
	err := ps.s.db.Update(func(tx *bolt.Tx) error {
		return eachPhoto(tx, ids, func(p Photo) error {
			if p.EventID != eventID || guestID != "" && p.GuestID != guestID {
				return nil
			}
			removed = append(removed, p.ID)
			return deletePhoto(tx, p)
		})
	})
	if err != nil {
		return nil, fmt.Errorf("deleting photos: %w", err)
	}
	if len(removed) > 0 {
		if err := ps.s.EmptyTrash(ctx); err != nil {
			ps.s.log.WarnContext(ctx, "photo files not removed yet", "error", err)
		}
	}
	return removed, nil
}

func deletePhoto(tx *bolt.Tx, p Photo) error {
	if err := removePhotoIndexes(tx, p); err != nil {
		return err
	}
	if p.GuestID != "" && p.Fingerprint != "" {
		if err := tx.Bucket(bPhotoByHash).Delete(hashKey(p)); err != nil {
			return err
		}
	}
	for _, kind := range []string{VariantJobKind, SharpenJobKind} {
		if _, err := cancelJob(tx, kind, p.ID); err != nil {
			return err
		}
	}
	if err := trash(tx, p.files()...); err != nil {
		return err
	}
	if err := deletePrefix(tx.Bucket(bHearts), []byte(p.ID)); err != nil {
		return err
	}
	if err := addHourly(tx, p.EventID, p.CreatedAt, -1, 0); err != nil {
		return err
	}
	if err := updateCounts(tx, p.EventID, func(c *EventCounts) {
		c.Photos--
		if p.Video != nil {
			c.Videos--
			c.Bytes -= p.Video.Size
		}
		if p.Status == StatusPending {
			c.Pending--
		}
		c.Bytes -= p.Size
	}); err != nil {
		return err
	}
	return tx.Bucket(bPhotos).Delete([]byte(p.ID))
}

// deleteEventPhotos removes every photo record and index of an event; the
// caller trashes the event's media folder.
func deleteEventPhotos(tx *bolt.Tx, eventID string) error {
	ev := []byte(eventID)
	c := tx.Bucket(bPhotoByEvent).Cursor()
	var ids [][]byte
	for k, v := c.Seek(ev); k != nil && bytes.HasPrefix(k, ev); k, v = c.Next() {
		ids = append(ids, append([]byte(nil), v...))
	}
	for _, id := range ids {
		if err := tx.Bucket(bPhotos).Delete(id); err != nil {
			return err
		}
		if err := deletePrefix(tx.Bucket(bHearts), id); err != nil {
			return err
		}
		for _, kind := range []string{VariantJobKind, SharpenJobKind} {
			if _, err := cancelJob(tx, kind, string(id)); err != nil {
				return err
			}
		}
	}
	for _, b := range [][]byte{bPhotoByEvent, bPhotoByGuest, bPhotoByStatus, bPhotoFavorite, bPhotoByChal, bPhotoBySpot, bPhotoByHash, bPhotoLoved} {
		if err := deletePrefix(tx.Bucket(b), ev); err != nil {
			return err
		}
	}
	return nil
}

// PhotoQuery selects a page of an event's photos, newest first.
type PhotoQuery struct {
	EventID string
	// GuestID limits the list to one guest's photos (any status). With
	// AlsoVisible, other guests' visible photos are merged in (a guest's
	// scope=all on a shared album).
	GuestID     string
	AlsoVisible bool
	Status      string // "" = any
	Favorites   bool
	ChallengeID string
	SpotID      string
	// Loved lists only the photos with at least one heart, most hearts
	// first (newest first among equals), from the idx_photo_loved index;
	// Before and Page.Next are then LovedKey values, not times.
	Loved  bool
	Before int64 // epoch ms; 0 = from the newest
	Limit  int   // page size; <= 0 means 60
}

// Page is one page of a listing. Next is the createdAt of the last item
// when more items follow, else 0.
type Page[T any] struct {
	Items []T
	Next  int64
}

// List returns one page of photos. It walks the most selective index for
// the query, newest first from Before, and checks the remaining conditions
// on each entry; it never reads the photos bucket in full.
func (ps Photos) List(ctx context.Context, q PhotoQuery) (Page[Photo], error) {
	if q.Limit <= 0 {
		q.Limit = 60
	}
	ev := []byte(q.EventID)
	match := func(p Photo) bool {
		return (q.Status == "" || p.Status == q.Status) &&
			(!q.Favorites || p.Favorite) &&
			(q.ChallengeID == "" || p.ChallengeID == q.ChallengeID) &&
			(q.SpotID == "" || p.SpotID == q.SpotID)
	}
	var out []Photo
	err := ps.s.db.View(func(tx *bolt.Tx) error {
		photos := tx.Bucket(bPhotos)
		walk := func(bucket, prefix []byte, keep func(Photo) bool) ([]Photo, error) {
			var got []Photo
			err := walkNewest(tx.Bucket(bucket), prefix, q.Before, func(id []byte) (bool, error) {
				var p Photo
				if err := getJSON(photos, id, &p); err != nil {
					return false, err
				}
				if keep(p) {
					got = append(got, p)
				}
				return len(got) <= q.Limit, nil
			})
			return got, err
		}
		var err error
		switch {
		case q.GuestID != "" && q.AlsoVisible:
			own, err := walk(bPhotoByGuest, join(ev, []byte(q.GuestID)), match)
			if err != nil {
				return err
			}
			others, err := walk(bPhotoByStatus, join(ev, statusByte(StatusVisible)), func(p Photo) bool {
				return p.GuestID != q.GuestID && match(p)
			})
			if err != nil {
				return err
			}
			out = append(own, others...)
			sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt > out[j].CreatedAt })
		case q.Loved && q.GuestID == "":
			out, err = walk(bPhotoLoved, ev, match)
		case q.GuestID != "":
			out, err = walk(bPhotoByGuest, join(ev, []byte(q.GuestID)), match)
		case q.Favorites:
			out, err = walk(bPhotoFavorite, ev, match)
		case q.ChallengeID != "":
			out, err = walk(bPhotoByChal, join(ev, []byte(q.ChallengeID)), match)
		case q.SpotID != "":
			out, err = walk(bPhotoBySpot, join(ev, []byte(q.SpotID)), match)
		case q.Status != "":
			out, err = walk(bPhotoByStatus, join(ev, statusByte(q.Status)), match)
		default:
			out, err = walk(bPhotoByEvent, ev, match)
		}
		return err
	})
	if err != nil {
		return Page[Photo]{}, fmt.Errorf("listing photos: %w", err)
	}
	page := Page[Photo]{Items: out}
	if len(out) > q.Limit {
		page.Items = out[:q.Limit]
		page.Next = page.Items[q.Limit-1].CreatedAt
		if q.Loved && q.GuestID == "" {
			page.Next = LovedKey(page.Items[q.Limit-1])
		}
	}
	return page, nil
}

// walkNewest calls fn with the value of each key of b that starts with
// prefix followed by an 8-byte time strictly before before (0: no bound),
// newest first, until fn returns false.
func walkNewest(b *bolt.Bucket, prefix []byte, before int64, fn func(v []byte) (bool, error)) error {
	var seek []byte
	if before > 0 {
		seek = join(prefix, timeKey(before))
	} else {
		seek = join(prefix, bytes.Repeat([]byte{0xff}, 8))
	}
	c := b.Cursor()
	var v []byte
	k, _ := c.Seek(seek)
	if k == nil {
		k, v = c.Last()
	} else {
		// Seek lands on the first key >= seek; everything we want is
		// strictly before it.
		k, v = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Prev() {
		if len(k) != len(prefix)+8 {
			continue
		}
		more, err := fn(v)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// ByHash finds a guest's photo in an event by the SHA-256 (hex) of
// its upload: how a retried upload is recognised.
func (ps Photos) ByHash(ctx context.Context, eventID, guestID, sha string) (Photo, error) {
	var p Photo
	err := ps.s.db.View(func(tx *bolt.Tx) error {
		id := tx.Bucket(bPhotoByHash).Get(hashKey(Photo{EventID: eventID, GuestID: guestID, Fingerprint: sha}))
		if id == nil {
			return ErrNotFound
		}
		return getJSON(tx.Bucket(bPhotos), id, &p)
	})
	if err != nil {
		return Photo{}, fmt.Errorf("finding photo by hash: %w", err)
	}
	return p, nil
}
