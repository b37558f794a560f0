package guests

import (
	"context"
	"errors"

	"eventbox/daemon/dto"
	"eventbox/store"
)

// GalleryMailState is where a guest's gallery mail is: none (no mail was
// queued, or its record is gone), pending, sent or failed.
func (a *API) GalleryMailState(ctx context.Context, g store.Guest) (string, error) {
	if g.GalleryMailJob == 0 {
		return "none", nil
	}
	j, err := a.store.Jobs().Get(ctx, g.GalleryMailJob)
	if errors.Is(err, store.ErrNotFound) {
		return "none", nil
	}
	if err != nil {
		return "", err
	}
	return dto.MailStatus(j.Status), nil
}

// guestGalleryDTO is, on the guest page after the end, the gallery link
// made then and where this guest's mail of it is.
type guestGalleryDTO struct {
	URL           string `json:"url"`
	NeedsPassword bool   `json:"needsPassword"`
	ExpiresAt     *int64 `json:"expiresAt"`
	Mail          string `json:"mail"`
}

// guestGallery answers the end's gallery link for guest g of e, nil when
// the event has not ended, made no link, or the link is gone or expired.
func (a *API) guestGallery(ctx context.Context, origin string, e store.Event, g store.Guest) (*guestGalleryDTO, error) {
	if e.EndedAt == 0 || e.EndShareID == "" {
		return nil, nil
	}
	sh, err := a.store.Shares().Get(ctx, e.ID, e.EndShareID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if sh.ExpiredAt(a.now().UnixMilli()) {
		return nil, nil
	}
	state, err := a.GalleryMailState(ctx, g)
	if err != nil {
		return nil, err
	}
	out := &guestGalleryDTO{URL: origin + "/g/" + sh.Token, NeedsPassword: sh.PasswordHash != "", Mail: state}
	if sh.ExpiresAt != 0 {
		out.ExpiresAt = &sh.ExpiresAt
	}
	return out, nil
}
