package sending

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"eventbox/daemon/dto"
	"eventbox/daemon/mail"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

// The mail screen's answer (docs/design.md, "SMTP settings"; docs/decisions.md,
// "Mail"). The password is never returned: hasPassword says whether one
// is stored that this box can open.
type smtpDTO struct {
	Host        string `json:"host"`
	Port        int    `json:"port"`
	Username    string `json:"username"`
	HasPassword bool   `json:"hasPassword"`
	// PasswordLost: a password is stored but sealed by another box (the
	// database comes from its backup): it must be entered again.
	PasswordLost bool   `json:"passwordLost,omitempty"`
	From         string `json:"from"`
	Security     string `json:"security"`
}

type mailAlertsDTO struct {
	StorageLow   bool `json:"storageLow"`
	ExportFailed bool `json:"exportFailed"`
	BackupFailed bool `json:"backupFailed"`
	// PrinterAttention: a print waits for a person at the printer.
	PrinterAttention bool `json:"printerAttention"`
}

// mailItemDTO is one mail of the queue. status is pending (queued or
// being tried), sent or failed (set aside: retry requeues it).
type mailItemDTO struct {
	ID            uint64 `json:"id"`
	To            string `json:"to"`
	Subject       string `json:"subject"`
	Purpose       string `json:"purpose"`
	EventID       string `json:"eventId"`
	Status        string `json:"status"`
	Attempts      int    `json:"attempts"`
	Error         string `json:"error"`
	Reply         string `json:"reply"`
	CreatedAt     int64  `json:"createdAt"`
	NextAttemptAt *int64 `json:"nextAttemptAt"`
	SentAt        *int64 `json:"sentAt"`
}

type mailQueueDTO struct {
	Pending int           `json:"pending"`
	Failed  int           `json:"failed"`
	Items   []mailItemDTO `json:"items"`
}

type mailBody struct {
	SMTP       smtpDTO       `json:"smtp"`
	AdminEmail string        `json:"adminEmail"`
	Alerts     mailAlertsDTO `json:"alerts"`
	Queue      mailQueueDTO  `json:"queue"`
}

// mailQueueItems is how many mails the queue lists, newest first.
const mailQueueItems = 50

func toMailItem(j store.Job) mailItemDTO {
	var msg mail.Message
	_ = json.Unmarshal(j.Payload, &msg) // a mail job's payload; an odd one lists empty
	it := mailItemDTO{ID: j.ID, To: msg.To, Subject: msg.Subject, Purpose: msg.Purpose, EventID: msg.EventID,
		Status: dto.MailStatus(j.Status), Attempts: j.Tries, Error: j.LastError, CreatedAt: j.CreatedAt}
	if n := len(j.Attempts); n > 0 {
		it.Reply = j.Attempts[n-1].Result
	}
	switch j.Status {
	case store.JobQueued:
		due := j.DueAt
		it.NextAttemptAt = &due
	case store.JobDone:
		fin := j.FinishedAt
		it.SentAt = &fin
		it.Error = ""
	}
	return it
}

// mailCounts counts the mail jobs waiting to go (queued or being tried)
// and set aside, reading each job once: counting the queued and the
// running ones in two reads would miss a mail that starts its attempt
// between them.
func (s *API) mailCounts(ctx context.Context) (pending, failed int, err error) {
	f := store.JobFilter{Kind: store.MailJobKind, Limit: 500}
	for {
		page, err := s.store.Jobs().List(ctx, f)
		if err != nil {
			return 0, 0, err
		}
		for _, j := range page.Jobs {
			switch j.Status {
			case store.JobQueued, store.JobRunning:
				pending++
			case store.JobFailed:
				failed++
			}
		}
		if page.Next == 0 {
			return pending, failed, nil
		}
		f.Before = page.Next
	}
}

func (s *API) mailBody(ctx context.Context, m store.MailSettings) (mailBody, error) {
	b := mailBody{
		SMTP: smtpDTO{Host: m.SMTP.Host, Port: m.SMTP.Port, Username: m.SMTP.Username,
			HasPassword: s.mailer.HasPassword(m.SMTP), From: m.SMTP.From, Security: m.SMTP.Security},
		AdminEmail: m.AdminEmail,
		Alerts:     mailAlertsDTO(m.Alerts),
		Queue:      mailQueueDTO{Items: []mailItemDTO{}},
	}
	b.SMTP.PasswordLost = len(m.SMTP.PasswordSealed) > 0 && !b.SMTP.HasPassword
	if b.SMTP.Security == "" {
		b.SMTP.Security = mail.SecurityStartTLS
	}
	var err error
	if b.Queue.Pending, b.Queue.Failed, err = s.mailCounts(ctx); err != nil {
		return mailBody{}, err
	}
	page, err := s.store.Jobs().List(ctx, store.JobFilter{Kind: store.MailJobKind, Limit: mailQueueItems})
	if err != nil {
		return mailBody{}, err
	}
	for _, j := range page.Jobs {
		b.Queue.Items = append(b.Queue.Items, toMailItem(j))
	}
	return b, nil
}

