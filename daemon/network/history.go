package network

import (
	"net/http"
	"time"

	"eventbox/daemon/web"
	"eventbox/store"
)

// sampleDTO is one sample of the evening's chart.
type sampleDTO struct {
	At       int64 `json:"at"`
	Phones   int   `json:"phones"`
	Capacity *int  `json:"capacity"`
	LetGo    int   `json:"letGo"`
}

// letGoDTO counts the idle phones let go.
type letGoDTO struct {
	Hour int `json:"hour"`
	Day  int `json:"day"`
}

// historyBody is GET /api/admin/phones: the phones on the hotspot now and
// over the evening, for every console account (the event's dashboard and
// the nearly-full notice). Counts only: no phone's address leaves.
type historyBody struct {
	// Connected is nil when the radio cannot be asked (no hotspot, no
	// NetworkManager).
	Connected *int `json:"connected"`
	// Capacity is nil when unknown.
	Capacity   *int `json:"capacity"`
	NearlyFull bool `json:"nearlyFull"`
	// Crowded: nearly full for FullNoticeSeconds or more, since
	// CrowdedSince (epoch ms).
	Crowded           bool        `json:"crowded"`
	CrowdedSince      *int64      `json:"crowdedSince"`
	FullNoticeSeconds int         `json:"fullNoticeSeconds"`
	EverySeconds      int         `json:"everySeconds"`
	LetGoIdleSeconds  int         `json:"letGoIdleSeconds"`
	LetGo             letGoDTO    `json:"letGo"`
	Samples           []sampleDTO `json:"samples"`
}

// Phones is GET /api/admin/phones.
func (a *API) Phones(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	now := a.crowdCfg.Now()
	body := historyBody{FullNoticeSeconds: int(a.crowdCfg.FullNotice / time.Second),
		EverySeconds: int(a.crowdCfg.Every / time.Second), Samples: []sampleDTO{}}
	if a.crowdCfg.LetGoIdle > 0 {
		body.LetGoIdleSeconds = int(a.crowdCfg.LetGoIdle / time.Second)
	}
	var samples []store.PhoneSample
	if a.samples != nil {
		var err error
		if samples, err = a.samples.PhoneSamples(ctx, now.Add(-SampleKeep).UnixMilli()); err != nil {
			return err
		}
	}
	hour := now.Add(-time.Hour).UnixMilli()
	for _, s := range samples {
		d := sampleDTO{At: s.At, Phones: s.Phones, LetGo: s.LetGo}
		if s.Capacity > 0 {
			d.Capacity = &s.Capacity
		}
		body.Samples = append(body.Samples, d)
		body.LetGo.Day += s.LetGo
		if s.At >= hour {
			body.LetGo.Hour += s.LetGo
		}
	}
	if since, ok := Crowded(samples, now, a.crowdCfg.Every, a.crowdCfg.FullNotice); ok {
		body.Crowded, body.CrowdedSince = true, &since
	}
	if a.available(ctx) {
		hs, err := a.box.Hotspot(ctx)
		if err != nil {
			return networkFailed(err)
		}
		d, err := a.phones(ctx, hs.Active)
		if err != nil {
			return err
		}
		body.Capacity, body.NearlyFull = d.Capacity, d.NearlyFull
		if hs.Active {
			body.Connected = d.Connected
		}
		// The notice clears as soon as the count drops.
		if body.Connected != nil && !d.NearlyFull {
			body.Crowded, body.CrowdedSince = false, nil
		}
	}
	return web.JSON(w, r, http.StatusOK, body)
}
