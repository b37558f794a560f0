package sending

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"eventbox/daemon/outbox"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// Limits of webhook fields (docs/decisions.md, "Webhooks and the outbox").
const (
	maxWebhookName   = 100
	maxWebhookURL    = 2000
	maxWebhookSecret = 200
	// deliveriesListed is how many recent deliveries GET lists.
	deliveriesListed = 50
)

// webhookDTO is a webhook as answered: the url as scheme and host only,
// the secret as hasSecret (both are secrets: a url often carries a token).
type webhookDTO struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	URL       string   `json:"url"`
	Kinds     []string `json:"kinds"`
	HasSecret bool     `json:"hasSecret"`
	Enabled   bool     `json:"enabled"`
	CreatedAt int64    `json:"createdAt"`
	// Reenter lists what was sealed by another box (the database comes
	// from its backup) and must be entered again: "url", "secret".
	Reenter []string `json:"reenter,omitempty"`
}

func toWebhookDTO(w store.Webhook) webhookDTO {
	kinds := w.Kinds
	if kinds == nil {
		kinds = []string{}
	}
	d := webhookDTO{ID: w.ID, Name: w.Name, Type: w.Type, URL: urlHost(w.URL), Kinds: kinds,
		HasSecret: w.Secret != "", Enabled: w.Enabled, CreatedAt: w.CreatedAt}
	if w.URLLost {
		d.Reenter = append(d.Reenter, "url")
	}
	if w.SecretLost {
		d.Reenter = append(d.Reenter, "secret")
	}
	return d
}

// urlHost is u as scheme://host, without path, query or user.
func urlHost(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return ""
	}
	return p.Scheme + "://" + p.Host
}

