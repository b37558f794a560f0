package box

import (
	"errors"
	"net/http"
	"time"

	"eventbox/daemon/clock"
	"eventbox/daemon/web"
)

type clockRequest struct {
	// Now is the browser's time, epoch ms.
	Now *int64 `json:"now"`
}

type clockBody struct {
	Clock    clock.State `json:"clock"`
	Changed  bool        `json:"changed"`
	OffsetMs int64       `json:"offsetMs"`
}

// SetClock sets the box's clock from an owner's browser while it is
// unsure; a clock already synced or set is left alone (changed false).
func (a *API) SetClock(w http.ResponseWriter, r *http.Request) error {
	var req clockRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Now == nil {
		return web.Field("now", "required")
	}
	res, err := a.cfg.Clock.Set(r.Context(), time.UnixMilli(*req.Now))
	if errors.Is(err, clock.ErrOutOfRange) {
		return web.Field("now", "must be a time between 2025 and 2100")
	}
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, clockBody{Clock: res.State, Changed: res.Changed, OffsetMs: res.Offset.Milliseconds()})
}
