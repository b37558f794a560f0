package moderation

import (
	"fmt"
	"net/http"
	"strings"

	"eventbox/daemon/access"
	"eventbox/daemon/dto"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Messages lists an event's messages for the hosts.
func (m *API) Messages(w http.ResponseWriter, r *http.Request, e store.Event) error {
	before, err := web.ParseBefore(r)
	if err != nil {
		return err
	}
	status := r.URL.Query().Get("status")
	if status != "" && !web.OneOf(status, store.StatusVisible, store.StatusPending, store.StatusHidden) {
		return web.Field("status", "must be visible, pending or hidden")
	}
	q := access.MessageQuery(e.ID, access.HostList())
	q.Status, q.Before, q.Limit = status, before, m.cfg.MessagePage
	page, err := m.store.Messages().List(r.Context(), q)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, dto.MessagePage(page, ""))
}

type moderateRequest struct {
	Action string   `json:"action"`
	IDs    []string `json:"ids"`
}

// maxModerateIDs bounds one moderation request.
const maxModerateIDs = 1000

func (req moderateRequest) validate(actions ...string) error {
	details := map[string]string{}
	if !web.OneOf(req.Action, actions...) {
		details["action"] = "must be " + strings.Join(actions, ", ")
	}
	if len(req.IDs) == 0 || len(req.IDs) > maxModerateIDs {
		details["ids"] = fmt.Sprintf("must list 1 to %d ids", maxModerateIDs)
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	return nil
}

// ModerateMessages approves, hides or deletes messages of the event.
func (m *API) ModerateMessages(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var err error
	var req moderateRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if err := req.validate("approve", "hide", "delete"); err != nil {
		return err
	}
	before := m.cfg.Live.MessagesOnWall(r.Context(), req.IDs)
	var changed []string
	switch req.Action {
	case "approve":
		changed, err = m.store.Messages().SetStatus(r.Context(), e.ID, req.IDs, store.StatusVisible)
	case "hide":
		changed, err = m.store.Messages().SetStatus(r.Context(), e.ID, req.IDs, store.StatusHidden)
	default:
		changed, err = m.store.Messages().Delete(r.Context(), e.ID, "", req.IDs)
	}
	if err != nil {
		return err
	}
	if req.Action == "delete" {
		m.cfg.Live.MessagesRemoved(e.ID, changed, before)
	} else {
		m.cfg.Live.MessagesChanged(r.Context(), e.ID, changed, false, before)
	}
	return web.JSON(w, r, http.StatusOK, dto.ChangedBody{Changed: len(changed)})
}
