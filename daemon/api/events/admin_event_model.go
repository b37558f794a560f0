package events

import (
	"net/http"

	"eventbox/daemon/dto"
	"eventbox/daemon/web"
	"eventbox/qr"
	"eventbox/store"
)

// eventModelBody is the answer of GET /api/admin/event-model: the event
// model of the store (store.NewEvent, store.Rules) as the console needs it
// to build the event form without a copy of its own.
type eventModelBody struct {
	// Defaults are the fields of a new event, in the event object's shape.
	Defaults dto.EventFields `json:"defaults"`
	// Values are the allowed values of the enum fields, in the order the
	// console offers them. defaultLocale may also be null.
	Values eventValuesDTO `json:"values"`
	// Limits bound numbers, and texts in characters, both ends included.
	Limits eventLimitsDTO `json:"limits"`
	// QRMinContrast is the lowest WCAG contrast accepted between the QR
	// colours (qr.MinContrast).
	QRMinContrast float64 `json:"qrMinContrast"`
}

type eventValuesDTO struct {
	Moderation     []string `json:"moderation"`
	CaptureMode    []string `json:"captureMode"`
	DefaultLocale  []string `json:"defaultLocale"`
	Frame          []string `json:"frame"`
	CaptureFilters []string `json:"captureFilters"`
	WallLayout     []string `json:"wallStyle.layout"`
	QRDots         []string `json:"qrStyle.dots"`
}

type rangeDTO struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

type eventLimitsDTO struct {
	Name              rangeDTO `json:"name"`
	Description       rangeDTO `json:"description"`
	AccessCode        rangeDTO `json:"accessCode"`
	Challenges        rangeDTO `json:"challenges"`
	ChallengeLabel    rangeDTO `json:"challenges.label"`
	MaxPhotosPerGuest rangeDTO `json:"maxPhotosPerGuest"`
	GalleryLinkDays   rangeDTO `json:"galleryLinkDays"`
	WallInterval      rangeDTO `json:"wallStyle.interval"`
}

func toRangeDTO(r store.Range) rangeDTO { return rangeDTO{Min: r.Min, Max: r.Max} }

// EventModel answers the defaults and rules of the event fields to
// any signed-in account: owners create events, organizers edit theirs.
func (a *API) EventModel(w http.ResponseWriter, r *http.Request) error {
	rules := store.Rules()
	return web.JSON(w, r, http.StatusOK, eventModelBody{
		Defaults: dto.EventFieldsOf(store.NewEvent("")),
		Values: eventValuesDTO{
			Moderation: rules.Moderation, CaptureMode: rules.CaptureMode,
			DefaultLocale: rules.DefaultLocale, Frame: rules.Frame,
			CaptureFilters: rules.CaptureFilters, WallLayout: rules.WallLayout, QRDots: rules.QRDots,
		},
		Limits: eventLimitsDTO{
			Name: toRangeDTO(rules.Name), Description: toRangeDTO(rules.Description),
			AccessCode: toRangeDTO(rules.AccessCode), Challenges: toRangeDTO(rules.Challenges),
			ChallengeLabel: toRangeDTO(rules.ChallengeLabel), MaxPhotosPerGuest: toRangeDTO(rules.MaxPhotosPerGuest),
			GalleryLinkDays: toRangeDTO(rules.GalleryLinkDays), WallInterval: toRangeDTO(rules.WallInterval),
		},
		QRMinContrast: qr.MinContrast,
	})
}
