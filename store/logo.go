package store

import (
	"context"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// LogoName is the media name of version v of an event's logo, a PNG:
// "<eventID>/logo-<v>.png". Each version is a file of its own, so a logo
// URL carrying its version can be cached for good.
func LogoName(eventID string, v int64) string {
	return MediaName(eventID, "logo-"+strconv.FormatInt(v, 10)+".png")
}

// LogoName is the media name of the event's current logo, "" without one.
func (e Event) LogoName() string {
	if e.LogoVersion == 0 {
		return ""
	}
	return LogoName(e.ID, e.LogoVersion)
}

// SetLogo makes version v the event's logo. The caller has already written
// the file under LogoName(eventID, v) (Media.Write). The previous logo's
// file, if any and of another version, is queued in the trash in the same
// transaction and removed after the commit. v must be positive; callers
// serialise logo changes of an event and pick a v above the current one, so
// that a URL with an old version never serves the new picture.
func (ev Events) SetLogo(ctx context.Context, eventID string, v int64) (Event, error) {
	if v <= 0 {
		return Event{}, fmt.Errorf("setting logo of event %s: version %d is not positive", eventID, v)
	}
	return ev.changeLogo(ctx, eventID, v)
}

// RemoveLogo clears the event's logo (LogoVersion 0) and removes its file
// after the commit. An event without a logo is left as it is.
func (ev Events) RemoveLogo(ctx context.Context, eventID string) (Event, error) {
	return ev.changeLogo(ctx, eventID, 0)
}

func (ev Events) changeLogo(ctx context.Context, eventID string, v int64) (Event, error) {
	var e Event
	err := ev.s.db.Update(func(tx *bolt.Tx) error {
		events := tx.Bucket(bEvents)
		if err := getJSON(events, []byte(eventID), &e); err != nil {
			return err
		}
		if old := e.LogoName(); old != "" && e.LogoVersion != v {
			if err := trash(tx, old); err != nil {
				return err
			}
		}
		e.LogoVersion = v
		return putJSON(events, []byte(eventID), &e)
	})
	if err != nil {
		return Event{}, fmt.Errorf("changing logo of event %s: %w", eventID, err)
	}
	if err := ev.s.EmptyTrash(ctx); err != nil {
		ev.s.log.WarnContext(ctx, "old logo not removed yet", "event", eventID, "error", err)
	}
	return e, nil
}
