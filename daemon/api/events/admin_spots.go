package events

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"eventbox/daemon/web"
	"eventbox/store"
)

// maxSpotLabel is the longest place label (spec: 1 to 40 characters).
const maxSpotLabel = 40

type spotDTO struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Photos int    `json:"photos"`
}

type spotBody struct {
	Spot spotDTO `json:"spot"`
}

type spotListBody struct {
	Spots []spotDTO `json:"spots"`
}

type spotRequest struct {
	Label string `json:"label"`
}

// label validates a place label: spaces collapsed, 1 to 40 characters.
func (req spotRequest) label() (string, error) {
	label := strings.Join(strings.Fields(req.Label), " ")
	if n := utf8.RuneCountInString(label); n < 1 || n > maxSpotLabel {
		return "", web.Field("label", fmt.Sprintf("must be 1 to %d characters", maxSpotLabel))
	}
	if msg := web.LineProblem(label); msg != "" {
		return "", web.Field("label", msg)
	}
	return label, nil
}

func (a *API) spotDTO(r *http.Request, sp store.Spot) (spotDTO, error) {
	n, err := a.store.Spots().PhotoCount(r.Context(), sp.EventID, sp.ID)
	if err != nil {
		return spotDTO{}, err
	}
	return spotDTO{ID: sp.ID, Label: sp.Label, Photos: n}, nil
}

// ListSpots lists an event's places, oldest first, with the number
// of photos tagged with each.
func (a *API) ListSpots(w http.ResponseWriter, r *http.Request, e store.Event) error {
	spots, err := a.store.Spots().List(r.Context(), e.ID)
	if err != nil {
		return err
	}
	out := spotListBody{Spots: make([]spotDTO, 0, len(spots))}
	for _, sp := range spots {
		d, err := a.spotDTO(r, sp)
		if err != nil {
			return err
		}
		out.Spots = append(out.Spots, d)
	}
	return web.JSON(w, r, http.StatusOK, out)
}

// CreateSpot adds a place; the 101st answers 400 naming label.
func (a *API) CreateSpot(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var req spotRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	label, err := req.label()
	if err != nil {
		return err
	}
	sp := store.Spot{EventID: e.ID, Label: label}
	if err := a.store.Spots().Create(r.Context(), &sp); err != nil {
		if errors.Is(err, store.ErrTooMany) {
			return web.Field("label", fmt.Sprintf("an event has at most %d places", store.MaxSpots))
		}
		return err
	}
	return web.JSON(w, r, http.StatusCreated, spotBody{Spot: spotDTO{ID: sp.ID, Label: sp.Label}})
}

// RenameSpot changes a place's label; its photos and QR code stay.
func (a *API) RenameSpot(w http.ResponseWriter, r *http.Request, e store.Event) error {
	spotID := web.Param(r, "spotId")
	if !store.ValidID(spotID) {
		return web.ErrNotFound
	}
	var req spotRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	label, err := req.label()
	if err != nil {
		return err
	}
	sp, err := a.store.Spots().Rename(r.Context(), e.ID, spotID, label)
	if err != nil {
		return err
	}
	d, err := a.spotDTO(r, sp)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, spotBody{Spot: d})
}

// DeleteSpot removes a place; its photos stay, untagged.
func (a *API) DeleteSpot(w http.ResponseWriter, r *http.Request, e store.Event) error {
	spotID := web.Param(r, "spotId")
	if !store.ValidID(spotID) {
		return web.ErrNotFound
	}
	if err := a.store.Spots().Delete(r.Context(), e.ID, spotID); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
}