// Mail answers the mail settings and the queue (GET /api/admin/mail).
func (s *API) Mail(w http.ResponseWriter, r *http.Request) error {
	m, err := s.store.Mail().Settings(r.Context())
	if err != nil {
		return err
	}
	b, err := s.mailBody(r.Context(), m)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, b)
}

// smtpRequest is the smtp object of PUT: it replaces the stored settings,
// except the password: absent or "" keeps the stored one, null removes
// it.
type smtpRequest struct {
	Host     string               `json:"host"`
	Port     int                  `json:"port"`
	Username string               `json:"username"`
	Password web.Nullable[string] `json:"password"`
	From     string               `json:"from"`
	Security string               `json:"security"`
}

type mailRequest struct {
	SMTP       *smtpRequest   `json:"smtp"`
	AdminEmail *string        `json:"adminEmail"`
	Alerts     *mailAlertsDTO `json:"alerts"`
}

// Limits of the mail settings.
const (
	maxMailHost     = 253
	maxMailUser     = 200
	maxMailPassword = 500
	maxMailAddress  = 254
)

// mailAddressProblem says what is wrong with an address a host typed
// ("" when it is fine); names are allowed when named is true.
func mailAddressProblem(addr string, named bool) string {
	if len(addr) > maxMailAddress {
		return fmt.Sprintf("must be at most %d characters", maxMailAddress)
	}
	a, err := mail.ParseAddress(addr)
	if err != nil || (!named && a.Name != "") {
		return "must be an email address"
	}
	return ""
}

func (req mailRequest) validate() map[string]string {
	details := map[string]string{}
	if sm := req.SMTP; sm != nil {
		sm.Host = strings.TrimSpace(sm.Host)
		if len(sm.Host) > maxMailHost || strings.ContainsAny(sm.Host, " /:@") || web.LineProblem(sm.Host) != "" {
			details["smtp.host"] = "must be a host name or an address"
		}
		if sm.Port < 0 || sm.Port > 65535 {
			details["smtp.port"] = "must be 1 to 65535, or 0 for the usual port"
		}
		switch sm.Security {
		case "":
			sm.Security = mail.SecurityStartTLS
		case mail.SecurityNone, mail.SecurityStartTLS, mail.SecurityTLS:
		default:
			details["smtp.security"] = "must be none, starttls or tls"
		}
		if len(sm.Username) > maxMailUser || web.LineProblem(sm.Username) != "" {
			details["smtp.username"] = fmt.Sprintf("must be one line of at most %d characters", maxMailUser)
		}
		if sm.Password.Set && !sm.Password.Null && len(sm.Password.Value) > maxMailPassword {
			details["smtp.password"] = fmt.Sprintf("must be at most %d bytes", maxMailPassword)
		}
		sm.From = strings.TrimSpace(sm.From)
		if sm.From != "" {
			if msg := mailAddressProblem(sm.From, true); msg != "" {
				details["smtp.from"] = msg
			}
		} else if sm.Host != "" {
			details["smtp.from"] = "is needed to send mail"
		}
	}
	if req.AdminEmail != nil {
		*req.AdminEmail = strings.TrimSpace(*req.AdminEmail)
		if *req.AdminEmail != "" {
			if msg := mailAddressProblem(*req.AdminEmail, false); msg != "" {
				details["adminEmail"] = msg
			}
		}
	}
	return details
}