// deliveryDTO is one webhook delivery, from its job record.
type deliveryDTO struct {
	ID             string  `json:"id"`
	WebhookID      string  `json:"webhookId"`
	Kind           string  `json:"kind"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	ResponseStatus *int    `json:"responseStatus"`
	Error          *string `json:"error"`
	CreatedAt      int64   `json:"createdAt"`
	NextAttemptAt  *int64  `json:"nextAttemptAt"`
}

func toDeliveryDTO(j store.Job) deliveryDTO {
	d := deliveryDTO{ID: strconv.FormatUint(j.ID, 10), Attempts: j.Tries, CreatedAt: j.CreatedAt}
	d.WebhookID, d.Kind = outbox.DeliveryOf(j)
	switch j.Status {
	case store.JobDone:
		d.Status = "sent"
	case store.JobFailed:
		d.Status = "failed"
	default:
		d.Status = "pending"
	}
	if j.Status == store.JobQueued {
		d.NextAttemptAt = &j.DueAt
	}
	if j.Status != store.JobDone && j.LastError != "" {
		d.Error = &j.LastError
	}
	for i := len(j.Attempts) - 1; i >= 0; i-- {
		if code, err := strconv.Atoi(j.Attempts[i].Result); err == nil {
			d.ResponseStatus = &code
			break
		}
	}
	return d
}

// webhookInput is the body of webhook creation and update.
type webhookInput struct {
	Name    web.Optional[string]   `json:"name"`
	Type    web.Optional[string]   `json:"type"`
	URL     web.Optional[string]   `json:"url"`
	Kinds   web.Optional[[]string] `json:"kinds"`
	Secret  web.Nullable[string]   `json:"secret"`
	Enabled web.Optional[bool]     `json:"enabled"`
}

// validate checks and normalises the fields that are set. An empty url
// is left for the caller: it keeps the stored one on update.
func (in *webhookInput) validate(details map[string]string) {
	if in.Name.Set {
		in.Name.Value = strings.TrimSpace(in.Name.Value)
		if n := utf8.RuneCountInString(in.Name.Value); n < 1 || n > maxWebhookName {
			details["name"] = fmt.Sprintf("must be 1 to %d characters", maxWebhookName)
		} else if msg := web.LineProblem(in.Name.Value); msg != "" {
			details["name"] = msg
		}
	}
	if in.Type.Set && !web.OneOf(in.Type.Value, store.WebhookNtfy, store.WebhookDiscord, store.WebhookSlack, store.WebhookJSON) {
		details["type"] = "must be ntfy, discord, slack or json"
	}
	if in.URL.Set {
		in.URL.Value = strings.TrimSpace(in.URL.Value)
		if in.URL.Value != "" {
			if msg := webhookURLProblem(in.URL.Value); msg != "" {
				details["url"] = msg
			}
		}
	}
	if in.Kinds.Set {
		var kinds []string
		for _, k := range in.Kinds.Value {
			if !store.ValidNoticeKind(k) {
				details["kinds"] = fmt.Sprintf("%q is not a kind; the kinds are %s", k, strings.Join(store.NoticeKinds(), ", "))
				break
			}
			if !web.OneOf(k, kinds...) {
				kinds = append(kinds, k)
			}
		}
		if len(in.Kinds.Value) == 0 {
			details["kinds"] = "must list at least one kind"
		}
		in.Kinds.Value = kinds
	}
	if in.Secret.Set && !in.Secret.Null {
		if utf8.RuneCountInString(in.Secret.Value) > maxWebhookSecret {
			details["secret"] = fmt.Sprintf("must be at most %d characters", maxWebhookSecret)
		}
	}
}

// webhookURLProblem says what is wrong with a receiver's url, or "".
func webhookURLProblem(u string) string {
	if len(u) > maxWebhookURL {
		return fmt.Sprintf("must be at most %d characters", maxWebhookURL)
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "must be an http or https address"
	}
	return ""
}

// apply writes the validated fields over w. An empty url and an absent
// or empty secret keep the stored ones; a null secret removes it.
func (in webhookInput) apply(w *store.Webhook) {
	if in.Name.Set {
		w.Name = in.Name.Value
	}
	if in.Type.Set {
		w.Type = in.Type.Value
	}
	if in.URL.Set && in.URL.Value != "" {
		w.URL = in.URL.Value
	}
	if in.Kinds.Set {
		w.Kinds = in.Kinds.Value
	}
	switch {
	case in.Secret.Null:
		w.Secret, w.SecretLost = "", false
	case in.Secret.Set && in.Secret.Value != "":
		w.Secret = in.Secret.Value
	}
	if in.Enabled.Set {
		w.Enabled = in.Enabled.Value
	}
}

type webhooksBody struct {
	Webhooks   []webhookDTO  `json:"webhooks"`
	Deliveries []deliveryDTO `json:"deliveries"`
}

type webhookBody struct {
	Webhook webhookDTO `json:"webhook"`
}

// ListWebhooks answers the webhooks and the latest deliveries,
// newest first.
func (s *API) ListWebhooks(w http.ResponseWriter, r *http.Request) error {
	hooks, err := s.store.Webhooks().List(r.Context())
	if err != nil {
		return err
	}
	page, err := s.store.Jobs().List(r.Context(), store.JobFilter{Kind: outbox.WebhookJobKind, Limit: deliveriesListed})
	if err != nil {
		return err
	}
	body := webhooksBody{Webhooks: make([]webhookDTO, 0, len(hooks)), Deliveries: make([]deliveryDTO, 0, len(page.Jobs))}
	for _, h := range hooks {
		body.Webhooks = append(body.Webhooks, toWebhookDTO(h))
	}
	for _, j := range page.Jobs {
		body.Deliveries = append(body.Deliveries, toDeliveryDTO(j))
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// CreateWebhook adds a webhook; enabled defaults to true.
func (s *API) CreateWebhook(w http.ResponseWriter, r *http.Request) error {
	var in webhookInput
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	details := map[string]string{}
	in.validate(details)
	for field, set := range map[string]bool{"name": in.Name.Set, "type": in.Type.Set, "kinds": in.Kinds.Set} {
		if !set {
			details[field] = "required"
		}
	}
	if in.URL.Value == "" && details["url"] == "" {
		details["url"] = "required"
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	hook := store.Webhook{Enabled: true}
	in.apply(&hook)
	hook, err := s.store.Webhooks().Add(r.Context(), hook)
	if err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "webhook added", "webhook", hook.ID, "type", hook.Type, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusCreated, webhookBody{Webhook: toWebhookDTO(hook)})
}

// UpdateWebhook changes the fields given; an empty url keeps the
// stored one.
func (s *API) UpdateWebhook(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	var in webhookInput
	if err := web.DecodeJSON(r, &in); err != nil {
		return err
	}
	details := map[string]string{}
	in.validate(details)
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	hook, err := s.store.Webhooks().Update(r.Context(), id, func(w *store.Webhook) error {
		in.apply(w)
		return nil
	})
	if err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "webhook changed", "webhook", hook.ID, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, webhookBody{Webhook: toWebhookDTO(hook)})
}

// DeleteWebhook removes a webhook; its pending deliveries are set
// aside when they come up.
func (s *API) DeleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	if err := s.store.Webhooks().Delete(r.Context(), id); err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "webhook deleted", "webhook", id, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, web.OK)
}

// TestWebhook sends a test message at once, whether or not the
// webhook is enabled, and answers 502 webhook_failed with the receiver's
// answer when it did not take it.
func (s *API) TestWebhook(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	hook, err := s.store.Webhooks().Get(r.Context(), id)
	if err != nil {
		return err
	}
	if err := s.webhooks.Test(r.Context(), hook); err != nil {
		var se *outbox.SendError
		if !errors.As(err, &se) {
			return err
		}
		s.log.InfoContext(r.Context(), "webhook test failed", "webhook", id, "error", err)
		return web.WebhookFailed(se.Error())
	}
	return web.JSON(w, r, http.StatusOK, web.OK)
}
