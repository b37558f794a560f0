package sending

import (
	"maps"
	"slices"
	"testing"

	"eventbox/daemon/web"
	"eventbox/store"
)

// A webhook's url is answered as its scheme and host only: a receiver's
// url often carries its token in the path, the query or the user part.
func TestWebhookURLAnsweredWithoutItsSecrets(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://ntfy.sh/party-topic-s3cret", "https://ntfy.sh"},
		{"https://discord.com/api/webhooks/123/T0KEN?wait=true", "https://discord.com"},
		{"https://user:pa55@hooks.example.com:8443/x#frag", "https://hooks.example.com:8443"},
		{"http://192.168.1.20:8080/hook?key=abc", "http://192.168.1.20:8080"},
		{"not a url with a s3cret", ""},
		{"", ""},
	} {
		if got := toWebhookDTO(store.Webhook{URL: tt.in}).URL; got != tt.want {
			t.Errorf("url %q answered as %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A delivery is answered from its job: its status in the queue's words,
// the receiver's last HTTP status (an attempt's result that is a
// number), its error only while it is not sent, and when it is tried next
// only while it waits.
func TestDeliveryAnswer(t *testing.T) {
	attempts := func(results ...string) []store.JobAttempt {
		var out []store.JobAttempt
		for _, r := range results {
			out = append(out, store.JobAttempt{Result: r})
		}
		return out
	}
	for _, tt := range []struct {
		name     string
		job      store.Job
		status   string
		response int // 0: none
		err      bool
		next     bool
	}{
		{"waiting for its retry", store.Job{Status: store.JobQueued, DueAt: 5, LastError: "502 Bad Gateway",
			Attempts: attempts("502", "dial tcp: refused")}, "pending", 502, true, true},
		{"never tried", store.Job{Status: store.JobQueued, DueAt: 5}, "pending", 0, false, true},
		{"being tried", store.Job{Status: store.JobRunning, Attempts: attempts("")}, "pending", 0, false, false},
		{"sent after a failure", store.Job{Status: store.JobDone, LastError: "timeout",
			Attempts: attempts("500", "200")}, "sent", 200, false, false},
		{"set aside", store.Job{Status: store.JobFailed, LastError: "410 Gone", Attempts: attempts("410")},
			"failed", 410, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := toDeliveryDTO(tt.job)
			if d.Status != tt.status {
				t.Errorf("status %q, want %q", d.Status, tt.status)
			}
			if got := deref(d.ResponseStatus); got != tt.response {
				t.Errorf("responseStatus %d, want %d", got, tt.response)
			}
			if (d.Error != nil) != tt.err {
				t.Errorf("error %q, want one: %v", deref(d.Error), tt.err)
			}
			if (d.NextAttemptAt != nil) != tt.next {
				t.Errorf("nextAttemptAt %d, want one: %v", deref(d.NextAttemptAt), tt.next)
			}
		})
	}
}

// deref is *p, or T's zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// The mail settings refuse what would break a mail's header or reach no
// server, field by field.
func TestMailSettingsChecks(t *testing.T) {
	str := func(s string) *string { return &s }
	smtp := func(host, user, from string) *smtpRequest {
		return &smtpRequest{Host: host, Port: 587, Username: user, From: from}
	}
	for _, tt := range []struct {
		name string
		req  mailRequest
		bad  []string
	}{
		{"a complete server", mailRequest{SMTP: smtp("smtp.example.com", "box", "Party <box@example.com>"),
			AdminEmail: str("host@example.com")}, nil},
		{"no server at all", mailRequest{SMTP: smtp("", "", "")}, nil},
		{"a host with a path", mailRequest{SMTP: smtp("smtp.example.com/x", "", "box@example.com")}, []string{"smtp.host"}},
		{"a user name with a line break", mailRequest{SMTP: smtp("smtp.example.com", "box\r\nBcc: x@example.com", "box@example.com")},
			[]string{"smtp.username"}},
		{"a server without a sender", mailRequest{SMTP: smtp("smtp.example.com", "", "")}, []string{"smtp.from"}},
		{"a sender that is no address", mailRequest{SMTP: smtp("smtp.example.com", "", "box at example")}, []string{"smtp.from"}},
		{"an admin address with a name", mailRequest{AdminEmail: str("Host <host@example.com>")}, []string{"adminEmail"}},
		{"an unknown security", mailRequest{SMTP: &smtpRequest{Host: "smtp.example.com", From: "box@example.com", Security: "ssl"}},
			[]string{"smtp.security"}},
		{"a port out of range", mailRequest{SMTP: &smtpRequest{Host: "smtp.example.com", From: "box@example.com", Port: 70000}},
			[]string{"smtp.port"}},
		{"a password too long", mailRequest{SMTP: &smtpRequest{Host: "smtp.example.com", From: "box@example.com",
			Password: web.Nullable[string]{Set: true, Value: string(make([]byte, maxMailPassword+1))}}}, []string{"smtp.password"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Sorted(maps.Keys(tt.req.validate()))
			if !slices.Equal(got, tt.bad) {
				t.Errorf("refused %v, want %v", got, tt.bad)
			}
		})
	}
}
