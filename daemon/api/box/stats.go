package box

import (
	"net/http"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

const (
	// statsTopGuests is the length of the top guests list.
	statsTopGuests = 10
	// statsSeriesHours bounds the hourly series: the week up to the last
	// active hour, enough for a party and the days after it.
	statsSeriesHours = 7 * 24
)

type statsTotalsDTO struct {
	Events   int   `json:"events"`
	Photos   int   `json:"photos"`
	Videos   int   `json:"videos"`
	Messages int   `json:"messages"`
	Guests   int   `json:"guests"`
	Bytes    int64 `json:"bytes"`
}

type statsPointDTO struct {
	T        int64 `json:"t"`
	Photos   int   `json:"photos"`
	Messages int   `json:"messages"`
}

type topGuestDTO struct {
	Name   *string `json:"name"`
	Photos int     `json:"photos"`
}

type statsBody struct {
	Totals    statsTotalsDTO  `json:"totals"`
	Series    []statsPointDTO `json:"series"`
	TopGuests []topGuestDTO   `json:"topGuests"`
}

// Stats answers totals, the hourly series and the top guests of
// one event (eventId=) or of every event the account may see. An event
// outside an organizer's scope answers 404.
func (a *API) Stats(w http.ResponseWriter, r *http.Request) error {
	acct := visitor.Scope(r)
	var ids []string
	if id := r.URL.Query().Get("eventId"); id != "" {
		if !store.ValidID(id) || !access.Reaches(acct, id) {
			return web.ErrNotFound
		}
		if _, err := a.cfg.Store.Events().Get(r.Context(), id); err != nil {
			return err
		}
		ids = []string{id}
	} else {
		events, err := a.cfg.Store.Events().List(r.Context())
		if err != nil {
			return err
		}
		for _, e := range events {
			if access.Reaches(acct, e.ID) {
				ids = append(ids, e.ID)
			}
		}
	}
	out := statsBody{Totals: statsTotalsDTO{Events: len(ids)}}
	for _, id := range ids {
		c, err := a.cfg.Store.Events().Counts(r.Context(), id)
		if err != nil {
			return err
		}
		out.Totals.Photos += c.Photos
		out.Totals.Videos += c.Videos
		out.Totals.Messages += c.Messages
		out.Totals.Guests += c.Guests
		out.Totals.Bytes += c.Bytes
	}
	hours, err := a.cfg.Store.Stats().Hourly(r.Context(), ids)
	if err != nil {
		return err
	}
	out.Series = hourlySeries(hours)
	top, err := a.cfg.Store.Stats().TopGuests(r.Context(), ids, statsTopGuests)
	if err != nil {
		return err
	}
	out.TopGuests = make([]topGuestDTO, 0, len(top))
	for _, g := range top {
		name := g.Guest.Name
		if g.Guest.Booth {
			name = a.cfg.BoothName
		}
		out.TopGuests = append(out.TopGuests, topGuestDTO{Name: dto.NullString(name), Photos: g.Photos})
	}
	return web.JSON(w, r, http.StatusOK, out)
}

// hourlySeries turns the active hours (oldest first) into a series with
// one point per hour, quiet hours as zeros, over at most statsSeriesHours
// ending at the last active hour.
func hourlySeries(hours []store.HourCount) []statsPointDTO {
	out := []statsPointDTO{}
	if len(hours) == 0 {
		return out
	}
	last := hours[len(hours)-1].Hour
	first := max(hours[0].Hour, last-(statsSeriesHours-1)*store.HourMs)
	byHour := make(map[int64]store.HourCount, len(hours))
	for _, h := range hours {
		byHour[h.Hour] = h
	}
	for t := first; t <= last; t += store.HourMs {
		h := byHour[t]
		out = append(out, statsPointDTO{T: t, Photos: h.Photos, Messages: h.Messages})
	}
	return out
}