// SaveMail saves the mail settings and answers them as GET does.
// Saving wakes the mails waiting for a retry: they may have waited for
// these very settings.
func (s *API) SaveMail(w http.ResponseWriter, r *http.Request) error {
	var req mailRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if details := req.validate(); len(details) > 0 {
		return web.BadRequest(details)
	}
	var sealed []byte
	if req.SMTP != nil && req.SMTP.Password.Set && !req.SMTP.Password.Null && req.SMTP.Password.Value != "" {
		var err error
		if sealed, err = s.mailer.Seal(req.SMTP.Password.Value); err != nil {
			return err
		}
	}
	m, err := s.store.Mail().UpdateSettings(r.Context(), func(m *store.MailSettings) error {
		if sm := req.SMTP; sm != nil {
			keep := m.SMTP.PasswordSealed
			m.SMTP = store.SMTPSettings{Host: sm.Host, Port: sm.Port, Username: strings.TrimSpace(sm.Username),
				From: sm.From, Security: sm.Security, PasswordSealed: keep}
			switch {
			case sealed != nil:
				m.SMTP.PasswordSealed = sealed
			case sm.Password.Null:
				m.SMTP.PasswordSealed = nil
			}
		}
		if req.AdminEmail != nil {
			m.AdminEmail = *req.AdminEmail
		}
		if req.Alerts != nil {
			m.Alerts = store.MailAlerts(*req.Alerts)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "mail settings saved", "host", m.SMTP.Host, "security", m.SMTP.Security, "by", visitor.Account(r).Username)
	if m.Ready() {
		if _, err := s.jobs.Wake(r.Context(), store.MailJobKind); err != nil {
			s.log.WarnContext(r.Context(), "waiting mails not woken", "error", err)
		}
	}
	b, err := s.mailBody(r.Context(), m)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, b)
}

type mailTestRequest struct {
	To string `json:"to"`
}

type mailTestBody struct {
	OK bool   `json:"ok"`
	To string `json:"to"`
}

// mailTestTimeout bounds the test mail: the host is waiting.
const mailTestTimeout = 30 * time.Second

// errSMTPFailed is the test mail's failure, with the server's answer.
func errSMTPFailed(message string) *web.Error {
	return &web.Error{Status: http.StatusBadGateway, Code: "smtp_failed", Message: message}
}

// TestMail sends a test mail at once, outside the queue, to the
// address given, else the admin address, else the caller's own.
func (s *API) TestMail(w http.ResponseWriter, r *http.Request) error {
	var req mailTestRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	m, err := s.store.Mail().Settings(r.Context())
	if err != nil {
		return err
	}
	to := strings.TrimSpace(req.To)
	for _, alt := range []string{m.AdminEmail, visitor.Account(r).Email} {
		if to == "" {
			to = alt
		}
	}
	if to == "" {
		return web.Field("to", "give an address, or set the admin address")
	}
	if msg := mailAddressProblem(to, false); msg != "" {
		return web.Field("to", msg)
	}
	msg, err := mail.TestMessage(to, s.mailer.Domain(r.Context()))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), mailTestTimeout)
	defer cancel()
	reply, err := s.mailer.Send(ctx, msg)
	if err != nil {
		s.log.WarnContext(r.Context(), "test mail failed", "error", err)
		// The server's answer, or what kept the box from reaching it:
		// both are the host's to read; neither holds a secret.
		return errSMTPFailed(err.Error())
	}
	s.log.InfoContext(r.Context(), "test mail sent", "reply", reply, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, mailTestBody{OK: true, To: to})
}

// untried reports whether a job of ids is queued without an attempt
// started since it was listed (tries).
func (s *API) untried(ctx context.Context, ids []uint64, tries map[uint64]int) bool {
	for _, id := range ids {
		if j, err := s.store.Jobs().Get(ctx, id); err == nil && j.Status == store.JobQueued && j.Tries <= tries[id] {
			return true
		}
	}
	return false
}

type mailRetryBody struct {
	Requeued int `json:"requeued"`
	Sent     int `json:"sent"`
	Failed   int `json:"failed"`
}

// mailRetryWait bounds how long retry works the queue before it answers;
// what is not through by then goes on in the background.
const mailRetryWait = 60 * time.Second

// RetryMail puts the failed mails back in the queue, makes the
// waiting ones due, works the queue, and answers how many were requeued
// and, of the mails it tried, how many went and how many failed again.
func (s *API) RetryMail(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var ids []uint64
	seen := map[uint64]bool{} // a requeued job is listed again as queued
	tries := map[uint64]int{} // tries of each job when listed
	var res mailRetryBody
	for _, st := range []store.JobStatus{store.JobFailed, store.JobQueued, store.JobRunning} {
		f := store.JobFilter{Kind: store.MailJobKind, Status: st, Limit: 500}
		for {
			page, err := s.store.Jobs().List(ctx, f)
			if err != nil {
				return err
			}
			for _, j := range page.Jobs {
				if st == store.JobFailed {
					if err := s.store.Jobs().Requeue(ctx, j.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
						return err
					}
					res.Requeued++
				}
				if !seen[j.ID] {
					tries[j.ID] = j.Tries
					seen[j.ID] = true
					ids = append(ids, j.ID)
				}
			}
			if page.Next == 0 {
				break
			}
			f.Before = page.Next
		}
	}
	wctx, cancel := context.WithTimeout(ctx, mailRetryWait)
	defer cancel()
	// Two passes: a mail whose attempt was under way when the route
	// listed the queue, or started between the listing and the wake
	// (cut by the very outage the host is retrying after), gets a fresh
	// try too.
	for pass := 0; pass < 2; pass++ {
		if _, err := s.jobs.Wake(ctx, store.MailJobKind); err != nil {
			return err
		}
		if err := s.jobs.WaitIdle(wctx); err != nil {
			s.log.InfoContext(ctx, "mail retry answers before the queue is through", "error", err)
			break
		}
		if pass > 0 || !s.untried(ctx, ids, tries) {
			break
		}
	}
	for _, id := range ids {
		j, err := s.store.Jobs().Get(ctx, id)
		if err != nil {
			continue // pruned meanwhile
		}
		switch {
		case j.Status == store.JobDone:
			res.Sent++
		case j.Status == store.JobFailed || (j.Status == store.JobQueued && j.Failures > 0):
			res.Failed++
		}
	}
	s.log.InfoContext(ctx, "mails retried", "requeued", res.Requeued, "sent", res.Sent, "failed", res.Failed, "by", visitor.Account(r).Username)
	return web.JSON(w, r, http.StatusOK, res)
}
